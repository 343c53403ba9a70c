"""Removal (lifecycle/removal.py, through the handler's delete and read): a delete stops the job, waits
until a delete is accepted, deletes it and returns only once the platform answers its own not-found; a
not-found before any delete was accepted is believed only when a listing agrees."""

from __future__ import annotations

import pytest
from fake import DELETING, FAILED, Cloud, FakeHandler, checked, declared, stored

from pulumi_mltrain.errors import MltrainError


def created(cloud: Cloud, jobs: FakeHandler) -> tuple[str, dict[str, object]]:
    props = checked(jobs, declared())
    made = jobs.create(props)
    cloud.calls.clear()
    return made.id, stored(props, made.outputs)


def test_a_delete_returns_only_once_the_job_is_gone(cloud: Cloud, jobs: FakeHandler) -> None:
    job_id, state = created(cloud, jobs)
    cloud.stopping_reads, cloud.deleting_reads = 2, 3
    jobs.delete(job_id, state)
    assert cloud.ids() == [], "not merely DELETING: gone"
    calls = [call for call, _ in cloud.calls]
    # stop; the delete refused while it stops; read until it has stopped; delete; read until not found
    assert calls == ["stop", "delete", "get", "get", "get", "delete", "get", "get", "get", "get"], calls


def test_a_job_that_has_ended_takes_three_calls(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.run = (FAILED,)
    job_id, state = created(cloud, jobs)
    jobs.delete(job_id, state)
    assert cloud.calls == [("stop", job_id), ("delete", job_id), ("get", job_id)] and cloud.ids() == []


def test_a_delete_out_of_time_keeps_the_job_and_the_next_one_finishes(cloud: Cloud, jobs: FakeHandler) -> None:
    """The platform is slow to delete (the job shows DELETING, in its listing too): the delete fails at
    its deadline, the engine keeps the resource, and the next delete waits for the job to go."""
    job_id, state = created(cloud, jobs)
    cloud.deleting_reads = 10**6
    with pytest.raises(MltrainError, match=rf"deleting job {job_id} was still DELETING after 0s"):
        jobs.delete(job_id, {**state, "timeouts": {"delete": 0.02}})
    assert cloud.state(job_id) == DELETING and jobs.platform(state).listed(job_id, "train")
    cloud.deleting_reads = 2
    jobs.delete(job_id, state)
    assert cloud.ids() == []


def test_a_not_found_that_the_listing_contradicts_removes_nothing(cloud: Cloud, jobs: FakeHandler) -> None:
    """The job's own reads say not found (a replica behind, an endpoint of another region) while the
    listing still shows it: neither a destroy nor a refresh believes it gone."""
    job_id, state = created(cloud, jobs)
    cloud.not_found.add(job_id)
    said = (f"the platform answered 'not found' for job {job_id} (not found before the platform accepted its "
            "delete), yet still lists it; nothing was removed from the state or reported deleted")
    with pytest.raises(MltrainError) as failed:
        jobs.delete(job_id, state)
    assert str(failed.value).startswith(f"TrainingJob 'train': {said}"), str(failed.value)
    with pytest.raises(MltrainError, match=f"the platform answered 'not found' for job {job_id} .*yet still lists"):
        jobs.read(job_id, state)
    assert cloud.ids() == [job_id] and cloud.made("delete") == []


def test_a_not_found_that_the_listing_agrees_with_is_gone(cloud: Cloud, jobs: FakeHandler) -> None:
    job_id, state = created(cloud, jobs)
    del cloud.jobs[job_id]  # deleted by hand
    assert jobs.read(job_id, state) is None, "a refresh drops it"
    jobs.delete(job_id, state)
    assert cloud.made("list") == ["train", "train"], "each answer was checked against the listing"

