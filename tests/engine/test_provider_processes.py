"""Provider processes through the engine: one, whose calls all run at once (`host.py`), and stacks made
when `mltrain:providerProcesses` could spread resources over several (`mltrain-provider-<i>`
providers) moving onto it.

The old state is made by the code that made it then (`programs/spread_jobs/spread_before_removal.py`,
a verbatim copy), then the program runs without it. Checked in the state (which provider each
resource references), in previews (`same` for every job, no replace or create) and at the emulator
(no create, stop or delete call for a job that stays).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from support.pulumi_cli import Stack, change_counts
from support.stacks import PROGRAMS

PROGRAM = PROGRAMS / "spread_jobs"
JOB = "dynamic/alaya:TrainingJob"
IDENTITY = "dynamic/mltrain:StackIdentity"
SHARD = "mltrain-provider-"
QUICK = {"subscription_delay": 0.1, "task_state_delay": 0.1, "delete_delay": 0.1}


def placement(stack: Stack) -> dict[str, str]:
    """Resource name -> name of the provider it references, for our jobs and the stack identity."""
    out: dict[str, str] = {}
    for res in stack.resources():
        if res["type"].endswith((JOB, IDENTITY)):
            out[res["urn"].rsplit("::", 1)[-1]] = res["provider"].split("::")[-2]
    return out


def provider_names(stack: Stack) -> set[str]:
    return {r["urn"].rsplit("::", 1)[-1] for r in stack.resources() if r["type"] == "pulumi:providers:pulumi-python"}


def writes(emulator: Any) -> dict[str, int]:
    """Calls that create, stop or delete something on the platform, per route."""
    return {k: v for k, v in emulator.admin.requests()["endpoints"].items()
            if k.startswith(("POST /v1/", "DELETE /v1/"))}


def job_steps(preview: dict[str, Any]) -> dict[str, str]:
    """What a `pulumi preview --json --show-sames` plans for each job and the identity (providers left out)."""
    return {s["urn"].rsplit("::", 1)[-1]: s["op"] for s in preview.get("steps", [])
            if s["urn"].split("::")[-2].endswith((JOB, IDENTITY))}


def live_tasks(emulator: Any) -> list[str]:
    return sorted(t["name"] for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"])


def old_stack(alaya_stack: Callable[..., Stack], names: list[str]) -> Stack:
    """A stack whose resources sit on the spread's providers, as `up` with `providerProcesses` = 3 left
    them before the key was retired; the stack config still sets the key."""
    stack = alaya_stack(project=PROGRAM, names=json.dumps([*names, "job-own"]), ownProvider="job-own",
                        spreadBeforeRemoval="true", **{"mltrain:providerProcesses": "3"})
    stack.up("--parallel", "8")
    placed = placement(stack)
    shards = {placed[n] for n in names}
    assert len(shards) > 1 and all(s.startswith(SHARD) for s in shards), placed
    assert placed["mltrain-stack-identity"].startswith(SHARD) and placed["job-own"] == "mine", placed
    assert provider_names(stack) == shards | {placed["mltrain-stack-identity"], "mine"}, "no default provider"
    stack.run("config", "rm", "spreadBeforeRemoval", "--stack", stack.name)  # the upgraded program
    return stack


def warnings(output: str) -> list[str]:
    return [line for line in output.splitlines() if "mltrain:providerProcesses" in line and "deprecated" in line]


def said(run: subprocess.CompletedProcess[str]) -> str:
    """Everything a CLI command printed: where a warning goes differs between `preview` and `up`."""
    return run.stdout + run.stderr


def diagnosed_warnings(preview: dict[str, Any]) -> str:
    return "\n".join(d["message"] for d in preview.get("diagnostics", []) if d.get("severity") == "warning")


@pytest.mark.engine
def test_a_stack_made_with_several_processes_moves_to_one_without_touching_a_job(
        emulator: Any, alaya_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(**QUICK)
    names = ["a", "b", "c", "d"]
    stack = old_stack(alaya_stack, names)
    ids = {n: o["id"] for n, o in stack.outputs().items()}
    tasks = live_tasks(emulator)
    assert len(tasks) == len(names) + 1

    # A refresh runs no program: the spread's providers, configured from their inputs in the state, still
    # serve their resources (was test_a_stack_made_with_several_processes_refreshes_and_destroys_without_an_up).
    placed = placement(stack)
    stack.refresh()
    assert placement(stack) == placed and live_tasks(emulator) == tasks

    # Nor does a destroy: `d`, on one of the spread's providers, is deleted through it (was
    # test_a_stack_made_with_several_processes_destroys_without_an_up); the program no longer declares it.
    [d_urn] = [r["urn"] for r in stack.resources(JOB) if r["urn"].endswith("::d")]
    assert placed["d"].startswith(SHARD), placed
    stack.destroy("--target", d_urn)
    gone = ids.pop("d")
    assert "d" not in placement(stack), "the state forgot it"
    assert gone not in [t["id"] for t in emulator.admin.state()["alaya"]["tasks"]], "the platform deleted it"
    names.remove("d")
    stack.set_config("names", json.dumps([*names, "job-own"]))
    tasks = live_tasks(emulator)
    assert len(tasks) == len(names) + 1

    preview = stack.preview_json("--show-sames")
    steps = job_steps(preview)
    assert set(steps.values()) == {"same"} and len(steps) == len(names) + 2, steps
    assert {s["op"] for s in preview.get("steps", [])} <= {"same", "delete"}, preview.get("steps")
    assert len(warnings(diagnosed_warnings(preview))) == 1, diagnosed_warnings(preview)
    before = writes(emulator)
    up = stack.up("--parallel", "8")
    assert writes(emulator) == before, "nothing is created, stopped or deleted"
    assert warnings(said(up)), said(up)

    placed = placement(stack)
    assert placed.pop("job-own") == "mine", "a provider the program chose is kept"
    assert set(placed.values()) == {"default"} and provider_names(stack) == {"default", "mine"}, placed
    assert {n: o["id"] for n, o in stack.outputs().items()} == ids and live_tasks(emulator) == tasks

    stack.run("config", "rm", "mltrain:providerProcesses", "--stack", stack.name)
    after = stack.preview_json()
    assert set(change_counts(after)) == {"same"}, "nothing left to change"
    assert warnings(diagnosed_warnings(after)) == [], "no warning once the key is removed"
    # That MLTRAIN_PROVIDER_PROCESSES warns too is the program side's own reading of its environment:
    # test_the_environment_variable_is_retired_too.


@pytest.mark.engine
@pytest.mark.parametrize("threads", [None, "4"], ids=["default", "sdk-pool-of-4"])
def test_creates_wait_side_by_side_in_one_process(
        emulator: Any, alaya_stack: Callable[..., Stack], threads: str | None) -> None:
    """20 creates whose subscriptions each take 3 s, with --parallel 20 and default settings: one provider
    process, and far more than the SDK host's 4 threads wait at once. Observed at the emulator: the
    subscriptions still PROCESSING at one moment. With the pool's bound kept at the SDK's 4
    (MLTRAIN_PROVIDER_THREADS=4), at most 4 wait: the widened pool is what makes the difference."""
    emulator.admin.set_settings(subscription_delay=3.0, task_state_delay=0.1, delete_delay=0.1)
    stack = alaya_stack(project=PROGRAM, names=json.dumps([f"wait-{i:02d}" for i in range(20)]))
    if threads is not None:
        stack.env_extra["MLTRAIN_PROVIDER_THREADS"] = threads
    most = 0
    with ThreadPoolExecutor(1) as pool:
        up = pool.submit(stack.up, "--parallel", "20")
        deadline = time.monotonic() + 300
        while not up.done() and time.monotonic() < deadline:
            subscriptions = emulator.admin.state()["alaya"]["subscriptions"]
            most = max(most, sum(s["status"] == "PROCESSING" for s in subscriptions))
            time.sleep(0.25)
        up.result(timeout=5)
    if threads is None:
        assert most >= 15, f"only {most} of 20 creates waited at the same time with --parallel 20"
    else:
        assert 1 <= most <= int(threads), f"{most} creates waited at once on a pool of {threads}"
    assert provider_names(stack) == {"default"}, "one provider process"
    assert len(live_tasks(emulator)) == 20
