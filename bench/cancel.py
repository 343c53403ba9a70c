"""Scenario 18: how soon an interrupted `pulumi up` ends while its creates wait.

A CI runner cancelling a deploy, or an operator's workspace agent whose request was cancelled, interrupts
the CLI; the runner kills it a few seconds later (GitHub Actions: SIGTERM 7.5 s after the SIGINT, SIGKILL
at 10 s; the Go Automation API: a kill 10 s after its interrupt), and a CLI killed records nothing: the
jobs it made run on, unrecorded. So the engine's Cancel must end every wait within moments
(provider/pulumi_mltrain/cancel.py) and each create must record its job as unfinished.

One run: a stack of N jobs (`alaya_jobs`, or `plugin_jobs` for the native plugin) that each wait for
`completed`, on an emulator whose tasks run at once and never end; `pulumi up --parallel N` in a process
group of its own (`Stack.start`), and once all N tasks are RUNNING and their waits have polled them, SIGINT
to the group; the figure is the seconds from the signal to the CLI's exit. Then the state: the jobs it
records (unfinished: the dynamic form's mark, the plugin's partially created resource), its pending
operations, and the live tasks it does not record; `pulumi destroy` then removes them all.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench_plan import Facts, Plan
from harness import OURS, PLUGIN, Emulator, bench_stack
from report import Row, verdict

from pulumi_mltrain.ownership import UNFINISHED_KEY

TARGET = 5.0  # seconds from SIGINT to the CLI's exit, with N creates waiting
HANG_GUARD = 120.0  # a CLI still running this long after its SIGINT is killed (the row says so)
DETAIL = "GET /v1/training/instance/{task_id}/detail"
FORMS = {OURS: "dynamic", PLUGIN: "plugin"}


@dataclass
class CancelRun:
    """One interrupted `up`: seconds to exit (None: killed by the hang guard) and what the state holds."""

    seconds: float | None
    code: int | None
    recorded: int = 0  # jobs in the state whose ID is a live task
    unfinished: int = 0  # of them, recorded as unfinished
    pending: int = 0  # pending operations left in the state
    orphaned: list[str] = field(default_factory=list)  # live tasks the state does not record
    left: int = 0  # live tasks after the destroy
    cancelling: bool = False  # the CLI said it was cancelling
    error: str = ""  # why the run could not be measured


def _live(emu: Emulator) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in emu.admin.state()["alaya"]["tasks"] if not t["deleting"]}


def _until(found: Callable[[], bool], within: float, done: Callable[[], bool]) -> bool:
    """Poll `found` every 0.1 s until it holds (True), `within` seconds pass or `done` (False)."""
    end = time.monotonic() + within
    while not found():
        if done() or time.monotonic() > end:
            return False
        time.sleep(0.1)
    return True


def interrupted_up(emu: Emulator, program: str, n: int) -> CancelRun:
    emu.reset()  # every delay 0: a task runs at once; no succeed_after: it never ends
    with bench_stack(program, emu, count=n, waitFor="completed") as st:
        up = st.stack.start("up", "--yes", "--skip-preview", f"--parallel={n}")

        def exited() -> bool:
            return up.process.poll() is not None

        if not _until(lambda: sum(t["status"] == "RUNNING" for t in _live(emu).values()) >= n, 180, exited):
            if not exited():
                up.interrupt(signal.SIGKILL)
            up.process.wait()
            raise RuntimeError(f"the {n} jobs never all ran:\n{up.output()[-2000:]}")
        polled = emu.endpoint_calls(DETAIL)
        _until(lambda: emu.endpoint_calls(DETAIL) >= polled + n, 30, exited)  # each wait has seen its task run
        sent = up.interrupt()
        try:
            code: int | None = up.wait(HANG_GUARD)
            seconds: float | None = time.monotonic() - sent
        except AssertionError:  # killed (group) by the hang guard
            code, seconds = None, None
        run = CancelRun(seconds, code, cancelling="^C received; cancelling" in up.output())
        deployment = st.stack.export()["deployment"]
        live = _live(emu)
        jobs = [r for r in deployment.get("resources", []) if str(r.get("type", "")).endswith(":TrainingJob")]
        mine = [r for r in jobs if r.get("id") in live]
        run.recorded = len(mine)
        run.unfinished = sum(bool((r.get("outputs") or {}).get(UNFINISHED_KEY) or r.get("initErrors")) for r in mine)
        run.pending = len(deployment.get("pending_operations") or [])
        run.orphaned = sorted(set(live) - {str(r.get("id")) for r in jobs})
        st.timed("destroy", f"--parallel={n}", check=False)
        run.left = len(_live(emu))
    return run


def _ok(run: CancelRun, n: int) -> bool:
    return (run.seconds is not None and run.seconds <= TARGET and run.recorded == run.unfinished == n
            and run.pending == 0 and not run.orphaned)


def _text(run: CancelRun, n: int) -> str:
    if run.error:
        return f"not measured ({run.error})"
    took = f"{run.seconds:.2f} s" if run.seconds is not None else f"still running after {HANG_GUARD:g} s, killed"
    return (f"{took} (exit {run.code}), {run.recorded}/{n} recorded, {run.unfinished} unfinished, "
            f"{run.pending} pending, {len(run.orphaned)} not recorded, {run.left} left after destroy")


def cancel_exit(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    n, repeats = plan.cancel_n, plan.cancel_runs
    runs: dict[str, list[CancelRun]] = {p: [] for p in FORMS}
    for _ in range(repeats):  # the two forms alternate, so both see the same background load
        for program in FORMS:
            try:
                runs[program].append(interrupted_up(emu, program, n))
            except (OSError, RuntimeError, AssertionError, subprocess.SubprocessError) as err:  # PulumiFailed too
                runs[program].append(CancelRun(None, None, error=f"{type(err).__name__}: {str(err)[-300:]}"))
    rows = []
    for program, form in FORMS.items():
        found = runs[program]
        times = [r.seconds for r in found]
        slowest = None if None in times else max(t for t in times if t is not None)
        ok = all(_ok(r, n) for r in found)
        misses = [r for r in found if not _ok(r, n)]
        facts[f"cancel_{form}"] = (slowest, ok)
        rows.append(Row(
            f"18 cancel: SIGINT to the CLI's exit, {form} form", str(n),
            f"{slowest:.2f} s" if slowest is not None else "killed", "—", "—", "—",
            f"{n} `alaya.TrainingJob`s ({'dynamic' if program == OURS else 'native plugin'}) waiting for completed "
            f"at `--parallel {n}`, all RUNNING and polled, then SIGINT to the CLI's process group; the slowest of "
            f"{repeats} run(s): " + "; ".join(_text(r, n) for r in found)
            + ("; the CLI said `^C received; cancelling`" if all(r.cancelling for r in found) else "")
            + (f"; MISSED in {len(misses)} run(s)" if misses else ""),
            target=f"exit ≤ {TARGET:g} s after SIGINT, every job recorded (unfinished), none pending",
            verdict=verdict(ok)))
    return rows
