"""Record after wait (lifecycle/record.py, through the handler): an ID is recorded only when its job
reached what `wait_for` asks for; a wait that runs out of time records the job as unfinished, as last
seen, and the next `pulumi up` goes on waiting for the same job (no second create)."""

from __future__ import annotations

import time
from collections import deque

import pytest
from fake import FAILED, QUEUED, RUNNING, SUCCEEDED, Cloud, FakeHandler, checked, declared, stored

from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.ownership import ATTEMPT_KEY, FAILED_KEY, UNFINISHED_KEY


@pytest.mark.parametrize(("wait_for", "run", "recorded"), [
    ("running", (QUEUED, QUEUED, RUNNING), RUNNING),
    ("completed", (QUEUED, RUNNING, RUNNING, SUCCEEDED), SUCCEEDED),
])
def test_the_id_is_recorded_once_the_job_reaches_wait_for(cloud: Cloud, jobs: FakeHandler, wait_for: str,
                                                          run: tuple[str, ...], recorded: str) -> None:
    cloud.run = run
    created = jobs.create(checked(jobs, declared(wait_for=wait_for)))
    assert created.problem is None and created.outputs["status"] == recorded, created.outputs
    assert cloud.made("get") == [created.id] * len(run), "read until it got there, and no further"
    assert created.outputs["job_id"] == created.id and ATTEMPT_KEY not in created.outputs


def test_wait_for_created_records_the_job_as_its_first_read_shows_it(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.run = (QUEUED, RUNNING)
    created = jobs.create(checked(jobs, declared(wait_for="created")))
    assert created.problem is None and created.outputs["status"] == QUEUED and cloud.made("get") == [created.id]


def test_a_wait_out_of_time_is_recorded_unfinished_and_the_next_up_waits_on(cloud: Cloud,
                                                                            jobs: FakeHandler) -> None:
    cloud.run = (QUEUED,)
    props = checked(jobs, declared(timeouts={"create": 0.02}))
    began = time.monotonic()
    created = jobs.create(props)
    assert time.monotonic() - began < 5.0, "the create's 0.02 s deadline ends the wait (a QUEUED job never ends it)"
    text = created.unfinished
    assert text is not None and created.failed is None, created.outputs
    assert text.startswith(f"TrainingJob 'train': job 'train' ({created.id}) was still QUEUED after 0s"), text
    assert (f"Job 'train' ({created.id}) was left QUEUED and is recorded as unfinished: the next `pulumi up` "
            "goes on waiting for it to be running (no second create), and "
            "`pulumi destroy` removes it from the stack and keeps its job as a record (keep_runs)") in text
    assert created.outputs["status"] == QUEUED, "as the wait last saw it"
    # The one mark a dynamic program fails the step on carries the same error; it is no held failure.
    assert created.outputs[FAILED_KEY] == created.outputs[UNFINISHED_KEY] == text

    state = stored(props, created.outputs)
    news = checked(jobs, declared(timeouts={"create": 10}), olds=props)  # the next up, with more time
    diff = jobs.diff(state, news, created.id)
    assert UNFINISHED_KEY in diff.changed and not diff.replaces, "an update: the wait goes on"
    assert FAILED_KEY not in diff.changed, "not a held failure's replace"
    cloud.jobs[created.id].ahead = deque([QUEUED, RUNNING])
    resumed = jobs.update(created.id, state, news)
    assert resumed.problem is None and not resumed.outputs.get(UNFINISHED_KEY), resumed.outputs
    assert not resumed.outputs.get(FAILED_KEY), "the wait's error goes with it"
    assert resumed.outputs["status"] == RUNNING
    assert cloud.made("submit") == ["train"] and cloud.ids() == [created.id], "no second create"


def test_a_resumed_wait_that_finds_the_run_failed_holds_it(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.run = (QUEUED,)
    props = checked(jobs, declared(timeouts={"create": 0.02}))
    created = jobs.create(props)
    assert created.unfinished
    cloud.jobs[created.id].ahead = deque([FAILED])
    cloud.jobs[created.id].reason = "exit code 137"
    resumed = jobs.update(created.id, stored(props, created.outputs), props)
    held = resumed.failed
    assert held is not None and resumed.unfinished is None, resumed.outputs
    assert f"job 'train' ({created.id}) ended FAILED before it was running: exit code 137" in held, held
    assert cloud.ids() == [created.id] and cloud.state(created.id) == FAILED, "kept, as the run's record"
    assert cloud.made("submit") == ["train"]


def test_a_job_that_disappears_while_waited_for_records_nothing(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.run = (QUEUED, "(gone)")
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared()))
    text = str(failed.value)
    assert "TrainingJob 'train': job 'train' (j-1) disappeared while waiting for it to be running" in text, text
    assert cloud.ids() == []
