"""Roll-back (lifecycle/rollback.py and create.py's clean-up): a create that fails after the platform
accepted it removes what it made, so that the platform and the state agree; when that removal fails
too, the error says so and the next `pulumi up` removes the job before it makes its own."""

from __future__ import annotations

import pytest
from fake import MINE, RUNNING, Cloud, FakeHandler, checked, declared

from pulumi_mltrain.errors import MltrainError


def test_a_job_whose_owner_mark_cannot_be_written_is_deleted(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.mark_in_create = False  # marked by a call of its own after the create (ModelArts' tags)
    cloud.mark_fails = True
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared()))
    text = str(failed.value)
    assert text.startswith("TrainingJob 'train': job 'train' (j-1) was created, but writing its owner mark "
                           "failed: Fake Cloud rejected the request (403 Forbidden)"), text
    assert text.endswith("It was deleted so that nothing is left behind; fix the cause and run `pulumi up` again")
    assert cloud.ids() == [] and set(cloud.made("delete")) == {"j-1"}


def test_a_failed_roll_back_says_so_and_the_next_up_removes_the_job(cloud: Cloud, jobs: FakeHandler) -> None:
    """Under the name the provider chose (the stack's identity and the URN), an unmarked job is this
    resource's: the next create finds it and deletes it before it makes its own."""
    cloud.mark_in_create = False
    cloud.mark_fails = cloud.delete_fails = True
    props = checked(jobs, declared(name=None))
    assert props["name"] == MINE.default_name()
    with pytest.raises(MltrainError) as failed:
        jobs.create(props)
    text = str(failed.value)
    assert "was created, but writing its owner mark failed" in text, text
    assert ("Deleting it failed too (Fake Cloud rejected the request (500 Internal Server Error) [FC.0500]: internal "
            "error (DELETE /jobs/j-1)); delete job j-1 in Fake Cloud: it carries no owner mark, so the next `pulumi "
            "up` deletes it only under a name the provider chose, and otherwise stops at its name until it is "
            "gone") in text, text
    assert cloud.ids() == ["j-1"], "still there: the error says so"

    cloud.mark_fails = cloud.delete_fails = False
    created = jobs.create(props)
    assert created.problem is None and cloud.ids() == [created.id] and created.id != "j-1"
    assert cloud.jobs[created.id].mark == MINE


def test_a_failed_roll_back_under_a_chosen_name_stops_the_next_up_as_it_said(cloud: Cloud, jobs: FakeHandler) -> None:
    """Under a name the user chose, an unmarked job proves nothing: the next create stops at it (as the
    failed roll-back said) rather than take it over or delete it, and makes no second job."""
    cloud.mark_in_create = False
    cloud.mark_fails = cloud.delete_fails = True
    props = checked(jobs, declared())
    with pytest.raises(MltrainError) as failed:
        jobs.create(props)
    assert "otherwise stops at its name until it is gone" in str(failed.value), failed.value
    cloud.mark_fails = cloud.delete_fails = False
    with pytest.raises(MltrainError) as refused:
        jobs.create(props)
    assert "j-1" in str(refused.value) and cloud.ids() == ["j-1"], refused.value


def test_a_pending_create_is_recorded_once_its_token_resolves(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.tokens = 3
    created = jobs.create(checked(jobs, declared()))
    assert created.problem is None and cloud.ids() == [created.id] and len(cloud.made("result")) == 4
    assert created.outputs["status"] == RUNNING


def test_a_failed_resolve_removes_the_job_the_create_made(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.tokens, cloud.token_fails = 2, True
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared()))
    text = str(failed.value)
    assert text == ("TrainingJob 'train': Fake Cloud could not create the job (request req-2 ended FAILED). The job "
                    "the request had created (j-1) was deleted, so nothing is left behind"), text
    assert cloud.ids() == []


def test_a_failed_resolve_that_made_nothing_says_what_the_next_up_does(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.tokens, cloud.token_fails, cloud.token_makes_job = 1, True, False
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared()))
    assert str(failed.value).endswith(
        "no job was created yet; if one named 'train' appears later, the next `pulumi up` deletes it (it carries "
        "this resource's mark) before it makes its own"), str(failed.value)
    assert cloud.ids() == [] and cloud.made("delete") == []


def test_the_clean_up_has_a_budget_of_its_own_after_the_create_ran_out(cloud: Cloud, jobs: FakeHandler) -> None:
    """The token never resolves within the create's deadline: the job it made is still removed, under
    the delete timeout's budget (the create's has run out)."""
    cloud.tokens = 10**9
    cloud.stopping_reads = 3
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared(timeouts={"create": 0.02})))
    text = str(failed.value)
    assert "request req-2 of job 'train' was still PROCESSING after 0s" in text, text
    assert "The job the request had created (j-1) was deleted, so nothing is left behind" in text, text
    assert cloud.ids() == []


def test_the_roll_back_has_a_budget_of_its_own_after_the_create_ran_out(cloud: Cloud, jobs: FakeHandler) -> None:
    """The mark's refusal comes after the create's deadline: the job is still stopped, waited for and
    deleted, under the delete timeout's budget."""
    cloud.mark_in_create = False
    cloud.mark_fails = True
    cloud.slow = {"tag": 0.03}
    cloud.stopping_reads = 3
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared(timeouts={"create": 0.02})))
    assert "It was deleted so that nothing is left behind" in str(failed.value), str(failed.value)
    assert cloud.ids() == []
