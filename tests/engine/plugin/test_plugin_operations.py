"""What the plugin gets from the engine and the dynamic host does not give: customTimeouts as the
operation's deadline, concurrent waits bounded only by --parallel, explicit providers (two accounts)
and a move between them."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from plugin_support import RAW, alaya_job, declare, managed, on_path, output_of, summary, tasks

from mltrain_emulator import EmulatorAdmin, EmulatorServer
from mltrain_emulator import defaults as d
from support.pulumi_cli import Stack
from support.stacks import alaya_task_ids

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def test_custom_timeouts_are_the_create_and_delete_deadlines(emulator: Any,
                                                             alaya_plugin_stack: Callable[..., Stack]) -> None:
    """A 4 s customTimeouts create cannot see the task run (it needs 60 s): the create fails within the
    forwarded deadline (not the 20-minute default) and keeps the task, recorded in the state as
    unfinished (a partially created resource). A second such resource, then removed from the program,
    is deleted by the next up as any other; that up goes on waiting for the first one. A 3 s
    customTimeouts delete cannot see that task gone (the platform keeps it DELETING for 60 s): destroy
    fails within the forwarded deadline and keeps the job in the state (nothing is dropped while the
    platform still shows it); the next destroy, once the platform is done, removes it."""
    emulator.admin.set_settings(task_state_delay=60, subscription_delay=0.2)
    job = {**alaya_job(wait_for="running"), "customTimeouts": {"create": "4s", "delete": "3s"}}
    abandoned = {**alaya_job("abandoned", wait_for="running"), "customTimeouts": {"create": "3s"}}
    stack = alaya_plugin_stack([job, abandoned])
    result = stack.up(check=False)
    output = output_of(result)
    assert result.returncode != 0
    # Recorded either way: unfinished once the task was read, as partially created when its subscription
    # had not answered yet (a loaded machine).
    assert "raise the timeout with customTimeouts" in output, output[-3000:]
    assert "recorded as unfinished" in output or "recorded in the state as partially created" in output, output[-3000:]
    assert "Traceback" not in output
    partial = {r["urn"].rsplit("::", 1)[-1]: r for r in stack.resources("mltrain:alaya:TrainingJob")}
    assert sorted(t["id"] for t in tasks(emulator)) == sorted(r["id"] for r in partial.values())
    assert all(r.get("initErrors") for r in partial.values()), partial

    # A partially created resource is deleted like any other (here: removed from the program): its task
    # goes, the state forgets it. The same up goes on waiting for the other one.
    declare(stack, [job])
    emulator.admin.set_settings(task_state_delay=0.2)
    emulator.admin.advance(60)
    result = stack.up()
    assert summary(result).get("deleted") == 1, output_of(result)[-3000:]
    task_id = partial["job"]["id"]
    assert [t["id"] for t in tasks(emulator)] == [task_id] == [stack.outputs()["job_id"]], "waited for, no orphan"
    [done] = stack.resources("mltrain:alaya:TrainingJob")
    assert done["id"] == task_id and not done.get("initErrors") and "__mltrain_partial" not in done["outputs"], done
    assert "adoptId" not in done["outputs"] and "adopt_id" not in done["outputs"], \
        "the resumed create is not written into the inputs"
    # That the finished wait then previews no change is the provider's: tests/inprocess/
    # test_automation_safety.py::test_a_cancelled_wait_records_the_job_unfinished_and_the_next_up_waits_on.

    emulator.admin.set_settings(delete_delay=60)
    result = stack.destroy(check=False)
    output = output_of(result)
    assert result.returncode != 0
    assert "raise the timeout with customTimeouts" in output and "Traceback" not in output, output[-3000:]
    assert "after 3s" in output, "the forwarded 3 s, not the 20-minute default"
    [kept] = stack.resources("mltrain:alaya:TrainingJob")
    assert kept["id"] == task_id, "the job stays in the state while the platform still has it"

    emulator.admin.advance(61)
    stack.destroy()
    assert emulator.admin.state()["alaya"]["tasks"] == [] and stack.resources("mltrain:alaya:TrainingJob") == []


def waiting_tasks(emulator: Any) -> list[str]:
    """The queued tasks of the twenty waiting creates (named job0 ... job19)."""
    return [t["id"] for t in tasks(emulator) if t["name"].startswith("job") and t["status"] == "QUEUED"]


@pytest.fixture
def second_account() -> Iterator[EmulatorServer]:
    with EmulatorServer() as server:
        yield server


def test_two_explicit_providers_a_move_and_twenty_waiting_creates(emulator: Any, second_account: EmulatorServer,
                                                                  tmp_path: Path) -> None:
    """Two accounts (explicit providers) in one stack, and a move between them. On the first account,
    twenty creates each wait until their task runs: the emulator keeps every task queued until all 20
    are made, then its clock moves on and they run, so the 20 waits overlapped in one plugin process
    (bounded only by --parallel): waits taken one after another would never have made the second task."""
    emulator.admin.set_settings(task_state_delay=1000, subscription_delay=0.2)
    with EmulatorAdmin(second_account.url) as admin:
        admin.set_settings(task_state_delay=0.2, subscription_delay=0.2)
    # keepRuns 0: the move is about what each account keeps of the jobs (no run records, as the suite's stacks).
    settings = {"alayaApiKey": d.DEFAULT_ALAYA_API_KEY, "requestTimeout": 5, "maxRetries": 3, "ambiguityGrace": 5,
                "keepRuns": 0}
    providers = {"one": {"alayaEndpoint": emulator.url, **settings},
                 "two": {"alayaEndpoint": second_account.url, **settings}}
    jobs = {"a": "one", "b": "two"}
    waiting = [{**alaya_job(f"job{i}", wait_for="running"), "provider": "one"} for i in range(20)]

    def declared() -> list[dict[str, Any]]:
        return [{**alaya_job(name), "provider": account} for name, account in jobs.items()] + waiting

    stack = on_path(Stack.from_project(RAW, tmp_path))
    declare(stack, declared(), providers=providers)
    up = stack.start("up", "--yes", "--skip-preview", "--parallel", "32")
    for _ in range(1200):  # bounded: 5 minutes
        if len(waiting_tasks(emulator)) == 20 or up.process.poll() is not None:
            break
        time.sleep(0.25)
    assert len(waiting_tasks(emulator)) == 20, f"the twenty creates did not wait at once:\n{up.output()[-3000:]}"
    emulator.admin.advance(2 * 1000 + 60)  # past QUEUED and STARTING: every task runs now
    assert up.wait(300) == 0, up.output()[-3000:]
    out = stack.outputs()
    twenty = [out[f"job{i}_id"] for i in range(20)]
    assert alaya_task_ids(emulator.url) == sorted([out["a_id"], *twenty])
    assert alaya_task_ids(second_account.url) == [out["b_id"]]
    assert d.DEFAULT_ALAYA_API_KEY not in json.dumps(stack.export()), "provider credentials stay secret"
    # Concurrency: the waits overlapped.
    made = [t for t in tasks(emulator) if t["id"] in twenty]
    assert len(made) == 20 and all(t["status"] == "RUNNING" for t in made)
    created, started = max(t["createdTime"] for t in made), min(t["startTime"] for t in made)
    assert created < started, f"the last task was made at {created}, after the first ran at {started}"

    # `a` moves to the second account: a replace (the account identity in its state changed); nothing
    # else changes (the providers, `b` and the twenty are as the up left them).
    emulator.admin.set_settings(task_state_delay=0.2)
    jobs["a"] = "two"
    stack.set_config("resources", json.dumps(declared()))
    result = stack.up()
    # stack, one, two, b and the twenty
    assert summary(result) == {"replaced": 1, "unchanged": 24}, output_of(result)[-3000:]
    moved = stack.outputs()
    assert moved["a_id"] != out["a_id"] and moved["b_id"] == out["b_id"]
    assert alaya_task_ids(emulator.url) == sorted(twenty), "the old account keeps nothing of `a`"
    assert alaya_task_ids(second_account.url) == sorted([moved["a_id"], out["b_id"]])
    [a] = [r for r in managed(stack, "mltrain:alaya:TrainingJob") if r["urn"].endswith("::a")]
    assert a["outputs"]["__mltrain_account"] == {"alaya_endpoint": second_account.url}

    stack.destroy("--parallel", "32")
    assert alaya_task_ids(emulator.url) == [] and alaya_task_ids(second_account.url) == []
