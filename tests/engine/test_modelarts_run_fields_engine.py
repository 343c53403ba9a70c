"""ModelArts scheduling, notification and access fields and finished-run outputs through the engine (dynamic
form): created as Huawei writes them, refreshed with no diff, changed with their declared semantics, destroyed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from pulumi_mltrain.emulator import EmulatorHandle
from pulumi_mltrain.emulator import defaults as d
from pulumi_mltrain.modelarts import contract
from support.drift import preview_ops, state_resource
from support.pulumi_cli import Stack
from support.runs import assert_end_is_start_plus_duration, new_run_reasons, step_reasons

pytestmark = [pytest.mark.engine, pytest.mark.slow]

MA_JOB = "modelarts:TrainingJob"
REPLACE_OPS = {"replace", "create-replacement", "delete-replaced"}
TOPIC = "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts"
FIELDS: dict[str, Any] = {
    "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
    "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "flavor_id": d.FLAVOR_CPU_8U,
    "pool_id": "pool-a100", "priority": 2, "preemptible": True, "retry_count": 2,
    "required_affinity": {"affinity_type": "hyperinstance", "affinity_group_size": 2},
    "notification": {"topic_urn": TOPIC, "events": ["JobFailed", "JobPreempted"]},
    "ssh_key_pair_names": ["kp-debug"], "unconditional_retry": True, "hang_retry": True,
    "wait_for": "completed",
}


def test_new_fields_round_trip_and_change_with_their_semantics(emulator: EmulatorHandle,
                                                               modelarts_stack: Callable[..., Stack]) -> None:
    stack = modelarts_stack(jobs={"job": FIELDS})
    stack.up()
    job_id = state_resource(stack, MA_JOB)["id"]
    [job] = [j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == job_id]
    assert job["spec"]["schedule_policy"] == {"priority": 2, "preemptible": True,
                                              "required_affinity": FIELDS["required_affinity"]}
    assert job["spec"]["notification"] == FIELDS["notification"]
    assert job["endpoints"] == {"ssh": {"key_pair_names": ["kp-debug"]}}
    assert job["metadata"]["annotations"][contract.UNCONDITIONAL_RETRY_ANNOTATION] == "true"
    assert job["metadata"]["annotations"][contract.HANG_RETRY_ANNOTATION] == "true"

    stack.refresh("--yes")
    stack.preview("--expect-no-changes")
    resource = state_resource(stack, MA_JOB)
    inputs, outputs = resource["inputs"], resource["outputs"]
    for field in ("preemptible", "required_affinity", "notification", "ssh_key_pair_names", "unconditional_retry",
                  "hang_retry"):
        assert inputs[field] == FIELDS[field], field
    # Finished-run facts, known after refresh, outputs only (no drift above).
    assert outputs["phase"] == "Completed"
    assert_end_is_start_plus_duration(outputs)
    assert outputs["task_statuses"] == [{"task": "worker-0", "exit_code": 0, "message": None}]
    assert outputs["run_reason"] == "first run (0 GPUs)", "kept by the refresh"

    # Fixed at create (ModelArts updates only the description): each change replaces the job.
    stack.set_config("jobs", json.dumps({"job": {**FIELDS, "hang_retry": False,
                                                 "notification": {"topic_urn": TOPIC, "events": ["JobFailed"]}}}))
    preview = stack.preview_json()
    assert preview_ops(preview, MA_JOB) & REPLACE_OPS
    said = "new run: changing notification, hang_retry replaces the training job (0 GPUs)"
    assert new_run_reasons(preview) == {"job": said}, preview["steps"]
    stack.up()
    new_id = state_resource(stack, MA_JOB)["id"]
    assert new_id != job_id and state_resource(stack, MA_JOB)["outputs"]["run_reason"] == said
    [job] = [j for j in emulator.admin.state()["modelarts"]["jobs"] if not j.get("deleting")]
    assert job["metadata"]["id"] == new_id and job["spec"]["notification"]["events"] == ["JobFailed"]
    assert job["metadata"]["annotations"][contract.HANG_RETRY_ANNOTATION] == "false"
    # The description alone still changes in place, beside the new fields.
    stack.set_config("jobs", json.dumps({"job": {**FIELDS, "hang_retry": False, "description": "nightly",
                                                 "notification": {"topic_urn": TOPIC, "events": ["JobFailed"]}}}))
    preview = stack.preview_json()
    assert preview_ops(preview, MA_JOB) == {"update"} and step_reasons(preview, "update") == {"job": said}
    stack.up()
    assert state_resource(stack, MA_JOB)["id"] == new_id
    assert state_resource(stack, MA_JOB)["outputs"]["run_reason"] == said, "an update keeps the run"
    stack.destroy()
    assert [j for j in emulator.admin.state()["modelarts"]["jobs"] if not j.get("deleting")] == []
