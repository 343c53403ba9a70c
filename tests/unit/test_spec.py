"""The spec drives validation, diff, wire bodies and adoption checks."""

from __future__ import annotations

from typing import Any

from pulumi.output import Unknown

from pulumi_mltrain import registry
from pulumi_mltrain import spec as specs
from pulumi_mltrain.alaya.storage_mount import StorageMountSpec
from pulumi_mltrain.alaya.training_job import TrainingJobSpec
from pulumi_mltrain.handler import Handler

BASE: dict[str, Any] = {"name": "sft-1", "product_code": "PRD-TRAIN-1", "worker_count": 4,
                        "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu"}
MOUNT = {"storage_id": "s-1", "storage_type": "nas-capacity", "file_directory": "datasets",
         "mount_path": "/root/nas/"}


def failures(**changes: Any) -> dict[str, str]:
    _, found = specs.validate(TrainingJobSpec, {**BASE, **changes})
    return dict(found)


def test_valid_spec_fills_defaults_and_implied_switches() -> None:
    spec, found = specs.validate(TrainingJobSpec, {**BASE, "worker_count": 4.0, "timeout_hours": 24,
                                                   "max_retry_count": 3, "training_type": "pre_training",
                                                   "training_framework": "PyTorch"})
    assert found == [] and spec is not None
    props = spec.props()
    assert props["worker_count"] == 4 and isinstance(props["worker_count"], int)
    assert props["enable_timeout_cancel"] is True and props["enable_auto_retry"] is True
    assert props["training_type"] == "PRE_TRAINING" and props["training_framework"] == "pytorch"
    assert props["priority"] == 3 and props["create_type"] == "DIRECT"


def test_wire_body_matches_the_seed_field_names() -> None:
    spec, _ = specs.validate(TrainingJobSpec, {**BASE, "storage_mounts": [MOUNT], "env": {"A": "1"},
                                               "description": "d", "training_framework": "pytorch",
                                               "start_command": "python3 train.py", "wait_for": "running"})
    assert spec is not None
    body = spec.wire()
    assert body["trainingFramwork"] == "pytorch"  # the API's own spelling
    assert body["storageConfigs"] == [{"storageId": "s-1", "storageType": "nas-capacity",
                                       "fileDirectory": "datasets", "mountPath": "/root/nas/", "onlyRead": True}]
    assert body["desc"] == "d" and body["workerCount"] == 4 and body["productCode"] == "PRD-TRAIN-1"
    assert "wait_for" not in body and "waitFor" not in body and "adopt_id" not in body


def test_field_errors_name_the_field() -> None:
    assert "worker_count" in failures(worker_count=0)
    assert "priority" in failures(priority=4)
    assert "image" in failures(image="")
    assert "training_framework" in failures(training_framework="jax")
    assert "worker_count" in failures(worker_count="many")
    assert failures(wokrer_count=2) == {"wokrer_count": "is not an input of this resource (check the spelling)"}
    del_base = {k: v for k, v in BASE.items() if k != "image"}
    assert dict(specs.validate(TrainingJobSpec, del_base)[1]) == {"image": "is required"}


def test_cross_field_rules() -> None:
    assert "max_retry_count" in failures(max_retry_count=3, enable_auto_retry=False)
    assert "timeout_hours" in failures(timeout_hours=3, enable_timeout_cancel=False)
    assert "timeout_hours" in failures(enable_timeout_cancel=True)
    dup = failures(storage_mounts=[MOUNT, {**MOUNT, "mount_path": "/root/nas"}])
    assert dup == {"storage_mounts[1].mount_path": "/root/nas is already used by storage_mounts[0]"}
    assert "storage_mounts[0].mount_path" in failures(storage_mounts=[{**MOUNT, "mount_path": "data"}])
    assert "storage_mounts[0].mount_path" in failures(storage_mounts=[{**MOUNT, "mount_path": "/a/../etc"}])
    assert "env.1BAD" in failures(env={"1BAD": "x"})


def test_unknowns_validate_only_known_fields() -> None:
    spec, found = specs.validate(TrainingJobSpec, {**BASE, "storage_mounts": [Unknown()], "worker_count": 0})
    assert spec is None
    assert dict(found) == {"worker_count": "Input should be greater than or equal to 1"}
    spec, found = specs.validate(TrainingJobSpec, {**BASE, "image": Unknown()})
    assert spec is None and found == []


def test_diff_replace_update_and_no_noise() -> None:
    spec, _ = specs.validate(TrainingJobSpec, BASE)
    assert spec is not None
    olds = {**spec.props(), "status": "RUNNING", "training_task_id": "tt-1", "__provider": "x"}
    news = {**spec.props(), "__provider": "x"}
    olds_as_rpc = {k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in olds.items()}
    assert specs.diff(TrainingJobSpec, olds_as_rpc, news) == ([], [])
    changed, replaces = specs.diff(TrainingJobSpec, olds, {**news, "image": "other"})
    assert changed == ["image"] and replaces == ["image"]
    changed, replaces = specs.diff(TrainingJobSpec, olds, {**news, "wait_for": "running", "timeouts": {"create": 60}})
    assert set(changed) == {"wait_for", "timeouts"} and replaces == []
    changed, _ = specs.diff(TrainingJobSpec, olds, {**news, "image": Unknown()})
    assert changed == ["image"]


def jobs() -> Handler[Any, Any, Any]:
    """The handler of alaya:TrainingJob from the registry, as both faces build it (not configured)."""
    entry = registry.resource("mltrain:alaya:TrainingJob")
    assert entry is not None
    return entry.handler()


def test_handler_diff() -> None:
    spec, _ = specs.validate(TrainingJobSpec, BASE)
    assert spec is not None
    handler = jobs()
    same = handler.diff(spec.props(), spec.props(), "tt-1")
    assert same.changes is False
    changed = handler.diff(spec.props(), {**spec.props(), "worker_count": 8}, "tt-1")
    assert changed.changes and changed.replaces == ("worker_count",) and changed.delete_before_replace


def test_adoption_compares_through_the_wire() -> None:
    spec, _ = specs.validate(TrainingJobSpec, {**BASE, "training_framework": "pytorch"})
    assert spec is not None
    remote = {"id": "tt-1", "status": "RUNNING", "name": "sft-1", "productCode": "PRD-TRAIN-1",
              "workerCount": 4, "image": BASE["image"], "trainingFramework": "PyTorch", "priority": 3,
              "createType": "DIRECT", "storageConfigs": [], "env": {}}
    assert specs.differences(spec, specs.from_wire(TrainingJobSpec, remote, spec)) == []
    lines = specs.differences(spec, specs.from_wire(TrainingJobSpec, {**remote, "workerCount": 8}, spec))
    assert lines == ["worker_count: declared 4, platform has 8"]


def test_storage_mount_spec() -> None:
    spec, found = specs.validate(StorageMountSpec, {**MOUNT, "mount_path": "relative"})
    assert spec is not None and dict(found) == {"mount_path": "must be an absolute path (start with /)"}
    spec, found = specs.validate(StorageMountSpec, MOUNT)
    assert spec is not None and found == []
    assert spec.as_mount().model_dump()["read_only"] is True


def test_check_has_checked_inputs_and_field_failures() -> None:
    handler = jobs()
    result = handler.check({}, {**BASE, "worker_count": 2.0, "__provider": "blob"})
    assert result.failures == ()
    assert result.inputs["worker_count"] == 2 and result.inputs["__provider"] == "blob"
    result = handler.check({}, {**BASE, "worker_count": 0, "__provider": "blob"})
    assert [f.property for f in result.failures] == ["worker_count"]
    assert "TrainingJob" in result.failures[0].reason


def test_a_recorded_key_of_a_nested_input_changes_nothing_and_the_rest_replaces() -> None:
    """`checkpoint.resume` says how the next run starts (spec_field recorded_keys): a diff never compares it,
    while a new checkpoint path replaces the task; the checkpoint never reaches the create body as is."""
    writable = {**MOUNT, "read_only": False}
    spec, found = specs.validate(TrainingJobSpec, {**BASE, "storage_mounts": [writable],
                                                   "checkpoint": {"path": "/root/nas/ckpt"}})
    assert found == [] and spec is not None
    olds = spec.props()
    assert olds["checkpoint"] == {"path": "/root/nas/ckpt", "resume": True}
    assert specs.diff(TrainingJobSpec, olds, {**olds, "checkpoint": {"path": "/root/nas/ckpt", "resume": False}}) \
        == ([], [])
    assert specs.diff(TrainingJobSpec, olds, {**olds, "checkpoint": {"path": "/root/nas/other"}}) \
        == (["checkpoint"], ["checkpoint"])
    assert specs.diff(TrainingJobSpec, olds, {k: v for k, v in olds.items() if k != "checkpoint"}) \
        == (["checkpoint"], ["checkpoint"])
    assert dict(specs.field_metas(TrainingJobSpec))["checkpoint"].recorded_keys == ("resume",)
