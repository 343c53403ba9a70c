"""Metric gates (record.py's `gate`, ModelArts' success_criteria): a run that reached its target is judged
by the platform's gate; a miss is a failed run, held like one (its job kept or deleted), with the values
that missed; a pass records what the gate read, which a refresh and an update keep. The fake platform's
gate is a minimum final accuracy, which its jobs report."""

from __future__ import annotations

import pytest
from fake import RUNNING, SUCCEEDED, Cloud, FakeHandler, checked, declared, stored

from pulumi_mltrain.ownership import FAILED_KEY


@pytest.fixture
def completing(cloud: Cloud) -> Cloud:
    cloud.run = (RUNNING, SUCCEEDED)
    return cloud


def test_a_run_that_passes_its_gate_records_what_it_read(completing: Cloud, jobs: FakeHandler) -> None:
    completing.accuracy = 0.93
    props = checked(jobs, declared(wait_for="completed", min_accuracy=0.9))
    created = jobs.create(props)
    assert created.problem is None and created.outputs["status"] == SUCCEEDED
    assert created.outputs["accuracy"] == 0.93 and created.outputs["gate_met"] is True, created.outputs
    state = stored(props, created.outputs)
    read = jobs.read(created.id, state)
    assert read is not None and read.outputs["accuracy"] == 0.93 and read.outputs["gate_met"] is True, \
        "recorded once: a refresh keeps it"
    stricter = checked(jobs, declared(wait_for="completed", min_accuracy=0.99), olds=props)
    diff = jobs.diff(state, stricter, created.id)
    assert diff.changed == ("min_accuracy",) and not diff.replaces, "a finished run is not judged again"
    updated = jobs.update(created.id, state, stricter)
    assert updated.problem is None and updated.outputs["gate_met"] is True


def test_a_run_that_misses_its_gate_is_held_with_the_value_it_missed(completing: Cloud, jobs: FakeHandler) -> None:
    completing.accuracy = 0.5
    props = checked(jobs, declared(wait_for="completed", min_accuracy=0.9))
    created = jobs.create(props)
    held = created.failed
    assert held is not None and held.startswith(
        f"TrainingJob 'train': job 'train' ({created.id}) SUCCEEDED but missed its gate: accuracy was 0.5, the gate "
        f"is >= 0.9. Run {created.id} (attempt 1 of 1) is held: its job stays on the platform"), held
    assert created.outputs["gate_met"] is False and created.outputs["accuracy"] == 0.5, created.outputs
    assert created.outputs["reason"] == "SUCCEEDED but missed its gate: accuracy was 0.5, the gate is >= 0.9"
    assert completing.ids() == [created.id] and created.outputs["status"] == SUCCEEDED
    again = checked(jobs, declared(wait_for="completed", min_accuracy=0.9), olds=props)
    assert not jobs.diff(stored(props, created.outputs), again, created.id).changes, "the next up starts nothing"


def test_a_miss_with_on_failure_delete_deletes_the_job(completing: Cloud, jobs: FakeHandler) -> None:
    completing.accuracy = 0.5
    created = jobs.create(checked(jobs, declared(wait_for="completed", min_accuracy=0.9, on_failure="delete")))
    assert created.failed is not None and "accuracy was 0.5, the gate is >= 0.9" in created.failed
    assert 'its job was deleted (on_failure="delete")' in created.failed and completing.ids() == []


def test_a_run_that_reports_no_value_misses_its_gate(completing: Cloud, jobs: FakeHandler) -> None:
    created = jobs.create(checked(jobs, declared(wait_for="completed", min_accuracy=0.9)))
    assert created.failed is not None and "SUCCEEDED but reported no accuracy; the gate is >= 0.9" in created.failed
    assert created.outputs[FAILED_KEY] == created.failed and created.outputs["gate_met"] is False
