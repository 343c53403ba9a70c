"""A cancelled `pulumi up` (CI's cancel-in-progress: SIGINT to the CLI's process group) ends within
moments while creates wait for `wait_for="completed"`, records every job it made as unfinished, and
leaves no pending operation: the next `pulumi up` goes on waiting for the same jobs, with no second
create, no `pulumi cancel` and no `--clear-pending-creates`. One stack holds the dynamic (`dyn-*`) and the
plugin (`plug-*`) form of an Alaya NeW task and a ModelArts job (the bench times 20 of them).

The stack is not destroyed at the end: that a destroy of both forms' jobs on both platforms leaves
nothing is test_plugin_held_failures.py::test_modelarts_held_failure_is_readable_fails_every_up_and_reruns_when_asked's,
and of jobs whose create was resumed after a partial create, test_plugin_operations.py's
test_custom_timeouts_are_the_create_and_delete_deadlines (the emulator is reset before every test)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from plugin_support import both_forms, both_platforms_stack, by_name, live_jobs, modelarts_job_args

from pulumi_mltrain.ownership import UNFINISHED_KEY
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]
CREATES = ("POST /v1/subscription/training/create", "POST /v2/{project_id}/training-jobs")
JOBS = {"dyn-sft", "plug-sft", "dyn-train", "plug-train"}


def creates(emulator: Any) -> int:
    endpoints = emulator.admin.requests()["endpoints"]
    return sum(int(endpoints.get(key, 0)) for key in CREATES)


def running(emulator: Any) -> int:
    state = emulator.admin.state()
    return (sum(t["status"] == "RUNNING" for t in state["alaya"]["tasks"])
            + sum(j["status"]["phase"] == "Running" for j in state["modelarts"]["jobs"]))


def probe_every_job(emulator: Any) -> None:
    """A rule per job that counts the reads of it (`seen`) and lets every one through (`after` beyond
    any count): set once the jobs run, a read it counts is a wait that has polled its job running."""
    state = emulator.admin.state()
    paths = ([f"/v1/training/instance/{t['id']}/detail" for t in state["alaya"]["tasks"]]
             + [f"/v2/*/training-jobs/{j['metadata']['id']}" for j in state["modelarts"]["jobs"]])
    emulator.admin.set_faults([{"method": "GET", "path": path, "kind": "latency", "after": 10**9}
                               for path in paths])


def unpolled(emulator: Any) -> list[str]:
    return [rule["path"] for rule in emulator.admin.faults() if rule["seen"] == 0]


def test_sigint_records_the_waiting_jobs_and_the_next_up_waits_on(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.2, subscription_delay=0.2, modelarts_phase_delay=0.2,
                                modelarts_run_seconds=3600, delete_delay=0.2)
    jobs = {"alaya": {"sft": stacks.alaya_job_args(wait_for="completed")},
            "modelarts": {"train": modelarts_job_args(wait_for="completed")}}
    stack = both_forms(both_platforms_stack(emulator, tmp_path), jobs)
    up = stack.start("up", "--yes", "--skip-preview")
    end = time.monotonic() + 120
    while running(emulator) < len(JOBS) and up.process.poll() is None:
        assert time.monotonic() < end, f"the jobs never ran:\n{up.output()[-3000:]}"
        time.sleep(0.2)
    probe_every_job(emulator)
    while unpolled(emulator) and up.process.poll() is None:  # every wait has polled its job running once
        assert time.monotonic() < end, f"not polled: {unpolled(emulator)}\n{up.output()[-3000:]}"
        time.sleep(0.1)
    emulator.admin.clear_faults()
    up.interrupt()  # the runner's SIGINT; it would send SIGTERM 7.5 s later and SIGKILL at 10 s
    code = up.wait(60)  # a wait that went on would hold the CLI for its 20-minute deadline
    output = up.output()
    assert code != 0 and "^C received; cancelling" in output, output[-4000:]
    for name in JOBS:
        assert f"'{name}'" in output and "recorded as unfinished" in output, output[-4000:]
    made = live_jobs(emulator)
    assert creates(emulator) == len(JOBS) and len(made) == len(JOBS), made
    state = stack.export()["deployment"]
    assert not state.get("pending_operations"), state.get("pending_operations")
    held = by_name(stack)
    assert set(held) == JOBS and {r["id"] for r in held.values()} == set(made.values()), "every job is recorded"
    assert held["dyn-sft"]["outputs"][UNFINISHED_KEY] and held["plug-sft"].get("initErrors"), held

    # The next `up`, as the next push's pipeline runs it: the same jobs, waited for until they complete.
    emulator.admin.set_settings(succeed_after=0.5)
    emulator.admin.advance(3600)
    again = stack.up()
    assert creates(emulator) == len(JOBS), "no second create"
    held = by_name(stack)
    assert {r["id"] for r in held.values()} == set(made.values())
    for name, resource in held.items():
        outs = resource["outputs"]
        assert outs.get("status", outs.get("phase")) in ("SUCCEEDED", "Completed"), (name, outs)
        assert not outs.get(UNFINISHED_KEY) and not resource.get("initErrors"), (name, resource)
    assert "updated" in again.stdout, again.stdout[-2000:]
