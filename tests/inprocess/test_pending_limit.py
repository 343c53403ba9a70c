"""`max_pending_minutes` on the training jobs of both platforms, in the provider against the emulator:
a job that stays queued past the limit while create waits fails with the time it was pending and the
platform's reason, and its run is held: the job is stopped and kept (by default) or deleted
(`on_failure="delete"`), and the failure recorded; the pending
period counts from the job's own create time, so a resumed wait counts from the real start; a job that
starts in time, or has already run, is not affected; a wait_for that does not wait is a preview error.

The emulator keeps a job queued: Alaya NeW tasks stay QUEUED for `task_state_delay` (a stop is
immediate), ModelArts jobs stay Pending (secondary phase Queuing) for `modelarts_pending_seconds`.
Limits are fractions of a minute (the field allows them), so each wait lasts a few seconds."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.ownership import FAILED_KEY, UNFINISHED_KEY
from support import inprocess
from support.inprocess import AnyHandler
from support.stacks import alaya_job_args

LIMIT = 0.02  # minutes: 1.2 s
MA_JOB = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
          "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}
# Per platform: the status output, the state a queued job shows, the reason the error gives, and the
# wait_for that does not wait.
PLATFORMS = {
    "alaya": ("status", "QUEUED", "the platform gives no reason", "created"),
    "modelarts": ("phase", "Pending", "secondary phase Queuing", "accepted"),
}
STOPPED = {"alaya": "STOPPED", "modelarts": "Terminated"}


pytestmark = pytest.mark.usefixtures("quick")


@pytest.fixture
def quick(quick: EmulatorHandle) -> EmulatorHandle:
    """The shared fast settings, but a ModelArts job that has started runs for ten minutes."""
    quick.admin.set_settings(modelarts_run_seconds=600)
    return quick


def _jobs(emulator: EmulatorHandle, platform: str) -> AnyHandler:
    return inprocess.handler(f"{platform}:TrainingJob", emulator)


def _job(platform: str, **args: Any) -> dict[str, Any]:
    declared = alaya_job_args(**args) if platform == "alaya" else {**MA_JOB, **args}
    return {**inprocess.OWNER, "name": "queued", **declared}


def _keep_queued(emulator: EmulatorHandle) -> None:
    """Jobs created from now on wait for resources for a long time (QUEUED, Pending)."""
    emulator.admin.set_settings(task_state_delay=1000, modelarts_pending_seconds=1000)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_job_pending_past_the_limit_fails_and_is_deleted(emulator: EmulatorHandle, platform: str) -> None:
    _, state, reason, _ = PLATFORMS[platform]
    _keep_queued(emulator)
    jobs = _jobs(emulator, platform)
    props = inprocess.checked(jobs, _job(platform, wait_for="running", max_pending_minutes=LIMIT,
                                         on_failure="delete"))
    began = time.monotonic()
    text = str(jobs.create(props).outputs[FAILED_KEY])  # held, and the program raises it
    took = time.monotonic() - began
    assert text.startswith("TrainingJob 'queued': "), text
    assert f"was still {state} after " in text, text
    assert f"s pending (since its create), past max_pending_minutes={LIMIT:g} (1s): {reason}. " in text, text
    assert 'its job was deleted (on_failure="delete")' in text, text
    assert took >= LIMIT * 60, "not before the limit"
    assert inprocess.platform_ids(emulator, platform) == [], "terminated and deleted: nothing is left"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_job_pending_past_the_limit_is_stopped_and_kept_as_the_record(emulator: EmulatorHandle,
                                                                        platform: str) -> None:
    status, state, reason, _ = PLATFORMS[platform]
    _keep_queued(emulator)
    jobs = _jobs(emulator, platform)
    props = inprocess.checked(jobs, _job(platform, wait_for="completed", max_pending_minutes=LIMIT))
    result = jobs.create(props)
    outs = dict(result.outputs)
    failed = str(outs[FAILED_KEY])
    assert failed.startswith("TrainingJob 'queued': ") and f"was still {state} after " in failed, failed
    assert ". It was stopped. Run " in failed and 'as the run\'s record (on_failure="keep")' in failed, failed
    assert outs[status] == STOPPED[platform], "stopped: it never starts, and holds no GPU"
    assert outs["reason"].startswith(f"still {state} after ") and outs["reason"].endswith(reason), outs
    assert inprocess.platform_ids(emulator, platform) == [result.id], "kept on the platform"
    diff = jobs.diff(outs, props, result.id)
    assert not diff.changes, "the next up starts nothing"
    jobs.delete(result.id, outs)
    assert inprocess.platform_ids(emulator, platform) == []


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_resumed_wait_counts_from_the_jobs_create_time(emulator: EmulatorHandle, platform: str) -> None:
    """A cancelled run recorded the job unfinished, queued: the next `up` goes on waiting for it (the
    update resumes the create) and fails it at its first look, the limit having passed since the job
    was created, not since this wait began: the error counts at least 2 s pending against a 1.2 s limit
    (the platform's clock has moved 3 s since the create; Alaya NeW's create time and every `Date`
    header are whole seconds), where a wait that counted from its own start would fail at its first
    look past 1.2 s and say 1 s. The period is the platform's clock, as its answers' `Date` headers
    show it, against its create time: the emulator's clock moves instead of this test sleeping."""
    _, state, reason, quick_wait = PLATFORMS[platform]
    _keep_queued(emulator)
    jobs = _jobs(emulator, platform)
    first = jobs.create(inprocess.checked(jobs, _job(platform, wait_for=quick_wait)))
    emulator.admin.advance(3)
    props = inprocess.checked(jobs, _job(platform, wait_for="running", max_pending_minutes=LIMIT,
                                         on_failure="delete"))
    unfinished = {**props, **dict(first.outputs), UNFINISHED_KEY: "cancelled while it waited"}
    text = str(jobs.update(first.id, unfinished, props).outputs[FAILED_KEY])
    pending = re.search(rf"was still {state} after (\d+)s pending", text)
    assert first.id in text and pending and reason in text, text
    assert int(pending[1]) >= 2, f"counted from the wait, not from the create: {text}"
    assert inprocess.platform_ids(emulator, platform) == []


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_job_that_starts_in_time_is_not_affected(emulator: EmulatorHandle, platform: str) -> None:
    status, *_ = PLATFORMS[platform]
    jobs = _jobs(emulator, platform)
    declared = _job(platform, wait_for="running", max_pending_minutes=0.05)
    result = jobs.create(inprocess.checked(jobs, declared))
    assert result.outputs[status] in ("RUNNING", "Running"), result.outputs
    assert FAILED_KEY not in result.outputs and not result.outputs.get("reason"), result.outputs
    assert inprocess.platform_ids(emulator, platform) == [result.id]
    changed = inprocess.checked(jobs, {**declared, "max_pending_minutes": 0.5}, dict(result.outputs))
    diff = jobs.diff(dict(result.outputs), changed, result.id)
    assert diff.replaces == () and diff.changes, "local: recorded, never a replace"


def test_a_job_that_has_run_is_not_failed_when_its_retry_queues_it(emulator: EmulatorHandle) -> None:
    """Alaya NeW queues a failed task again while it has retries: it has run, so the limit is over."""
    emulator.admin.set_settings(task_state_delay=0.5, fail_task_names="^queued$")
    jobs = _jobs(emulator, "alaya")
    props = inprocess.checked(jobs, _job("alaya", wait_for="completed", max_pending_minutes=LIMIT,
                                         max_retry_count=1))
    text = str(jobs.create(props).outputs[FAILED_KEY])
    assert "ended FAILED before it was completed" in text and "pending" not in text, text


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_wait_for_that_does_not_wait_is_a_preview_error(emulator: EmulatorHandle, platform: str) -> None:
    *_, no_wait = PLATFORMS[platform]
    jobs = _jobs(emulator, platform)
    for declared in ({"wait_for": no_wait}, {}):
        refused = inprocess.failures(jobs, _job(platform, max_pending_minutes=5, **declared))
        assert [p for p, _ in refused] == ["max_pending_minutes"], refused
        assert f"wait_for='{no_wait}' does not wait" in refused[0][1], refused
    assert inprocess.failures(jobs, _job(platform, max_pending_minutes=5, wait_for="completed")) == []
    assert [p for p, _ in inprocess.failures(jobs, _job(platform, max_pending_minutes=0,
                                                        wait_for="running"))] == ["max_pending_minutes"]
