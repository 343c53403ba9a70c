"""Scenario 11: where the engine's own CPU goes at scenario 1's largest N, ours against the no-op.

The engine writes its CPU profile with `--profiling PREFIX` (`PREFIX.<pid>.cpu`); `go tool pprof -top
-cum` reads the cumulative time of the snapshot manager's save loop, which serialises, hashes and
writes the whole checkpoint (and its backup) after each step with the file backend. Without `go` on
PATH the row says "not measured".
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench_plan import Facts, Plan
from harness import BASELINE, OURS, Emulator, bench_stack
from report import Row, ratio

SAVE = "backend.(*SnapshotManager).saveSnapshot"
_UNIT = {"": 1.0, "us": 1e-6, "ms": 0.001, "s": 1.0, "min": 60.0, "h": 3600.0}


def seconds(text: str) -> float:
    """pprof's durations: "0", "830ms", "6.37s", "1.2min"."""
    number = re.match(r"\d+(?:\.\d+)?", text)
    assert number is not None, text
    return float(number.group()) * _UNIT[text[number.end():]]


def split(top: str) -> tuple[float, float]:
    """(total CPU seconds sampled, cumulative seconds under saveSnapshot) from `pprof -top -cum`."""
    total = re.search(r"Total samples = (\S+)", top)
    if total is None:
        raise ValueError("no 'Total samples' line in pprof's output")
    for line in top.splitlines():
        columns = line.split()  # flat, flat%, sum%, cum, cum%, function
        if len(columns) == 6 and columns[5].endswith(SAVE):
            return seconds(total.group(1)), seconds(columns[3])
    raise ValueError(f"no {SAVE} in pprof's output")


def _profile(go: str, cpu: Path) -> tuple[float, float]:
    top = subprocess.run([go, "tool", "pprof", "-top", "-cum", "-nodecount=400", str(cpu)],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    return split(top)


def _up_and_destroy(emu: Emulator, go: str, program: str, n: int, tmp: Path) -> tuple[float, float]:
    """(engine CPU sampled, of it under saveSnapshot) over one up and one destroy of `program`."""
    total = saved = 0.0
    with bench_stack(program, emu, count=n) as st:
        emu.reset()
        for command in ("up", "destroy"):
            prefix = tmp / f"{program}-{command}"
            st.timed(command, "--profiling", str(prefix))
            profiles = list(tmp.glob(f"{prefix.name}.*.cpu"))
            if not profiles:
                raise ValueError(f"`pulumi {command} --profiling` wrote no CPU profile")
            for cpu in profiles:
                t, s = _profile(go, cpu)
                total, saved = total + t, saved + s
    return total, saved


def engine_split(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    n = max(plan.overhead_ns)
    name = "11 engine CPU in checkpoint writes, up + destroy"

    def unmeasured(why: str) -> list[Row]:
        return [Row(name, str(n), "—", "—", "—", "—", why, target="— (explains scenario 1)", verdict="not measured")]

    go = shutil.which("go")
    if go is None:
        return unmeasured("`go` is not on PATH: pprof cannot read the engine's profile")
    found: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="mltrain-bench-pprof-") as tmp:
        for program in (OURS, BASELINE):
            try:
                found[program] = _up_and_destroy(emu, go, program, n, Path(tmp))
            except (OSError, subprocess.SubprocessError, ValueError) as err:
                return unmeasured(f"{program}: {err}")
    (ot, os_), (bt, bs) = found[OURS], found[BASELINE]
    facts["engine_split"] = (n, found)
    return [Row(
        name, str(n), f"{os_:.2f} s of {ot:.2f} s", f"{bs:.2f} s of {bt:.2f} s", ratio(os_, bs), "—",
        f"`pulumi up` and `pulumi destroy` with `--profiling`, one run each, `go tool pprof -top -cum`: CPU "
        f"sampled in the engine process, and of it the cumulative time under `SnapshotManager.saveSnapshot` "
        f"(the whole checkpoint serialised, hashed and written, with its backup, after each step); the rest of "
        f"the engine: {ot - os_:.2f} s ours, {bt - bs:.2f} s no-op. The profiler's sampling misses some CPU, so "
        f"the totals are below scenario 1's",
        target="— (explains scenario 1 at this N)", verdict="—")]
