"""ModelArts job fields (tags, volumes, retries, priority, dataset inputs) and the replace guard, end to end:
created, refreshed with no diff, changed with the declared replace/update, and a guarded preview refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from pulumi_mltrain.emulator import EmulatorHandle
from pulumi_mltrain.emulator import defaults as d
from pulumi_mltrain.modelarts import contract
from support.drift import preview_ops, state_resource
from support.pulumi_cli import PulumiFailed, Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

MA_JOB = "modelarts:TrainingJob"
REPLACE_OPS = {"replace", "create-replacement", "delete-replaced"}
BASE: dict[str, Any] = {
    "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
    "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
    "flavor_id": d.FLAVOR_CPU_8U,
}
FIELDS: dict[str, Any] = {
    **BASE,
    "tags": {"team": "vision"},
    "volumes": [{"nfs": {"nfs_server_path": "192.168.0.10:/share", "local_path": "/mnt/share"}},
                {"obs": {"obs_url": "obs://b/ckpt/", "local_path": "/mnt/ckpt", "read_only": False}}],
    "retry_count": 3, "priority": 2,
    "inputs": [{"name": "data_url", "dataset": {"id": "ds-1", "version_id": "v-1"}}],
}


def _job(emulator: EmulatorHandle, job_id: str) -> dict[str, Any]:
    return dict(next(j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == job_id))


def test_fields_created_refreshed_and_changed(emulator: EmulatorHandle,
                                              modelarts_stack: Callable[..., Stack]) -> None:
    stack = modelarts_stack(jobs={"job": FIELDS})
    stack.up()
    job_id = state_resource(stack, MA_JOB)["id"]
    stack.refresh("--yes")
    assert preview_ops(stack.preview_json(), MA_JOB) <= {"same"}, "refresh must leave no diff"
    outputs = state_resource(stack, MA_JOB)["outputs"]
    assert outputs["tags"] == {"team": "vision"}, "the owner mark must not show as a user tag"
    assert outputs["volumes"][0]["nfs"]["read_only"] is True

    # Tags change in place, and the owner mark stays beside them.
    stack.set_config("jobs", json.dumps({"job": {**FIELDS, "tags": {"cost": "ml"}}}))
    assert preview_ops(stack.preview_json(), MA_JOB) == {"update"}
    stack.up()
    assert state_resource(stack, MA_JOB)["id"] == job_id
    # A changed mount replaces the job.
    stack.set_config("jobs", json.dumps({"job": {**FIELDS, "tags": {"cost": "ml"}, "priority": 3}}))
    assert preview_ops(stack.preview_json(), MA_JOB) & REPLACE_OPS


def test_wire_shapes_in_the_emulator(emulator: EmulatorHandle, modelarts_stack: Callable[..., Stack]) -> None:
    stack = modelarts_stack(jobs={"job": FIELDS})
    stack.up()
    job = _job(emulator, state_resource(stack, MA_JOB)["id"])
    assert job["metadata"]["annotations"][contract.RETRY_ANNOTATION] == "3"
    assert contract.OWNER_STACK in job["metadata"]["annotations"], "the owner mark stays beside the retries"
    assert job["spec"]["schedule_policy"] == {"priority": 2}
    assert job["spec"]["volumes"][1] == {"obs": {"obs_url": "/b/ckpt/", "local_path": "/mnt/ckpt",
                                                 "read_only": False}}
    assert job["algorithm"]["inputs"][0]["remote"] == {"dataset": {"id": "ds-1", "version_id": "v-1"}}


def test_volume_duplicates_refused_at_preview(modelarts_stack: Callable[..., Stack]) -> None:
    bad = {**BASE, "volumes": [{"nfs": {"nfs_server_path": "h:/a", "local_path": "/mnt/x"}},
                               {"obs": {"obs_url": "obs://b/y/", "local_path": "/mnt/x/"}}]}
    stack = modelarts_stack(jobs={"job": bad})
    with pytest.raises(PulumiFailed) as err:
        stack.preview()
    assert "volumes[1].obs.local_path" in str(err.value) and "already mounted" in str(err.value)


def test_replace_guard(emulator: EmulatorHandle, modelarts_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(modelarts_run_seconds=600)
    guarded = {**BASE, "replace_running": "refuse", "wait_for": "running"}
    stack = modelarts_stack(jobs={"job": guarded})
    stack.up()
    stack.set_config("jobs", json.dumps({"job": {**guarded, "node_count": 2}}))
    with pytest.raises(PulumiFailed) as err:
        stack.preview()
    text = str(err.value)
    assert "refuses to replace job" in text and "Running" in text and "node_count" in text
    stack.set_config("jobs", json.dumps({"job": {**guarded, "node_count": 2, "replace_running": "allow"}}))
    assert preview_ops(stack.preview_json(), MA_JOB) & REPLACE_OPS


ALGORITHM = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
             "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
             "inputs": [{"name": "data_url"}], "tags": {"team": "nlp"},
             "advanced_config": {"auto_search": {"search_params": [
                 {"name": "lr", "param_type": "continuous", "lower_bound": "0.001", "upper_bound": "0.1"}]}}}


def _algorithm(emulator: EmulatorHandle) -> dict[str, Any]:
    [algorithm] = emulator.admin.state()["modelarts"]["algorithms"]
    return dict(algorithm)


def test_algorithm_tags_and_advanced_config(emulator: EmulatorHandle,
                                            modelarts_stack: Callable[..., Stack]) -> None:
    job = {"flavor_id": d.FLAVOR_CPU_8U, "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}]}
    stack = modelarts_stack(jobs={"job": job}, algorithm=ALGORITHM)
    stack.up()
    stored = _algorithm(emulator)
    tags = {t["key"]: t["value"] for t in stored["metadata"]["tags"]}
    assert tags["team"] == "nlp" and contract.OWNER_STACK in tags, "user tags live beside the owner mark"
    assert stored["advanced_config"] == ALGORITHM["advanced_config"]
    algorithm_id = stored["metadata"]["id"]
    stack.refresh("--yes")
    assert preview_ops(stack.preview_json(), "modelarts:Algorithm") <= {"same"}, "refresh must leave no diff"

    # Both change in place; removing advanced_config clears it on the platform.
    changed = {k: v for k, v in ALGORITHM.items() if k != "advanced_config"} | {"tags": {"team": "vision"}}
    stack.set_config("algorithm", json.dumps(changed))
    assert preview_ops(stack.preview_json(), "modelarts:Algorithm") == {"update"}
    stack.up()
    stored = _algorithm(emulator)
    tags = {t["key"]: t["value"] for t in stored["metadata"]["tags"]}
    assert stored["metadata"]["id"] == algorithm_id
    assert tags["team"] == "vision" and contract.OWNER_STACK in tags
    assert not stored["advanced_config"]
    stack.destroy()


def test_each_replacing_field_previews_a_replace(modelarts_stack: Callable[..., Stack]) -> None:
    stack = modelarts_stack(jobs={"job": FIELDS})
    stack.up()
    changes = {
        "volumes": [FIELDS["volumes"][0]],
        "retry_count": 5,
        "inputs": [{"name": "data_url", "dataset": {"id": "ds-2", "version_id": "v-1"}}],
        "priority": 1,
    }
    for field, value in changes.items():
        stack.set_config("jobs", json.dumps({"job": {**FIELDS, field: value}}))
        assert preview_ops(stack.preview_json(), MA_JOB) & REPLACE_OPS, f"a changed {field} replaces the job"
    stack.set_config("jobs", json.dumps({"job": FIELDS}))
    assert preview_ops(stack.preview_json(), MA_JOB) <= {"same"}
    stack.destroy()
