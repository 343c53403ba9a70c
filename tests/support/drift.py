"""Helpers for the drift tests, in-process (tests/inprocess/test_drift.py) and through the engine: a
resource's inputs as the state holds them, an out-of-band patch derived from the resource's spec (wire
paths and wire values come from the spec itself), the declarations each test drifts and the checks
of their refresh and repair."""

from __future__ import annotations

import json
from typing import Any

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain import registry
from pulumi_mltrain import spec as specs

from .platforms import PLATFORMS
from .pulumi_cli import Stack

Json = dict[str, Any]
AlayaJobSpec = registry.ALAYA_JOB.calls().spec_type
AlgorithmSpec = registry.MODELARTS_ALGORITHM.calls().spec_type
ModelArtsJobSpec = registry.MODELARTS_JOB.calls().spec_type
_SECRET_SIG = "4dabf18193072939515e22adad3ad1c4"


def _plain(value: Any) -> Any:
    """State values with secrets unwrapped (the export was made with --show-secrets)."""
    if isinstance(value, dict):
        if value.get(_SECRET_SIG) == "1b47061264138c4ac30d75fd1eb44270" and "plaintext" in value:
            return _plain(json.loads(value["plaintext"]))
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def state_resource(stack: Stack, type_suffix: str) -> Json:
    """The one resource of that type in the state: id, inputs and outputs (secrets shown)."""
    resources = [r for r in stack.export(show_secrets=True)["deployment"].get("resources", [])
                 if r.get("type", "").endswith(type_suffix)]
    assert len(resources) == 1, f"expected one {type_suffix} in the state, found {len(resources)}"
    return dict(_plain(resources[0]))


def spec_inputs(resource: Json, model: type[specs.Spec]) -> Json:
    """The resource's inputs that are fields of `model` (no `__provider`, no outputs)."""
    inputs = resource.get("inputs", {})
    return {k: v for k, v in inputs.items() if k in model.model_fields and v is not None}


def remote_fields(model: type[specs.Spec]) -> set[str]:
    """Fields compared with the platform: everything but the `local` ones (adopt_id, timeouts, wait_for),
    the `record` ones (stored in the state only: the platform keeps the value it was created with) and
    those its answers leave out (`returned=False`: tests/inprocess/test_ownership_answers.py reads their drift
    from the reference's full shape)."""
    return {name for name, m in specs.field_metas(model) if m.on_change not in ("local", "record") and m.returned}


def drift(model: type[specs.Spec], declared: Json, new_values: Json) -> tuple[Json, Json]:
    """(wire changes for /_admin/patch, the inputs the state should then hold for those fields).

    The changed spec is the declared one with `new_values`; its own `wire()` gives each field's
    value at its wire path, so the patch is exactly what the platform would hold for those inputs.
    """
    changed = model.model_validate({**declared, **new_values})
    body = changed.wire()
    props = changed.props()
    changes = {specs.wire_path(model, name): specs.dig(body, specs.wire_path(model, name)) for name in new_values}
    return changes, {name: props.get(name) for name in new_values}


def preview_ops(preview: Json, type_suffix: str) -> set[str]:
    """The step operations `pulumi preview --json` plans for resources of that type."""
    return {str(step.get("op")) for step in preview.get("steps", [])
            if str(step.get("urn", "")).split("::")[-2].endswith(type_suffix)}


OWNER_KEY = "MLTRAIN_OWNER"


# Ops a preview may show for a resource it replaces (delete-before-replace shows them apart).
REPLACE_OPS = {"replace", "create-replacement", "delete-replaced"}


def assert_refreshed(before: Json, after: Json, expected: Json) -> None:
    """The patched inputs hold the platform's values, every other is unchanged."""
    assert [k for k, v in expected.items() if before.get(k) == v] == [], "each patch must change its field"
    assert {k: after.get(k) for k in expected} == expected
    others = set(before) | set(after)
    assert {k: after.get(k) for k in others - set(expected)} == \
        {k: before.get(k) for k in others - set(expected)}, "refresh changed inputs that were not patched"


def assert_declared_again(model: type[specs.Spec], declared: Json, platform: Json) -> None:
    """The platform object covers every declared remote input (what it completes is its choice)."""
    spec = model.model_validate(declared)
    assert specs.differing(spec, specs.from_wire(model, platform, keep=spec)) == {}


def _task(emulator: EmulatorHandle, task_id: str) -> Json:
    alaya = PLATFORMS["alaya"]
    tasks = [t for t in alaya.stored_jobs(emulator) if alaya.job_id(t) == task_id]
    assert len(tasks) == 1, f"task {task_id} is not on the platform"
    return dict(tasks[0])


ALAYA_DECLARED: Json = {
    "product_code": d.PRODUCT_TRAIN_2, "worker_count": 2,
    "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu", "create_type": "DIRECT",
    "description": "drift test", "priority": 2, "training_type": "PRE_TRAINING", "image_type": "general",
    "training_framework": "pytorch",
    "storage_mounts": [{"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
                        "file_directory": "datasets", "mount_path": "/root/nas/", "read_only": True}],
    "env": {"EPOCHS": "1"}, "enable_auto_retry": True, "max_retry_count": 2, "enable_timeout_cancel": True,
    "timeout_hours": 12, "start_command": "python3 train.py",
}


ALAYA_CHANGED: Json = {
    "product_code": d.PRODUCT_TRAIN_1, "worker_count": 3,
    "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu", "create_type": "COPY",
    "priority": 1, "training_type": "HPC", "image_type": "application", "training_framework": "deepspeed",
    "storage_mounts": [{"storage_id": d.STORAGE_PERFORMANCE_ID, "storage_type": "nas-performance",
                        "file_directory": "ckpt", "mount_path": "/root/ckpt/", "read_only": False}],
    "env": {"EPOCHS": "9"}, "enable_auto_retry": False, "max_retry_count": 5, "enable_timeout_cancel": False,
    "timeout_hours": 24, "start_command": "python3 train.py --resume",
}


def patch_alaya_task(emulator: EmulatorHandle, task_id: str, before: Json) -> Json:
    """Changes every remote input of the task out of band; returns the inputs a refresh should record."""
    new_values = {**ALAYA_CHANGED, "name": before["name"] + "-edited"}
    assert set(new_values) == remote_fields(AlayaJobSpec) & set(before), "patch every remote input"
    changes, expected = drift(AlayaJobSpec, before, new_values)
    # The owner mark (if any) stays in env: a console edit of env keeps the keys it does not touch.
    platform_env = _task(emulator, task_id)["env"]
    changes["env"] = {**{k: v for k, v in platform_env.items() if k == OWNER_KEY}, **changes["env"]}
    emulator.admin.patch("alaya", "task", task_id, changes)
    return expected


def assert_alaya_repaired(emulator: EmulatorHandle, before: Json, old_id: str, new_id: str) -> None:
    """The task was replaced (the old one is gone) by one that holds the declared inputs again."""
    assert new_id != old_id
    alaya = PLATFORMS["alaya"]
    live = [alaya.job_id(t) for t in alaya.stored_jobs(emulator) if not t["deleting"]]
    assert old_id not in live and new_id in live, (old_id, new_id, live)
    task = _task(emulator, new_id)
    assert (task["name"], task["workerCount"], task["desc"]) == (before["name"], 2, "drift test")
    assert_declared_again(AlayaJobSpec, before, task)


def _modelarts(emulator: EmulatorHandle, kind: str, object_id: str) -> Json:
    state = emulator.admin.state()["modelarts"]
    rows = [o for o in state["algorithms" if kind == "algorithm" else "jobs"]
            if o["metadata"]["id"] == object_id and not o.get("deleting")]
    assert len(rows) == 1, f"{kind} {object_id} is not on the platform"
    return dict(rows[0])


CONSTRAINT: Json = {"type": "Integer", "editable": True, "required": False, "sensitive": False,
                    "valid_type": "None", "valid_range": []}


ALGORITHM_DECLARED: Json = {
    "description": "drift test", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
    "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
    "parameters": [{"name": "epochs", "value": "3", "description": "passes", "constraint": CONSTRAINT}],
    "parameters_customization": False,
    "inputs": [{"name": "data_url", "description": "data"}], "outputs": [{"name": "train_url", "description": "out"}],
    "resource_requirements": [{"key": "flavor_type", "values": ["CPU"], "operator": "in"}],
}


ALGORITHM_CHANGED: Json = {
    "description": "edited in the console", "code_dir": "/b/code2/", "boot_file": "/b/code2/main.py",
    "engine_name": d.ENGINE_TENSORFLOW[0], "engine_version": d.ENGINE_TENSORFLOW[1],
    "parameters": [{"name": "epochs", "value": "9", "description": "passes", "constraint": CONSTRAINT}],
    "parameters_customization": True,
    "inputs": [{"name": "data_url", "description": "edited"}], "outputs": [{"name": "train_url", "description": "x"}],
    "resource_requirements": [{"key": "flavor_type", "values": ["GPU"], "operator": "in"}],
}


def patch_algorithm(emulator: EmulatorHandle, algorithm_id: str, before: Json) -> Json:
    # ModelArts refuses to rename an algorithm (ModelArts.2788): the name cannot drift.
    assert set(ALGORITHM_CHANGED) == remote_fields(AlgorithmSpec) & set(before) - {"name"}
    changes, expected = drift(AlgorithmSpec, before, ALGORITHM_CHANGED)
    emulator.admin.patch("modelarts", "algorithm", algorithm_id, changes)
    return expected


def assert_algorithm_repaired(emulator: EmulatorHandle, before: Json, algorithm_id: str) -> None:
    algorithm = _modelarts(emulator, "algorithm", algorithm_id)
    assert algorithm["job_config"]["boot_file"] == "/b/code/train.py"
    assert algorithm["metadata"]["description"] == "drift test"
    assert_declared_again(AlgorithmSpec, before, algorithm)


MA_JOB_DECLARED: Json = {
    "description": "drift test", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
    "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
    "parameters": [{"name": "epochs", "value": "3"}],
    "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
    "outputs": [{"name": "train_url", "obs_url": "obs://b/out/"}],
    "environments": {"NCCL_DEBUG": "WARN"}, "flavor_id": d.FLAVOR_GPU_V100, "node_count": 2,
    "log_export_path": "obs://b/logs/", "auto_stop_hours": 5,
}


MA_JOB_CHANGED: Json = {
    "description": "edited in the console", "code_dir": "/b/code2/", "boot_file": "/b/code2/main.py",
    "engine_name": d.ENGINE_TENSORFLOW[0], "engine_version": d.ENGINE_TENSORFLOW[1],
    "parameters": [{"name": "epochs", "value": "7"}],
    "outputs": [{"name": "train_url", "obs_url": "/b/out2/", "local_dir": "/home/ma-user/out"}],
    "environments": {"NCCL_DEBUG": "INFO"}, "flavor_id": d.FLAVOR_CPU_8U, "node_count": 3,
    "log_export_path": "/b/logs2/", "auto_stop_hours": 6,
}


def patch_ma_job(emulator: EmulatorHandle, job_id: str, before: Json) -> Json:
    new_values = {**MA_JOB_CHANGED, "name": before["name"] + "-edited"}
    assert set(new_values) == remote_fields(ModelArtsJobSpec) & set(before), "patch every remote input"
    # Inputs left unset stay unset although the platform fills them in (workspace "0", engine_id, ...).
    assert not {"workspace_id", "algorithm_id", "engine_id", "pool_id", "command"} & set(before)
    changes, expected = drift(ModelArtsJobSpec, before, new_values)
    emulator.admin.patch("modelarts", "job", job_id, changes)
    return expected


def assert_ma_job_repaired(emulator: EmulatorHandle, before: Json, old_id: str, new_id: str) -> None:
    assert new_id != old_id
    job = _modelarts(emulator, "job", new_id)
    assert (job["metadata"]["name"], job["spec"]["resource"]["node_count"]) == (before["name"], 2)
    assert_declared_again(ModelArtsJobSpec, before, job)
