"""The native plugin with the ModelArts scheduling, notification and access fields: created as Huawei writes
them, refreshed with no diff, changed with their declared semantics, destroyed; finished-run outputs after
refresh."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from test_plugin_modelarts import ALGORITHM, job, live_jobs

from pulumi_mltrain.modelarts import contract
from support.pulumi_cli import Stack, change_counts
from support.runs import assert_end_is_start_plus_duration, new_run_reasons

TOPIC = "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts"
FIELDS: dict[str, Any] = {
    "pool_id": "pool-a100", "preemptible": True, "retry_count": 1,
    "required_affinity": {"affinity_type": "networkTopology", "affinity_group_size": 2, "job_level": "cluster"},
    "notification": {"topic_urn": TOPIC, "events": ["JobStarted", "JobFailed"]},
    "ssh_key_pair_names": ["kp-a", "kp-b"], "unconditional_retry": False, "hang_retry": True,
    "wait_for": "completed",
}


def test_new_fields_round_trip(emulator: Any, modelarts_plugin_stack: Callable[..., Stack]) -> None:
    stack = modelarts_plugin_stack([ALGORITHM, job(**FIELDS)])
    stack.up()
    [remote] = live_jobs(emulator)
    assert remote["spec"]["schedule_policy"] == {"preemptible": True, "required_affinity": FIELDS["required_affinity"]}
    assert remote["spec"]["notification"] == FIELDS["notification"]
    assert remote["endpoints"] == {"ssh": {"key_pair_names": ["kp-a", "kp-b"]}}
    annotations = remote["metadata"]["annotations"]
    assert (annotations[contract.UNCONDITIONAL_RETRY_ANNOTATION], annotations[contract.HANG_RETRY_ANNOTATION]) \
        == ("false", "true")

    stack.refresh("--yes")
    stack.preview("--expect-no-changes")
    [state] = stack.resources("mltrain:modelarts:TrainingJob")
    outputs = state["outputs"]
    assert outputs["required_affinity"] == FIELDS["required_affinity"]
    assert_end_is_start_plus_duration(outputs)
    assert [t["exit_code"] for t in outputs["task_statuses"]] == [0]
    assert outputs["run_reason"] == "first run (0 GPUs)", "kept by the refresh"

    # Fixed at create: a changed key pair list replaces the job; the description alone updates it.
    stack.set_config("resources", json.dumps([ALGORITHM, job(**{**FIELDS, "ssh_key_pair_names": ["kp-a"]})]))
    preview = stack.preview_json()
    said = "new run: changing ssh_key_pair_names replaces the training job (0 GPUs)"
    assert change_counts(preview).get("replace") == 1 and new_run_reasons(preview) == {"job": said}
    stack.up()
    [replaced] = live_jobs(emulator)
    assert stack.resources("mltrain:modelarts:TrainingJob")[0]["outputs"]["run_reason"] == said
    assert replaced["metadata"]["id"] != remote["metadata"]["id"]
    assert replaced["endpoints"] == {"ssh": {"key_pair_names": ["kp-a"]}}
    stack.set_config("resources", json.dumps([ALGORITHM, job(**{**FIELDS, "ssh_key_pair_names": ["kp-a"],
                                                                 "description": "nightly"})]))
    assert change_counts(stack.preview_json()).get("update") == 1
    stack.up()
    assert [j["metadata"]["id"] for j in live_jobs(emulator)] == [replaced["metadata"]["id"]]
    stack.destroy()
    assert live_jobs(emulator) == []
