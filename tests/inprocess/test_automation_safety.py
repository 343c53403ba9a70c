"""Safe under automation, in the provider itself (registry -> handler against the emulator):

- the engine's Cancel ends a create's wait at once: the job is recorded unfinished, as last seen, and the
  next update goes on waiting for it, with no second create; a cancelled delete leaves the state true;
- a run that fails during the create's wait is held: its job ends and stays as the run's record (or is
  deleted), the failure is recorded, and no later diff starts the same run again unless
  `mltrain:rerunFailed` names it or `max_attempts` leaves an attempt;
- a replacement created before its old object is deleted never takes that object over.

The engine tier runs the same through `pulumi up` (tests/engine/automation)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain import cancel, runs
from pulumi_mltrain.handler import Handler
from pulumi_mltrain.ownership import ATTEMPT_KEY, FAILED_KEY, REMOVED_KEY, UNFINISHED_KEY
from support import inprocess
from support.stacks import alaya_job_args

ALAYA_CREATE = "POST /v1/subscription/training/create"
MA_CREATE = "POST /v2/{project_id}/training-jobs"
BOUNDED = {"create": 60, "update": 60, "delete": 60}
LIVE = ("QUEUED", "STARTING", "RUNNING", "Creating", "Pending", "Running")
MA_JOB = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
          "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}


@pytest.fixture(autouse=True)
def no_cancel() -> Iterator[None]:
    """The cancel is process-wide (as in a provider process): every test starts and ends without one."""
    cancel.reset()
    yield
    cancel.reset()


def calls(emulator: EmulatorHandle, endpoint: str) -> int:
    """Calls of `endpoint` so far ("METHOD /route", IDs as `*`)."""
    return sum(int(n) for key, n in emulator.admin.requests()["endpoints"].items() if route(key) == endpoint)


def route(key: str) -> str:
    method, _, path = key.partition(" ")
    return method + " " + "/".join("*" if p.startswith("{") and p != "{project_id}" else p for p in path.split("/"))


def until(found: Callable[[], bool], what: str, within: float = 20.0) -> None:
    end = time.monotonic() + within
    while not found():
        assert time.monotonic() < end, f"{what} did not happen within {within:.0f}s"
        time.sleep(0.05)


def state_of(emulator: EmulatorHandle, platform: str) -> list[str]:
    state = emulator.admin.state()
    if platform == "alaya":
        return [str(t["status"]) for t in state["alaya"]["tasks"]]
    return [str(j["status"]["phase"]) for j in state["modelarts"]["jobs"]]


def job(platform: str, **args: Any) -> tuple[str, dict[str, Any]]:
    kind = "alaya:TrainingJob" if platform == "alaya" else "modelarts:TrainingJob"
    base = alaya_job_args() if platform == "alaya" else dict(MA_JOB)
    # A minute at most for any wait: a test that went wrong ends instead of waiting out the defaults.
    return kind, {**inprocess.OWNER, "name": f"{platform}-sft", **base, "timeouts": BOUNDED, **args}


def state(handler: Handler[Any, Any, Any], props: dict[str, Any], created: Any) -> dict[str, Any]:
    """What the engine stores for a create (the dynamic form: inputs merged into outputs)."""
    return {**props, **created.outputs}


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_a_cancelled_wait_records_the_job_unfinished_and_the_next_up_waits_on(emulator: EmulatorHandle,
                                                                              platform: str) -> None:
    emulator.admin.set_settings(task_state_delay=0.1, subscription_delay=0.1, modelarts_phase_delay=0.1,
                                modelarts_run_seconds=3600)
    kind, args = job(platform, wait_for="completed")
    handler = inprocess.handler(kind, emulator)
    props = inprocess.checked(handler, args)
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(handler.create, props)
        try:
            until(lambda: state_of(emulator, platform) in (["RUNNING"], ["Running"]), "the job running")
        finally:
            cancel.signal()
        created = waiting.result(timeout=30)
    status = "status" if platform == "alaya" else "phase"
    assert created.unfinished and "recorded as unfinished" in created.unfinished, created.outputs
    assert "the next `pulumi up` goes on waiting for it to be completed (no second create)" in created.unfinished
    # As the wait last saw it: live (the platform may have moved on since that look).
    assert created.outputs[status] in LIVE and created.failed is None, created.outputs
    create = ALAYA_CREATE if platform == "alaya" else MA_CREATE
    assert calls(emulator, create) == 1 and inprocess.platform_ids(emulator, platform) == [created.id]

    stored = state(handler, props, created)
    diff = handler.diff(stored, props, created.id)
    assert diff.changed == (UNFINISHED_KEY,) and not diff.replaces, diff  # an update: the wait goes on
    cancel.reset()  # the next `pulumi up`: a new provider process
    if platform == "alaya":
        emulator.admin.set_settings(succeed_after=0.2)
    else:
        emulator.admin.advance(3600)
    resumed = handler.update(created.id, stored, props)
    assert resumed.problem is None and UNFINISHED_KEY not in {k for k, v in resumed.outputs.items() if v}
    assert resumed.outputs[status] in ("SUCCEEDED", "Completed"), resumed.outputs
    assert calls(emulator, create) == 1, "no second create"
    assert inprocess.platform_ids(emulator, platform) == [created.id]
    after = handler.diff(state(handler, props, resumed), props, created.id)
    assert not after.changes, f"the finished wait leaves nothing to do: {after}"


def test_a_cancelled_delete_fails_and_the_next_delete_finishes(emulator: EmulatorHandle) -> None:
    """The engine keeps a resource whose delete failed: the job, stopping or deleted, is deleted by the next
    `pulumi destroy`, which believes "gone" only on the platform's word."""
    emulator.admin.set_settings(task_state_delay=0.1, subscription_delay=0.1, delete_delay=3600)
    kind, args = job("alaya", wait_for="running")
    handler = inprocess.handler(kind, emulator)
    props = inprocess.checked(handler, args)
    created = handler.create(props)
    stored = state(handler, props, created)
    with ThreadPoolExecutor(1) as pool:
        deleting = pool.submit(handler.delete, created.id, stored)
        try:
            until(lambda: calls(emulator, "DELETE /v1/training/instance/*/delete") == 1, "the delete call")
        finally:
            cancel.signal()
        with pytest.raises(Exception, match="cancelled while waiting for deleting task"):
            deleting.result(timeout=30)
    cancel.reset()
    emulator.admin.set_settings(delete_delay=0.1)
    emulator.admin.advance(3600)
    handler.delete(created.id, stored)
    assert inprocess.platform_ids(emulator, "alaya") == []


@pytest.mark.parametrize(("platform", "on_failure"), [("alaya", "keep"), ("alaya", "delete"),
                                                      ("modelarts", "keep"), ("modelarts", "delete")])
def test_a_failed_run_is_held_and_never_started_again_unasked(emulator: EmulatorHandle, platform: str,
                                                              on_failure: str) -> None:
    emulator.admin.set_settings(task_state_delay=0.1, subscription_delay=0.1, fail_task_names="doomed",
                                succeed_after=0.5, modelarts_phase_delay=0.1, modelarts_run_seconds=0.3,
                                modelarts_fail_names="doomed", delete_delay=0.1)
    kind, args = job(platform, name="doomed-sft", wait_for="completed", on_failure=on_failure)
    handler = inprocess.handler(kind, emulator)
    props = inprocess.checked(handler, args)
    created = handler.create(props)
    held = created.failed
    assert held is not None and held.startswith("TrainingJob 'doomed-sft': "), created.outputs
    assert f"Run {created.id} (attempt 1 of 1) is held" in held, held
    assert f"`pulumi config set mltrain:rerunFailed {created.id}`" in held and "pulumi up --replace" in held
    status = "status" if platform == "alaya" else "phase"
    assert created.outputs[status] in ("FAILED", "Failed") and ATTEMPT_KEY not in created.outputs, created.outputs
    if on_failure == "keep":
        assert inprocess.platform_ids(emulator, platform) == [created.id], "the record stays, with its logs"
        assert state_of(emulator, platform) in (["FAILED"], ["Failed"]), "ended: it holds no GPU"
    else:
        assert inprocess.platform_ids(emulator, platform) == [] and created.outputs[REMOVED_KEY] is True

    stored = state(handler, props, created)
    again = inprocess.checked(handler, args, olds=props)
    assert not handler.diff(stored, again, created.id).changes, "an unchanged held failure is no change"
    if on_failure == "delete":  # a refresh and a destroy keep to the record: nothing to read or delete
        before = emulator.admin.requests()["total"]
        read = handler.read(created.id, stored)
        assert read is not None and read.outputs[FAILED_KEY] == held, read
        handler.delete(created.id, stored)
        assert emulator.admin.requests()["total"] == before, "no platform call"
    else:
        read = handler.read(created.id, stored)
        assert read is not None and read.outputs[FAILED_KEY] == held and read.id == created.id
        assert FAILED_KEY not in read.inputs, "the run's state is no input"

    # Asked for by its run ID (mltrain:rerunFailed): a replace, once; the new run says why.
    asked = inprocess.handler(kind, emulator, **{"mltrain:rerunFailed": f"other, {created.id}"})
    again = inprocess.checked(asked, args, olds=props)
    diff = asked.diff(stored, again, created.id)
    assert diff.replaces == (FAILED_KEY,) and diff.delete_before_replace, diff
    asked.delete(created.id, stored)
    emulator.admin.set_settings(fail_task_names="^$", modelarts_fail_names="^$")
    replacement = inprocess.checked(asked, args)  # the engine's second check, without the stored inputs
    assert replacement["run_reason"].startswith(f"{runs.NEW} run again after failed run {created.id} "
                                                "(mltrain:rerunFailed)"), replacement
    rerun = asked.create(replacement)
    assert rerun.problem is None and rerun.id != created.id and ATTEMPT_KEY not in rerun.outputs, rerun.outputs
    assert rerun.outputs["run_reason"] == replacement["run_reason"]
    assert not asked.diff(state(asked, replacement, rerun), inprocess.checked(asked, args, olds=replacement),
                          rerun.id).changes, "the setting names the failed run only: the new one is left alone"


def test_max_attempts_lets_the_next_ups_start_new_runs_until_spent(emulator: EmulatorHandle) -> None:
    emulator.admin.set_settings(task_state_delay=0.1, subscription_delay=0.1, fail_task_names="doomed",
                                delete_delay=0.1)
    kind, args = job("alaya", name="doomed-sft", wait_for="completed", max_attempts=2)
    handler = inprocess.handler(kind, emulator)
    props = inprocess.checked(handler, args)
    first = handler.create(props)
    assert first.failed and "(attempt 1 of 2) is held" in first.failed
    assert "the next `pulumi up` starts attempt 2 of 2" in first.failed, first.failed
    stored = state(handler, props, first)
    again = inprocess.checked(handler, args, olds=props)
    assert handler.diff(stored, again, first.id).replaces == (FAILED_KEY,)
    handler.delete(first.id, stored)
    replacement = inprocess.checked(handler, args)
    assert replacement["run_reason"].startswith(f"{runs.NEW} attempt 2 of 2 after failed run {first.id}")
    second = handler.create(replacement)
    assert second.failed and "(attempt 2 of 2) is held" in second.failed and second.outputs[ATTEMPT_KEY] == 2
    stored = state(handler, replacement, second)
    assert not handler.diff(stored, inprocess.checked(handler, args, olds=replacement), second.id).changes, \
        "the budget is spent: the failure stays held"
    assert calls(emulator, ALAYA_CREATE) == 2


@pytest.mark.parametrize("kind", ["alaya:TrainingJob", "modelarts:TrainingJob", "modelarts:Algorithm"])
def test_a_replacement_created_first_never_takes_over_what_it_replaces(emulator: EmulatorHandle,
                                                                       kind: str) -> None:
    """A replacement_trigger or `pulumi up --replace` of a plugin resource without deleteBeforeReplace: the
    engine creates the replacement before it deletes the old object. The create removes the old one first,
    makes its own, and the engine's delete of the old one then finds it gone."""
    emulator.admin.set_settings(task_state_delay=0.1, subscription_delay=0.1, modelarts_phase_delay=0.1,
                                delete_delay=0.1)
    platform = kind.split(":")[0]
    if kind == "modelarts:Algorithm":
        args = {**inprocess.OWNER, "name": "algo", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "timeouts": BOUNDED}
    else:
        args = job(platform)[1]
    handler = inprocess.handler(kind, emulator)
    props = inprocess.checked(handler, args)
    old = handler.create(props)
    stored = state(handler, props, old)
    inprocess.checked(handler, args, olds=props)  # the check against the state
    replacement = inprocess.checked(handler, args)  # the engine's second check, after the trigger changed
    made = handler.create(replacement)
    assert made.id != old.id and made.problem is None
    handler.delete(old.id, stored)  # the engine deletes the old object last: gone already
    assert live_ids(emulator, kind) == [made.id]
    assert handler.read(made.id, {**replacement, **made.outputs}) is not None, "the state records a live object"
    # A targeted replace (`pulumi up --replace`) creates from the check against the state.
    targeted = inprocess.checked(handler, args, olds=replacement)
    again = handler.create(targeted)
    handler.delete(made.id, {**replacement, **made.outputs})
    assert again.id not in (old.id, made.id) and live_ids(emulator, kind) == [again.id]


def live_ids(emulator: EmulatorHandle, kind: str) -> list[str]:
    if kind == "modelarts:Algorithm":
        return sorted(str(a["metadata"]["id"]) for a in emulator.admin.state()["modelarts"]["algorithms"])
    return inprocess.platform_ids(emulator, kind.split(":")[0])
