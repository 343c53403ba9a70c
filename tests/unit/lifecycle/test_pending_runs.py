"""`max_pending_minutes` (pending.py through record.py): a job still pending past the limit while the
create waits fails, and its run is held: stopped and kept (by default) or deleted, with the time pending
and the platform's reason. The limit counts from the job's create time as the platform reports it (no
test waits for it: the platform dates the job in the past), and no longer applies once the job has run.
"""

from __future__ import annotations

import pytest
from fake import FAILED, MINE, QUEUED, RUNNING, STOPPED, Cloud, FakeHandler, checked, declared, stored

from pulumi_mltrain.ownership import FAILED_KEY, UNFINISHED_KEY

# A bounded create: a test that went wrong ends in a second instead of waiting out the default.
BOUNDED = {"create": 1}


@pytest.fixture
def queued(cloud: Cloud) -> Cloud:
    """Jobs stay queued, and the platform dates their create two minutes back."""
    cloud.run = (QUEUED,)
    cloud.queued_since = 120.0
    cloud.reason = "no free GPUs"
    return cloud


def test_a_job_pending_past_the_limit_is_stopped_and_kept_as_the_record(queued: Cloud, jobs: FakeHandler) -> None:
    created = jobs.create(checked(jobs, declared(max_pending_minutes=1, timeouts=BOUNDED)))
    held = created.failed
    assert held is not None and held.startswith(
        f"TrainingJob 'train': job 'train' ({created.id}) was still QUEUED after 2m pending (since its create), past "
        f"max_pending_minutes=1 (1m): no free GPUs. It was stopped. Run {created.id} (attempt 1 of 1) is held: its "
        "job stays on the platform, ended, as the run's record (on_failure=\"keep\")"), held
    assert queued.ids() == [created.id] and queued.state(created.id) == STOPPED, "it never starts, holds no GPU"
    assert created.outputs["status"] == STOPPED
    assert created.outputs["reason"] == ("still QUEUED after 2m pending (since its create), past "
                                        "max_pending_minutes=1 (1m): no free GPUs"), created.outputs
    assert queued.made("stop") == [created.id]


def test_a_job_pending_past_the_limit_is_deleted_with_on_failure_delete(queued: Cloud, jobs: FakeHandler) -> None:
    created = jobs.create(checked(jobs, declared(max_pending_minutes=1, on_failure="delete", timeouts=BOUNDED)))
    assert created.failed is not None and "past max_pending_minutes=1 (1m): no free GPUs" in created.failed
    assert 'its job was deleted (on_failure="delete")' in created.failed, created.failed
    assert queued.ids() == []


def test_the_limit_counts_from_the_jobs_create_time(queued: Cloud, jobs: FakeHandler) -> None:
    """A job recorded unfinished, queued: the next `up` fails it at its first look, two minutes having
    passed since the platform created it, not since this wait began."""
    job = queued.put("train", MINE)
    props = checked(jobs, declared(max_pending_minutes=1, timeouts=BOUNDED))
    unfinished = {**stored(props, {"job_id": job.id, "status": QUEUED}), UNFINISHED_KEY: "cancelled while it waited"}
    resumed = jobs.update(job.id, unfinished, props)
    assert resumed.failed is not None and "was still QUEUED after 2m pending" in resumed.failed, resumed.outputs
    assert queued.made("get")[:2] == [job.id, job.id], "accepted (one read), then judged at the first look"
    assert queued.state(job.id) == STOPPED


def test_a_job_that_starts_in_time_is_not_affected(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.run = (QUEUED, QUEUED, RUNNING)
    created = jobs.create(checked(jobs, declared(max_pending_minutes=1, timeouts=BOUNDED)))
    assert created.problem is None and created.outputs["status"] == RUNNING and not created.outputs.get("reason")


def test_a_job_that_has_run_is_not_failed_when_its_retry_queues_it(queued: Cloud, jobs: FakeHandler) -> None:
    """Queued again by the platform's own retries after the wait saw it run: the limit is over for it
    (though the platform's answers give no start time)."""
    queued.reports_start = False
    queued.run = (RUNNING, QUEUED, QUEUED, FAILED)
    queued.reason = "exit code 1"
    created = jobs.create(checked(jobs, declared(wait_for="completed", max_pending_minutes=1, timeouts=BOUNDED)))
    assert created.failed is not None and "ended FAILED before it was completed: exit code 1" in created.failed
    assert "pending" not in created.failed, created.failed


def test_a_job_the_platform_says_has_run_is_not_failed_when_queued(queued: Cloud, jobs: FakeHandler) -> None:
    """This wait never saw it run (it resumes an unfinished create), but the platform's answer says it
    started before: queued again by a retry, it is not pending."""
    job = queued.put("train", MINE, states=(QUEUED, QUEUED, QUEUED, RUNNING))
    job.started = True
    props = checked(jobs, declared(max_pending_minutes=1, timeouts=BOUNDED))
    unfinished = {**stored(props, {"job_id": job.id, "status": QUEUED}), UNFINISHED_KEY: "cancelled while it waited"}
    resumed = jobs.update(job.id, unfinished, props)
    assert resumed.problem is None and resumed.outputs["status"] == RUNNING, resumed.outputs
    assert FAILED_KEY not in resumed.outputs
