"""Take-over rules (lifecycle/takeover.py, create.py, ownership.py, the handler's adopt): a create never
takes a job over by its owner mark: it deletes this resource's own unrecorded job first (`clear_own`),
and stops at a job of the name that is not its own; a take-over goes by ID (`adopt_id`), matches the
declaration, and marks the job as ours only once it has reached `wait_for`."""

from __future__ import annotations

import pytest
from fake import FAILED, MINE, OTHER, QUEUED, RUNNING, URN, Cloud, FakeHandler, checked, declared

from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.ownership import Mark


def test_an_unrecorded_job_of_ours_is_deleted_before_the_create(cloud: Cloud, jobs: FakeHandler) -> None:
    """One a killed `pulumi up` never recorded: never taken over, even when it matches the declaration."""
    old = cloud.put("train", MINE)
    created = jobs.create(checked(jobs, declared()))
    assert created.id != old.id and cloud.ids() == [created.id]
    assert cloud.calls.index(("delete", old.id)) < cloud.calls.index(("submit", "train")), "removed first"


def test_an_unmarked_job_under_the_name_the_provider_chose_is_ours(cloud: Cloud, jobs: FakeHandler) -> None:
    """A create interrupted between its request and its mark: the name (a hash of the stack's identity
    and the URN) proves it is this resource's."""
    old = cloud.put(MINE.default_name(), None)
    created = jobs.create(checked(jobs, declared(name=None)))
    assert created.id != old.id and cloud.ids() == [created.id]


@pytest.mark.parametrize(("mark", "whose"), [
    (OTHER, f"it belongs to resource {URN} of stack identity st-other"),
    (Mark(MINE.stack, URN + "-2"), f"it belongs to another resource of this stack ({URN}-2)"),
    (None, "it carries no owner mark, so it was made outside this stack"),
])
def test_a_job_of_the_name_that_is_not_ours_stops_the_create(cloud: Cloud, jobs: FakeHandler, mark: Mark | None,
                                                             whose: str) -> None:
    theirs = cloud.put("train", mark)
    with pytest.raises(MltrainError) as refused:
        jobs.create(checked(jobs, declared()))
    text = str(refused.value)
    assert text.startswith(f"TrainingJob 'train': the job name 'train' is already taken by job {theirs.id}, and "
                           f"{whose}"), text
    assert f'set adopt_id="{theirs.id}"' in text, text
    assert cloud.made("submit") == [] and cloud.made("delete") == [] and cloud.jobs[theirs.id].mark == mark


def test_adopt_id_takes_the_job_over_once_it_reached_wait_for(cloud: Cloud, jobs: FakeHandler) -> None:
    theirs = cloud.put("train", OTHER, states=(QUEUED, QUEUED, RUNNING))
    adopted = jobs.create(checked(jobs, declared(adopt_id=theirs.id)))
    assert adopted.id == theirs.id and adopted.problem is None and adopted.outputs["status"] == RUNNING
    assert cloud.made("submit") == [] and cloud.made("delete") == [] and cloud.ids() == [theirs.id]
    assert cloud.jobs[theirs.id].mark == MINE, "marked as this resource's"
    assert cloud.calls[-1] == ("tag", theirs.id), "marked after the wait"


def test_adopt_id_refuses_a_job_that_differs_from_the_declaration(cloud: Cloud, jobs: FakeHandler) -> None:
    theirs = cloud.put("train", OTHER, image="img:2")
    with pytest.raises(MltrainError) as refused:
        jobs.create(checked(jobs, declared(adopt_id=theirs.id)))
    assert str(refused.value) == (f"TrainingJob 'train': cannot adopt job {theirs.id}: it differs from the declared "
                                  "inputs: image: declared 'img:1', platform has 'img:2'"), str(refused.value)
    assert cloud.jobs[theirs.id].mark == OTHER and cloud.made("tag") == [] and cloud.made("submit") == []


def test_an_adopted_job_that_fails_is_left_as_it_is(cloud: Cloud, jobs: FakeHandler) -> None:
    theirs = cloud.put("train", OTHER, states=(QUEUED, FAILED))
    theirs.reason = "out of memory"
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared(adopt_id=theirs.id)))
    text = str(failed.value)
    assert f"job 'train' ({theirs.id}) ended FAILED before it was running: out of memory. It was adopted, not " \
           "created by this resource, so it was not deleted and nothing was recorded" in text, text
    assert cloud.ids() == [theirs.id] and cloud.jobs[theirs.id].mark == OTHER, "not deleted, not marked"
    assert cloud.made("stop") == [] and cloud.made("delete") == [] and cloud.made("tag") == []
