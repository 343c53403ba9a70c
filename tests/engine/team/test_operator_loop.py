"""The Pulumi Kubernetes Operator's reconcile loop, reproduced through the Python Automation API on a local
program (tests/engine/team/programs/operator_loop) against the emulator: the operator needs a cluster, its
loop does not.

What the operator documents, in pulumi/pulumi-kubernetes-operator, docs/stacks.md (the Stack API
reference, commit 475dbc6c):

- `retryMaxBackoffDurationSeconds`: "Failures are retried with an exponentially increasing backoff until
  it reaches this maxium [sic]. Defaults to 86400 (24 hours)." Its controller (`cooldown` in
  operator/internal/controller/pulumi/stack_controller.go) starts at 10 s and triples the wait after each
  failed update, up to that cap. Here: 0.2 s, tripled, capped at 1 s, and 3 attempts.
- `refresh`: "Refresh can be set to true to refresh the stack before it is updated." Version 2 runs `up`
  with refresh (`optup.Refresh()` in agent/pkg/server/server.go); version 1.16.0 ran a refresh of its own
  first (`RefreshStack` in pkg/controller/stack/stack_controller.go).
- `expectNoRefreshChanges`: "can be set to true if a stack is not expected to have changes during a
  refresh before the update is run." Version 1.16.0 passes it to that refresh as expect-no-changes;
  version 2 no longer passes it on (commented out in `newUp`; its validation in
  operator/internal/controller/pulumi/migration.go says "expectNoRefreshChanges is ignored").
- `resyncFrequencySeconds`: how often the update runs again when the source has not changed ("The minimum
  value is 60 seconds"). Here the next iteration runs at once and the emulator's clock is advanced instead.

A cancel is what the operator's workspace agent does when its request's context ends: it runs the Go
Automation API, whose command runner (pulumi/pulumi, sdk/go/auto/cmd.go) interrupts the CLI process when
the context is cancelled and kills it 10 s later (`WaitDelay`). Here the CLI that the Python Automation API
starts is interrupted the same way: its `PulumiCommand` root holds a `bin/pulumi` that records its PID and
then becomes the repository's engine.

The loop, on one stack of two Alaya NeW jobs, `bad` (its runs fail; wait_for completed) after `good`
(wait_for running):

(a) `up` with up to 3 attempts and the backoff between failed ones: one run per job, the failed one held,
    the later attempts failing without a platform call; nothing orphaned.
(b) `good` goes from RUNNING to SUCCEEDED on the emulator's clock: a refresh with expect-no-changes passes
    and records new outputs only; the GPU-hours of the runs, from the state and from the platform; an `up`
    with refresh starts nothing (it fails on the held run).
(c) the fix (a new start command for `bad`) starts one new run, waited for until completed; the `up` is
    interrupted while it waits: the CLI ends, the job is recorded unfinished, nothing is pending or
    orphaned, and the next iteration's `up` goes on waiting for that job (no new create) until it completes.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml
from pulumi import automation as auto

from pulumi_mltrain import abandoned_runs
from pulumi_mltrain.ownership import FAILED_KEY, UNFINISHED_KEY
from support.pulumi_cli import BIN, PROGRAMS_VENV, engine_env
from support.stacks import alaya_job_args

pytestmark = [pytest.mark.engine, pytest.mark.slow]
T = TypeVar("T")

PROGRAM = Path(__file__).parent / "programs" / "operator_loop"
CREATE = "POST /v1/subscription/training/create"
DETAIL = "GET /v1/training/instance/{task_id}/detail"
ATTEMPTS = 3
BACKOFF = (0.2, 3.0, 1.0)  # the first cooldown, its factor, the cap (retryMaxBackoffDurationSeconds)
RUN_SECONDS = 7200.0  # how long a healthy run trains, on the emulator's clock
GPUS = 8  # PRD-TRAIN-2: 4 GPUs per node, 2 workers
HANG_GUARD = 60.0  # a cancelled `up` that went on waiting would hold the CLI for its 20-minute deadline


def recording_cli(root: Path) -> Path:
    """A Pulumi installation root whose `bin/pulumi` appends "PID arguments" to `root/commands` and then
    execs the repository's engine: the process the Automation API starts is the engine itself."""
    (root / "bin").mkdir(parents=True)
    script = root / "bin" / "pulumi"
    script.write_text("#!/bin/sh\n"
                      f"echo \"$$ $*\" >> {shlex.quote(str(root / 'commands'))}\n"
                      f"exec {shlex.quote(str(BIN / 'pulumi'))} \"$@\"\n")
    script.chmod(0o755)
    return root


def workspace_stack(emulator: Any, home: Path, config: dict[str, Any]) -> tuple[auto.Stack, Path]:
    """A stack of a copy of the program in a LocalWorkspace of its own: PULUMI_HOME, file backend and
    passphrase under `home` (as `engine_env` sets them), the CLI a recording one; `config` as JSON values."""
    workdir = home / "project"
    shutil.copytree(PROGRAM, workdir, ignore=shutil.ignore_patterns("__pycache__"))
    spec = yaml.safe_load((workdir / "Pulumi.yaml").read_text())
    spec["runtime"] = {"name": "python", "options": {"toolchain": "pip", "virtualenv": str(PROGRAMS_VENV)}}
    (workdir / "Pulumi.yaml").write_text(yaml.safe_dump(spec))
    (home / "state").mkdir()
    env = engine_env(home)
    cli = recording_cli(home / "cli")
    workspace = auto.LocalWorkspace(work_dir=str(workdir), pulumi_home=env["PULUMI_HOME"], env_vars=env,
                                    pulumi_command=auto.PulumiCommand(root=str(cli)))
    stack = auto.Stack.create("test", workspace)
    # keepRuns 0, as the suite's stacks (support/stacks.py): the loop's guarantees are about its runs, not records.
    settings = {"alayaEndpoint": emulator.url, "requestTimeout": "5", "maxRetries": "3", "ambiguityGrace": "5",
                "keepRuns": "0"}
    values = {f"mltrain:{k}": auto.ConfigValue(v) for k, v in settings.items()}
    values["mltrain:alayaApiKey"] = auto.ConfigValue(emulator.alaya_api_key, secret=True)
    values.update({k: auto.ConfigValue(json.dumps(v)) for k, v in config.items()})
    stack.set_all_config(values)
    return stack, cli


@dataclass
class Attempt:
    """One `up` of the loop: whether it succeeded, its wall time, the platform calls it made, its output."""

    ok: bool
    seconds: float
    calls: dict[str, int]
    output: str


def calls(emulator: Any) -> dict[str, int]:
    return {k: int(v) for k, v in emulator.admin.requests()["endpoints"].items()}


def since(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}


def writes(made: dict[str, int]) -> dict[str, int]:
    """The calls among `made` that change something on the platform (all but reads)."""
    return {k: n for k, n in made.items() if not k.startswith("GET ")}


def up(stack: auto.Stack, emulator: Any, **options: Any) -> Attempt:
    before, start = calls(emulator), time.monotonic()
    try:
        result = stack.up(**options)
        ok, output = True, result.stdout + result.stderr
    except auto.CommandError as err:
        ok, output = False, str(err)
    return Attempt(ok, time.monotonic() - start, since(before, calls(emulator)), output)


def reconcile(stack: auto.Stack, emulator: Any, **options: Any) -> list[Attempt]:
    """The operator's update of a stack: `up`, and after a failure another one once the cooldown has passed
    (BACKOFF: tripled after each failure, capped), at most ATTEMPTS in all."""
    first, factor, cap = BACKOFF
    attempts: list[Attempt] = []
    for n in range(ATTEMPTS):
        if n:
            time.sleep(min(first * factor ** (n - 1), cap))
        attempts.append(up(stack, emulator, **options))
        if attempts[-1].ok:
            break
    return attempts


def jobs_of(stack: auto.Stack) -> dict[str, dict[str, Any]]:
    """The stack's training jobs by resource name, as its state records them."""
    deployment = stack.export_stack().deployment or {}
    return {r["urn"].rsplit("::", 1)[1]: r for r in deployment.get("resources", [])
            if r["type"].endswith(":TrainingJob")}


def live_tasks(emulator: Any) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"]}


def unrecorded(emulator: Any, stack: auto.Stack) -> set[str]:
    """Live tasks on the platform that the stack does not record (orphaned runs)."""
    return set(live_tasks(emulator)) - {r["id"] for r in jobs_of(stack).values()}


def hours(task: dict[str, Any]) -> float:
    """A task's run time on the emulator (its start and end, to the second)."""
    if not task["startTime"] or not task["endTime"]:
        return 0.0
    start, end = (datetime.strptime(task[k], "%Y-%m-%d %H:%M:%S") for k in ("startTime", "endTime"))
    return (end - start).total_seconds() / 3600


def until(found: Callable[[], bool], what: str, running: Future[Any], within: float = 60.0) -> None:
    end = time.monotonic() + within
    while not found():
        assert not running.done(), f"the `up` ended before {what}:\n{str(running.result())[-4000:]}"
        assert time.monotonic() < end, f"{what} did not happen within {within:.0f}s"
        time.sleep(0.1)


@contextmanager
def in_background(cli: Path, call: Callable[[], T]) -> Iterator[tuple[Future[T], Callable[[], int]]]:
    """`call` (which runs `pulumi up` through the recording CLI at `cli`) in a thread: its future, and the
    PID of the `up` it started. A command still running when the block ends (a failed assertion) gets
    SIGINT, then SIGKILL 30 s later, so that the test ends instead of waiting out the create's deadline."""
    log = cli / "commands"
    seen = len(log.read_text().splitlines())

    def pid() -> int:
        end = time.monotonic() + 30
        while True:
            for line in log.read_text().splitlines()[seen:]:
                number, *args = line.split()
                if "up" in args[:2]:  # `--non-interactive up ...`
                    return int(number)
            assert time.monotonic() < end, "no `pulumi up` started within 30s"
            time.sleep(0.05)

    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(call)
        try:
            yield future, pid
        finally:
            if not future.done():
                os.kill(pid(), signal.SIGINT)
                try:
                    future.exception(timeout=30)
                except TimeoutError:
                    os.kill(pid(), signal.SIGKILL)


def finished(running: Future[Attempt], pid: int, within: float = HANG_GUARD) -> Attempt:
    """The attempt's result; a CLI still running after `within` seconds is killed and fails the test."""
    try:
        return running.result(timeout=within)
    except TimeoutError:
        os.kill(pid, signal.SIGKILL)
        running.result(timeout=30)
        raise AssertionError(f"`pulumi up` (pid {pid}) was still running {within:.0f}s after its SIGINT") from None


def test_an_operator_loop_retries_held_runs_refreshes_and_survives_a_cancel(emulator: Any, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    for var in [k for k in os.environ if k.startswith("MLTRAIN_")]:
        monkeypatch.delenv(var)  # the Automation API passes its own environment on: config is the only source
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2, delete_delay=0.2,
                                fail_task_names="^bad-")
    jobs = {"good": alaya_job_args(wait_for="running"), "bad": alaya_job_args(wait_for="completed")}
    stack, cli = workspace_stack(emulator, tmp_path, {"jobs": jobs, "after": {"bad": "good"}})

    # (a) up, retried with backoff: one run per job; the failed one is held and fails every later attempt.
    attempts = reconcile(stack, emulator)
    report = [(a.ok, round(a.seconds, 1), a.calls) for a in attempts]
    assert len(attempts) == ATTEMPTS and not any(a.ok for a in attempts), report
    assert all("Run " in a.output and "(attempt 1 of 1) is held" in a.output for a in attempts), \
        attempts[-1].output[-4000:]
    assert attempts[0].calls.get(CREATE) == 2, report
    assert [a.calls for a in attempts[1:]] == [{}, {}], f"the retries fail without a platform call: {report}"
    recorded = jobs_of(stack)
    tasks = live_tasks(emulator)
    assert sorted(tasks) == sorted(r["id"] for r in recorded.values()), "one run per job, each recorded"
    good, bad = recorded["good"], recorded["bad"]
    assert tasks[good["id"]]["status"] == "RUNNING" and good["outputs"]["status"] == "RUNNING"
    assert tasks[bad["id"]]["status"] == "FAILED" and bad["outputs"]["status"] == "FAILED", "ended: no GPU held"
    assert f"Run {bad['id']} (attempt 1 of 1) is held" in bad["outputs"][FAILED_KEY], bad["outputs"]
    assert not good["outputs"].get(FAILED_KEY)

    # (b) `good` completes on the emulator's clock. A refresh that expects no changes passes: the outputs
    # change (status, end time, duration), the declared inputs do not, and the engine counts no change.
    emulator.admin.set_settings(succeed_after=RUN_SECONDS)
    emulator.admin.advance(RUN_SECONDS)
    before = calls(emulator)
    refreshed = stack.refresh(expect_no_changes=True)
    assert refreshed.summary.resource_changes == {"same": 4}, refreshed.stdout[-3000:]
    assert writes(since(before, calls(emulator))) == {}, "a refresh only reads"
    after = jobs_of(stack)
    for name, declared in jobs.items():
        for key, value in declared.items():
            assert after[name]["inputs"][key] == recorded[name]["inputs"][key] == value, (name, key)
    assert after["good"]["outputs"]["status"] == "SUCCEEDED" and after["bad"]["outputs"]["status"] == "FAILED"
    assert after["good"]["outputs"]["duration_ms"] == RUN_SECONDS * 1000, after["good"]["outputs"]
    assert after["bad"]["outputs"][FAILED_KEY] == bad["outputs"][FAILED_KEY], "the held failure stays held"
    # GPU-hours of the runs started: the state's gpu_count x run time against the platform's own account.
    tasks = live_tasks(emulator)
    spent = sum(r["outputs"]["gpu_count"] * (r["outputs"].get("duration_ms") or 0) / 3.6e6 for r in after.values())
    platform = sum(t["resource"]["gpuCount"] * t["workerCount"] * hours(t) for t in tasks.values())
    assert len(tasks) == 2 and abs(spent - platform) <= GPUS / 3600, (spent, platform)
    assert GPUS * RUN_SECONDS / 3600 <= spent <= GPUS * (RUN_SECONDS + 1) / 3600, \
        f"{spent:.4f} GPU-hours: a healthy run of {RUN_SECONDS / 3600:g} h on {GPUS} GPUs, a failed one of a moment"

    again = up(stack, emulator, refresh=True)  # the operator's `refresh: true`
    assert not again.ok and "(attempt 1 of 1) is held" in again.output, again.output[-4000:]
    assert writes(again.calls) == {}, f"its refresh reads the jobs; it starts nothing: {again.calls}"
    assert unrecorded(emulator, stack) == set()

    # (c) The fix starts one new run (the emulated failure is gone with it); its `up` is cancelled mid-wait.
    emulator.admin.set_settings(fail_task_names="^$")
    jobs["bad"] = alaya_job_args(wait_for="completed", start_command="python3 train.py --fixed")
    stack.set_config("jobs", auto.ConfigValue(json.dumps(jobs)))
    with in_background(cli, lambda: up(stack, emulator)) as (running, pid_of_up):

        def new_run() -> dict[str, Any] | None:
            return next((t for i, t in live_tasks(emulator).items() if t["name"].startswith("bad-")
                         and i != bad["id"]), None)

        until(lambda: (new_run() or {}).get("status") == "RUNNING", "the new run is RUNNING", running)
        polled = calls(emulator).get(DETAIL, 0)
        until(lambda: calls(emulator).get(DETAIL, 0) > polled, "its wait polls it running", running)
        pid = pid_of_up()
        os.kill(pid, signal.SIGINT)  # what the Go Automation API does when the operator's context is cancelled
        sent = time.monotonic()
        cancelled = finished(running, pid)
    took = time.monotonic() - sent
    # The engine cancels at the first SIGINT; the interrupted program says no more (its message is in the state).
    assert not cancelled.ok and "^C received; cancelling" in cancelled.output, cancelled.output[-4000:]
    run = new_run()
    assert run is not None and cancelled.calls.get(CREATE) == 1, cancelled.calls
    assert set(live_tasks(emulator)) == {good["id"], run["id"]}, "the failed record was replaced"
    deployment = stack.export_stack().deployment or {}
    assert not deployment.get("pending_operations"), deployment.get("pending_operations")
    recorded = jobs_of(stack)
    assert recorded["bad"]["id"] == run["id"] and recorded["bad"]["outputs"]["status"] == "RUNNING"
    assert "recorded as unfinished" in recorded["bad"]["outputs"][UNFINISHED_KEY], f"{took:.1f}s after SIGINT"
    assert unrecorded(emulator, stack) == set()
    found = abandoned_runs(config_stack="test", env=engine_env(tmp_path), cwd=str(tmp_path / "project"))
    assert found == [], found

    # The next iteration, with the operator's `refresh: true`: its refresh keeps the unfinished mark, and the
    # `up` goes on waiting for the job.
    with in_background(cli, lambda: reconcile(stack, emulator, refresh=True)) as (resuming, _):
        polled = calls(emulator).get(DETAIL, 0)
        until(lambda: calls(emulator).get(DETAIL, 0) > polled + 1, "the next `up` waits on the job", resuming)
        emulator.admin.advance(RUN_SECONDS)
        resumed = resuming.result(timeout=HANG_GUARD)
    assert [a.ok for a in resumed] == [True], [(a.ok, a.output[-3000:]) for a in resumed]
    assert CREATE not in resumed[0].calls, "no second create"
    final = jobs_of(stack)
    assert final["bad"]["id"] == run["id"] and final["bad"]["outputs"]["status"] == "SUCCEEDED", final["bad"]
    assert not final["bad"]["outputs"].get(UNFINISHED_KEY) and not final["bad"]["outputs"].get(FAILED_KEY)
    assert calls(emulator)[CREATE] == 3, "three runs in all: good, the failed one, its fix"
    stack.destroy()
    assert live_tasks(emulator) == {}
