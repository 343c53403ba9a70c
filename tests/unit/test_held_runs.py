"""`mltrain-runs held` reads the held failed runs from the stacks' states, both forms, with no platform call."""

from __future__ import annotations

from pulumi_mltrain.cli import abandoned
from pulumi_mltrain.ownership import ATTEMPT_KEY, FAILED_KEY, REMOVED_KEY, UNFINISHED_KEY


def export(*resources: dict[str, object]) -> dict[str, object]:
    return {"deployment": {"resources": list(resources)}}


def test_held_runs_are_the_resources_with_a_held_failure() -> None:
    dyn = {"type": "pulumi-python:dynamic/alaya:TrainingJob", "id": "tt-1",
           "urn": "urn:pulumi:dev::infra::pulumi-python:dynamic/alaya:TrainingJob::sft",
           "outputs": {"status": "FAILED", FAILED_KEY: "TrainingJob 'sft': task tt-1 ended FAILED", ATTEMPT_KEY: 2.0}}
    plug = {"type": "mltrain:modelarts:TrainingJob", "id": "j-1",
            "urn": "urn:pulumi:dev::infra::mltrain:modelarts:TrainingJob::train",
            "outputs": {"phase": "Failed", FAILED_KEY: "TrainingJob 'train': failed", REMOVED_KEY: True}}
    fine = {"type": "mltrain:alaya:TrainingJob", "id": "tt-2",
            "urn": "urn:pulumi:dev::infra::mltrain:alaya:TrainingJob::ok",
            "outputs": {"status": "SUCCEEDED", FAILED_KEY: None}}
    waiting = {"type": "pulumi-python:dynamic/alaya:TrainingJob", "id": "tt-3",  # an unfinished wait: its error
               "urn": "urn:pulumi:dev::infra::pulumi-python:dynamic/alaya:TrainingJob::slow",  # in both marks
               "outputs": {"status": "QUEUED", FAILED_KEY: "recorded as unfinished",
                           UNFINISHED_KEY: "recorded as unfinished"}}
    record = abandoned.stack_record("infra", "dev", export(dyn, plug, fine, waiting))
    found = abandoned.held_runs(backend=abandoned.Backend([record]))
    assert [(h.stack, h.resource, h.kind, h.job_id, h.status, h.attempt, h.job_kept) for h in found] == [
        ("infra/dev", "sft", "alaya:TrainingJob", "tt-1", "FAILED", 2, True),
        ("infra/dev", "train", "modelarts:TrainingJob", "j-1", "Failed", 1, False)]
    assert found[0].failure.startswith("TrainingJob 'sft': ") and found[0].as_dict()["job_id"] == "tt-1"
