"""What the plugin gets from the engine and the dynamic host does not give: customTimeouts as the
operation's deadline, concurrent waits bounded only by --parallel, explicit providers (two accounts)
and a move between them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from plugin_support import RAW, alaya_job, declare, managed, on_path, output_of, tasks

from pulumi_mltrain.emulator import EmulatorServer
from pulumi_mltrain.emulator import defaults as d
from support.pulumi_cli import Stack, change_counts
from support.stacks import alaya_task_ids

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def test_custom_timeouts_are_the_create_and_delete_deadlines(emulator: Any,
                                                             alaya_plugin_stack: Callable[..., Stack]) -> None:
    """A 4 s customTimeouts create cannot see the task run (it needs 60 s): the create fails within the
    forwarded deadline (not the 20-minute default) and keeps the task, recorded in the state as
    partially created. A destroy of a second such resource removes its task; the next up takes the
    first one over. A 3 s customTimeouts delete cannot see that task gone (the platform keeps it
    DELETING for 60 s): destroy fails within the forwarded deadline and keeps the job in the state
    (nothing is dropped while the platform still shows it); the next destroy, once the platform is
    done, removes it."""
    emulator.admin.set_settings(task_state_delay=60)
    job = {**alaya_job(wait_for="running"), "customTimeouts": {"create": "4s", "delete": "3s"}}
    abandoned = {**alaya_job("abandoned", wait_for="running"), "customTimeouts": {"create": "3s"}}
    stack = alaya_plugin_stack([job, abandoned])
    result = stack.up(check=False)
    output = output_of(result)
    assert result.returncode != 0
    assert "raise the timeout with customTimeouts" in output and "was NOT deleted" in output, output[-3000:]
    assert "recorded in the state as partially created" in output
    assert "Traceback" not in output
    partial = {r["urn"].rsplit("::", 1)[-1]: r for r in stack.resources("mltrain:alaya:TrainingJob")}
    assert sorted(t["id"] for t in tasks(emulator)) == sorted(r["id"] for r in partial.values())
    assert all(r.get("initErrors") for r in partial.values()), partial

    # A partially created resource is destroyed like any other: its task goes, the state forgets it.
    stack.destroy("--target", partial["abandoned"]["urn"])
    assert [t["id"] for t in tasks(emulator)] == [partial["job"]["id"]]
    assert [r["id"] for r in stack.resources("mltrain:alaya:TrainingJob")] == [partial["job"]["id"]]

    declare(stack, [job])
    emulator.admin.set_settings(task_state_delay=0.2)
    emulator.admin.advance(60)
    stack.up()
    task_id = partial["job"]["id"]
    assert [t["id"] for t in tasks(emulator)] == [task_id] == [stack.outputs()["job_id"]], "taken over, no orphan"
    [done] = stack.resources("mltrain:alaya:TrainingJob")
    assert not done.get("initErrors") and "__mltrain_partial" not in done["outputs"], done
    assert done["outputs"].get("adopt_id") is None, "the take-over is not written into the inputs"
    stack.preview("--expect-no-changes")

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


def test_twenty_waiting_creates_run_at_once(emulator: Any, alaya_plugin_stack: Callable[..., Stack]) -> None:
    """Each create waits until its task runs (8 s after it is made): all 20 tasks are made before the
    first one runs, so the 20 waits overlapped in one plugin process."""
    emulator.admin.set_settings(task_state_delay=8, subscription_delay=0.2)
    stack = alaya_plugin_stack([alaya_job(f"job{i}", wait_for="running") for i in range(20)])
    stack.up("--parallel", "32")
    made = tasks(emulator)
    assert len(made) == 20 and all(t["status"] == "RUNNING" for t in made)
    created, started = max(t["createdTime"] for t in made), min(t["startTime"] for t in made)
    assert created < started, f"the last task was made at {created}, after the first ran at {started}"
    stack.destroy("--parallel", "32")
    assert tasks(emulator) == []


@pytest.fixture
def second_account() -> Iterator[EmulatorServer]:
    with EmulatorServer() as server:
        yield server


def test_two_explicit_providers_and_a_move(emulator: Any, second_account: EmulatorServer, tmp_path: Path) -> None:
    settings = {"alayaApiKey": d.DEFAULT_ALAYA_API_KEY, "requestTimeout": 5, "maxRetries": 3, "ambiguityGrace": 5}
    providers = {"one": {"alayaEndpoint": emulator.url, **settings},
                 "two": {"alayaEndpoint": second_account.url, **settings}}
    jobs = {"a": "one", "b": "two"}

    def declared() -> list[dict[str, Any]]:
        return [{**alaya_job(name), "provider": account} for name, account in jobs.items()]

    stack = on_path(Stack.from_project(RAW, tmp_path))
    declare(stack, declared(), providers=providers)
    stack.up()
    out = stack.outputs()
    assert alaya_task_ids(emulator.url) == [out["a_id"]] and alaya_task_ids(second_account.url) == [out["b_id"]]
    assert d.DEFAULT_ALAYA_API_KEY not in json.dumps(stack.export()), "provider credentials stay secret"

    # `a` moves to the second account: a replace (the account identity in its state changed); nothing
    # else changes (the providers and `b` are as the up left them).
    jobs["a"] = "two"
    stack.set_config("resources", json.dumps(declared()))
    preview = stack.preview_json()
    ops = {s["urn"].rsplit("::", 1)[-1]: s["op"] for s in preview["steps"]}
    assert ops.get("a") in ("replace", "delete-replaced", "create-replacement"), ops
    assert change_counts(preview) == {"replace": 1, "same": 4}, preview["changeSummary"]  # stack, one, two, b
    stack.up()
    moved = stack.outputs()["a_id"]
    assert alaya_task_ids(emulator.url) == [], "the old account keeps nothing"
    assert alaya_task_ids(second_account.url) == sorted([moved, out["b_id"]])
    [a] = [r for r in managed(stack, "mltrain:alaya:TrainingJob") if r["urn"].endswith("::a")]
    assert a["outputs"]["__mltrain_account"] == {"alaya_endpoint": second_account.url}

    stack.destroy()
    assert alaya_task_ids(emulator.url) == [] and alaya_task_ids(second_account.url) == []
