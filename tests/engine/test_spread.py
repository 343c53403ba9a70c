"""Provider processes through the engine: one by default, whose calls all run at once (`host.py`), and
resources spread over several when `mltrain:providerProcesses` asks for it (`spread.py`).

Checked in the state (which provider each resource references), in previews (no replace, no create
of an existing job when jobs come and go or the number of processes changes) and at the emulator
(no create, stop or delete call for a job that stays; creates waiting at the same time).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from support.pulumi_cli import Stack
from support.stacks import PROGRAMS

pytestmark = pytest.mark.engine

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


def job_steps(stack: Stack) -> dict[str, str]:
    """What `pulumi preview` plans for each job and the identity (steps of providers left out)."""
    return {s["urn"].rsplit("::", 1)[-1]: s["op"] for s in stack.preview_json().get("steps", [])
            if s["urn"].split("::")[-2].endswith((JOB, IDENTITY))}


def live_tasks(emulator: Any) -> list[str]:
    return sorted(t["name"] for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"])


def test_processes_asked_for_spread_the_jobs_and_destroy_works(
        emulator: Any, alaya_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(**QUICK)
    names = [f"job-{i}" for i in range(6)]
    stack = alaya_stack(project=PROGRAM, names=json.dumps([*names, "job-own"]), ownProvider="job-own",
                        **{"mltrain:providerProcesses": "3"})
    stack.up("--parallel", "12")

    placed = placement(stack)
    shards = {placed[n] for n in names}
    assert len(shards) > 1 and all(s.startswith(SHARD) for s in shards), placed
    assert placed["mltrain-stack-identity"].startswith(SHARD), "the identity starts no default provider"
    assert placed["job-own"] == "mine", "a provider the program chose is kept"
    assert provider_names(stack) == shards | {placed["mltrain-stack-identity"], "mine"}, "no default provider"
    assert all(int(s.removeprefix(SHARD)) < 3 for s in shards)

    out = stack.outputs()["job-0"]
    assert out["priority"] == 3 and out["name"].startswith("job-0-"), "defaults and chosen names are declared"
    assert out["description"] is None, "an optional input left out reads as None"
    assert out["start_command"] == "python3 train.py"
    assert emulator.alaya_api_key not in json.dumps(stack.export())

    stack.destroy("--parallel", "12")
    assert live_tasks(emulator) == [] and stack.resources() == []


def test_jobs_come_and_go_and_the_process_count_changes_without_replacing_a_job(
        emulator: Any, alaya_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(**QUICK)
    names = ["a", "b", "c", "d"]
    stack = alaya_stack(project=PROGRAM, names=json.dumps(names), **{"mltrain:providerProcesses": "3"})
    stack.up("--parallel", "8")
    ids = {n: stack.outputs()[n]["id"] for n in names}

    def step(change: Callable[[], None], expect: dict[str, str]) -> None:
        """Apply `change`; the preview plans `expect` for the jobs named there and `same` for the rest;
        the up makes write calls only for the jobs created or deleted."""
        change()
        steps = job_steps(stack)
        planned = {n: op for n, op in steps.items() if op != "same"}
        assert planned == expect, steps
        before = writes(emulator)
        stack.up("--parallel", "8")
        after = writes(emulator)
        created = after.get("POST /v1/subscription/training/create", 0) - before.get(
            "POST /v1/subscription/training/create", 0)
        assert created == sum(op == "create" for op in expect.values()), (before, after)
        deleted = sum(v for k, v in after.items() if k.startswith("DELETE ")) - sum(
            v for k, v in before.items() if k.startswith("DELETE "))
        assert deleted == sum(op == "delete" for op in expect.values()), (before, after)
        if not expect:
            assert after == before, "nothing is created, stopped or deleted when only providers change"
        kept = {n: stack.outputs()[n]["id"] for n in stack.outputs()}
        assert {n: ids[n] for n in kept if n in ids} == {n: kept[n] for n in kept if n in ids}, "same tasks"
        ids.update(kept)

    step(lambda: stack.set_config("names", json.dumps([*names, "e"])), {"e": "create"})
    step(lambda: stack.set_config("names", json.dumps(["b", "c", "d", "e"])), {"a": "delete"})
    assert set(placement(stack).values()) != {"default"}
    for count in ("1", "4", "2"):
        step(lambda c=count: stack.set_config("mltrain:providerProcesses", c), {})  # type: ignore[misc]
        shards = set(placement(stack).values())
        if count == "1":
            assert shards == {"default"} and provider_names(stack) == {"default"}
        else:
            assert shards <= {f"{SHARD}{i}" for i in range(int(count))}, shards
    # Back to the default (a stack made before the default became one process moves the same way).
    step(lambda: stack.run("config", "rm", "mltrain:providerProcesses", "--stack", stack.name), {})
    assert set(placement(stack).values()) == {"default"} and provider_names(stack) == {"default"}
    assert live_tasks(emulator) == sorted(stack.outputs()[n]["name"] for n in ("b", "c", "d", "e"))

    stack.destroy()
    assert live_tasks(emulator) == [] and stack.resources() == []


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
    stack.destroy("--parallel", "20")
    assert live_tasks(emulator) == []
