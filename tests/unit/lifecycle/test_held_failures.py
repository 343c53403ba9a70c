"""Held failures (lifecycle/record.py's hold, the handler's diff, update, read and delete): a run that
fails during the create's wait is held; its job is kept as the run's record (`on_failure="keep"`) or
deleted (`"delete"`); the failure stays in the state and fails every later update, and no `pulumi up`
starts the run again unless `mltrain:rerunFailed` names it or `max_attempts` leaves an attempt."""

from __future__ import annotations

import pytest
from fake import (
    FAILED,
    QUEUED,
    RUNNING,
    SUCCEEDED,
    URN,
    Cloud,
    FakeHandler,
    checked,
    configured,
    declared,
    handler_on,
    stored,
)

from pulumi_mltrain import runs
from pulumi_mltrain.ownership import ATTEMPT_KEY, FAILED_KEY, REMOVED_KEY

RERUN = ("no `pulumi up` starts it again while its inputs and replacement_trigger stay as they are: to run it again, "
         "`pulumi config set mltrain:rerunFailed {id}` (or MLTRAIN_RERUN_FAILED={id}, or an explicit provider's "
         f"rerunFailed) then `pulumi up`, or `pulumi up --replace '{URN}'`; "
          "`pulumi destroy` removes it from the stack and keeps its job as a record (keep_runs)")


@pytest.fixture
def failing(cloud: Cloud) -> Cloud:
    """Jobs are queued, then fail."""
    cloud.run = (QUEUED, FAILED)
    cloud.reason = "exit code 1"
    return cloud


def test_a_failed_run_is_held_and_its_job_kept_as_the_record(failing: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared(wait_for="completed"))
    created = jobs.create(props)
    held = created.failed
    assert held == (f"TrainingJob 'train': job 'train' ({created.id}) ended FAILED before it was completed: exit code "
                    f"1. Run {created.id} (attempt 1 of 1) is held: its job stays on the platform, ended, as the run's "
                    "record (on_failure=\"keep\"); " + RERUN.format(id=created.id)), held
    assert created.outputs["status"] == FAILED and ATTEMPT_KEY not in created.outputs, created.outputs
    assert failing.ids() == [created.id] and failing.state(created.id) == FAILED

    state = stored(props, created.outputs)
    again = checked(jobs, declared(wait_for="completed"), olds=props)
    assert not jobs.diff(state, again, created.id).changes, "an unchanged held failure is no change"
    read = jobs.read(created.id, state)
    assert read is not None and read.outputs[FAILED_KEY] == held and FAILED_KEY not in read.inputs
    # An update of what changes in place (a recorded field) keeps the failure: that `pulumi up` fails too.
    described = checked(jobs, declared(wait_for="completed", description="retitled"), olds=props)
    diff = jobs.diff(state, described, created.id)
    assert diff.changed == ("description",) and not diff.replaces
    assert jobs.update(created.id, state, described).failed == held
    assert failing.made("submit") == ["train"], "never started again by itself"


def test_a_failed_run_with_on_failure_delete_is_held_and_its_job_deleted(failing: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared(wait_for="completed", on_failure="delete"))
    created = jobs.create(props)
    held = created.failed
    assert held is not None and 'Run j-1 (attempt 1 of 1) is held: its job was deleted (on_failure="delete")' in held
    assert failing.ids() == [] and created.outputs[REMOVED_KEY] is True
    state = stored(props, created.outputs)
    failing.calls.clear()
    read = jobs.read(created.id, state)
    assert read is not None and read.outputs[FAILED_KEY] == held, "a refresh keeps the record"
    assert jobs.update(created.id, state, checked(jobs, declared(wait_for="completed", on_failure="delete",
                                                                 description="x"), olds=props)).failed == held
    jobs.delete(created.id, state)
    assert failing.calls == [], "nothing to read, update or delete on the platform"


def test_a_held_failure_whose_job_cannot_be_deleted_keeps_it_in_the_state(failing: Cloud, jobs: FakeHandler) -> None:
    failing.delete_fails = True
    props = checked(jobs, declared(wait_for="completed", on_failure="delete"))
    created = jobs.create(props)
    assert created.failed is not None and "Deleting its job failed (" in created.failed, created.failed
    assert "its job stays on the platform, ended, until its delete succeeds" in created.failed, created.failed
    assert "on_failure=\"keep\"" not in created.failed
    assert "`pulumi destroy` removes it from the stack and keeps its job as a record (keep_runs)" in created.failed
    assert not created.outputs.get(REMOVED_KEY) and failing.ids() == [created.id], "recorded: destroy deletes it"
    failing.delete_fails = False
    jobs.delete(created.id, stored(props, created.outputs))
    assert failing.ids() == []


def test_rerun_failed_runs_the_held_failure_again_once(failing: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared(wait_for="completed"))
    first = jobs.create(props)
    state = stored(props, first.outputs)

    asked = handler_on(failing, configured(rerunFailed=f"other, {first.id}"))
    diff = asked.diff(state, checked(asked, declared(wait_for="completed"), olds=props), first.id)
    assert diff.replaces == (FAILED_KEY,) and diff.delete_before_replace, diff
    asked.delete(first.id, state)
    failing.run = (QUEUED, RUNNING, SUCCEEDED)
    replacement = checked(asked, declared(wait_for="completed"))  # the engine's second check
    assert replacement["run_reason"] == f"{runs.NEW} run again after failed run {first.id} (mltrain:rerunFailed)"
    rerun = asked.create(replacement)
    assert rerun.problem is None and rerun.id != first.id and ATTEMPT_KEY not in rerun.outputs, rerun.outputs
    assert rerun.outputs["run_reason"] == replacement["run_reason"] and failing.ids() == [rerun.id]
    again = checked(asked, declared(wait_for="completed"), olds=replacement)
    assert not asked.diff(stored(replacement, rerun.outputs), again, rerun.id).changes, \
        "the setting names the failed run only: the new one is left alone"


def test_max_attempts_lets_the_next_ups_start_new_runs_until_spent(failing: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared(wait_for="completed", max_attempts=2))
    first = jobs.create(props)
    assert first.failed is not None and "(attempt 1 of 2) is held" in first.failed, first.failed
    assert "the next `pulumi up` starts attempt 2 of 2" in first.failed
    state = stored(props, first.outputs)
    assert jobs.diff(state, checked(jobs, declared(wait_for="completed", max_attempts=2), olds=props),
                     first.id).replaces == (FAILED_KEY,)
    jobs.delete(first.id, state)
    replacement = checked(jobs, declared(wait_for="completed", max_attempts=2))
    assert replacement["run_reason"] == f"{runs.NEW} attempt 2 of 2 after failed run {first.id}"
    second = jobs.create(replacement)
    assert second.failed is not None and "(attempt 2 of 2) is held" in second.failed
    assert second.outputs[ATTEMPT_KEY] == 2 and RERUN.format(id=second.id) in second.failed
    state = stored(replacement, second.outputs)
    again = checked(jobs, declared(wait_for="completed", max_attempts=2), olds=replacement)
    assert not jobs.diff(state, again, second.id).changes, "the budget is spent: the failure stays held"
    assert len(failing.made("submit")) == 2


def test_a_changed_declaration_starts_a_new_run_from_attempt_one(failing: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared(wait_for="completed", max_attempts=2))
    first = jobs.create(props)
    again = checked(jobs, declared(wait_for="completed", max_attempts=2), olds=props)
    assert jobs.diff(stored(props, first.outputs), again, first.id).replaces == (FAILED_KEY,)
    jobs.delete(first.id, stored(props, first.outputs))
    retry = checked(jobs, declared(wait_for="completed", max_attempts=2))
    assert str(retry["run_reason"]).startswith(f"{runs.NEW} attempt 2 of 2")
    second = jobs.create(retry)
    assert second.outputs[ATTEMPT_KEY] == 2 and second.failed is not None
    state = stored(retry, second.outputs)
    fixed = checked(jobs, declared(wait_for="completed", max_attempts=2, image="img:2"), olds=retry)
    assert jobs.diff(state, fixed, second.id).replaces == ("image",)
    jobs.delete(second.id, state)
    failing.run = (RUNNING, SUCCEEDED)
    third = jobs.create(checked(jobs, declared(wait_for="completed", max_attempts=2, image="img:2")))
    assert third.problem is None and ATTEMPT_KEY not in third.outputs and failing.ids() == [third.id]
    assert third.outputs["run_reason"] == "new run: changing image replaces the job"
