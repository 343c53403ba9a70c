"""The engine's Cancel (cancel.py) during a create or a delete: every wait ends at once, whatever its
backoff; a create's wait records its job as unfinished (the next `pulumi up` goes on waiting for it, no
second create); a resolve that is cancelled cleans nothing up (the next create removes the job by its
mark); a cancelled delete keeps the resource, and the next delete finishes. The fake platform delivers
the Cancel while it answers a given call, so no thread is needed."""

from __future__ import annotations

import re
import time
from collections import deque

import pytest
from fake import MINE, QUEUED, RUNNING, Cloud, FakeHandler, checked, declared, handler_on, stored

from pulumi_mltrain import cancel
from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.ownership import UNFINISHED_KEY
from pulumi_mltrain.waiter import Backoff

# Polls five seconds apart: a wait that ended within four did not sleep through its pause (the second
# left is a loaded machine's, not the cancel's).
SLOW = Backoff(first=5.0, maximum=5.0)


def test_a_cancel_ends_the_wait_at_once_and_records_the_job_unfinished(cloud: Cloud) -> None:
    jobs = handler_on(cloud, poll=SLOW)
    cloud.run = (QUEUED,)
    cloud.cancel_at = ("get", 1)  # the engine cancels while the wait's first read is answered
    props = checked(jobs, declared(timeouts={"create": 5}))
    began = time.monotonic()
    created = jobs.create(props)
    assert time.monotonic() - began < 4.0, "the pause of five seconds ended with the cancel"
    # The seconds are the wait's own (0 unless the machine stalled): the time bound above is the check.
    said = re.sub(r"\(still QUEUED after \d+s\)", "(still QUEUED after Ns)", str(created.unfinished))
    assert said == (
        f"TrainingJob 'train': the update was cancelled while waiting for job 'train' ({created.id}) (still QUEUED "
        f"after Ns). Job 'train' ({created.id}) was left QUEUED and is recorded as unfinished: the next `pulumi up` "
        "goes on waiting for it to be running (no second create), and "
        "`pulumi destroy` removes it from the stack and keeps its job as a record (keep_runs)"), created.outputs
    assert created.outputs["status"] == QUEUED and cloud.made("get") == [created.id], "no poll after the cancel"

    cancel.reset()  # the next `pulumi up`: a new provider process
    state = stored(props, created.outputs)
    diff = jobs.diff(state, checked(jobs, declared(timeouts={"create": 5}), olds=props), created.id)
    assert UNFINISHED_KEY in diff.changed and not diff.replaces
    cloud.jobs[created.id].ahead = deque([RUNNING])
    resumed = handler_on(cloud).update(created.id, state, props)
    assert resumed.problem is None and resumed.outputs["status"] == RUNNING
    assert cloud.made("submit") == ["train"] and cloud.ids() == [created.id], "no second create"


def test_a_cancel_before_the_first_look_records_the_job_after_one_read(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.run = (QUEUED,)
    cloud.cancel_at = ("submit", 1)  # the engine cancels while the create is answered
    created = jobs.create(checked(jobs, declared()))
    text = created.unfinished
    assert text is not None and "the update was cancelled while waiting for job 'train' (j-1) (not looked at yet" \
        in text and "was left QUEUED and is recorded as unfinished" in text, text
    assert cloud.made("get") == [created.id] and cloud.ids() == [created.id]


def test_a_cancelled_resolve_cleans_nothing_up_and_the_next_create_removes_the_job(cloud: Cloud,
                                                                                   jobs: FakeHandler) -> None:
    """Cleaning up would hold the cancelled update: the job the request made carries this resource's mark,
    and the next create deletes it before it makes its own."""
    cloud.tokens = 10**9
    cloud.cancel_at = ("result", 2)
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared()))
    assert str(failed.value) == ("TrainingJob 'train': the update was cancelled while waiting for request req-2 of "
                                 "job 'train' (still PROCESSING after 0s)"), str(failed.value)
    assert cloud.made("stop") == cloud.made("delete") == [] and cloud.jobs["j-1"].mark == MINE

    cancel.reset()
    cloud.tokens = None
    created = jobs.create(checked(jobs, declared()))
    assert created.problem is None and cloud.ids() == [created.id] and created.id != "j-1"


def test_a_cancelled_delete_keeps_the_resource_and_the_next_delete_finishes(cloud: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared())
    created = jobs.create(props)
    state = stored(props, created.outputs)
    cloud.deleting_reads = 10**6
    cloud.cancel_at = ("get", cloud.counts["get"] + 4)
    with pytest.raises(MltrainError, match=rf"the update was cancelled while waiting for deleting job {created.id}"):
        jobs.delete(created.id, state)
    assert cloud.ids() == [created.id], "the engine keeps a resource whose delete failed"
    cancel.reset()
    cloud.deleting_reads = 1
    jobs.delete(created.id, state)
    assert cloud.ids() == []


def test_a_cancel_during_the_look_for_a_lost_create_sends_nothing_more(cloud: Cloud) -> None:
    """The answer to the create is lost and the listing does not show the job yet when the engine cancels:
    the create is not sent again (a second job that nothing would record), and the next `pulumi up`
    deletes the job the first request made before it makes its own."""
    jobs = handler_on(cloud)
    cloud.answers.append("lagging")
    cloud.lag_looks = 1
    cloud.cancel_at = ("list", 2)  # the first listing is the create's look for its own; the second, the look
    props = checked(jobs, declared())
    with pytest.raises(MltrainError) as failed:
        jobs.create(props)
    assert "was not sent again" in str(failed.value), failed.value
    assert len(cloud.made("submit")) == 1 and len(cloud.ids()) == 1, cloud.calls
    first = cloud.ids()[0]

    cancel.reset()  # the next `pulumi up`: a new provider process
    created = jobs.create(props)
    assert created.problem is None and cloud.ids() == [created.id] and created.id != first
    assert first in cloud.made("delete")
