"""Drift: every input the platform reports is changed out of band (as in its console), `pulumi refresh`
records the platform's values, preview plans the repair and `up` puts the declared values back.

The fields come from the specs: a test fails when a spec gains a remote field that it does not patch.
What a refresh records (`read`) and what the repair is (`check`, `diff`, `update` or delete and create)
is the provider's own logic, so every resource's case runs in-process against the emulator. The engine
keeps one refresh-and-repair run per platform, in the stack of each platform's engine test (they use the
patches and checks of this file): the Alaya NeW job in
test_alaya_engine.py::test_alaya_stack_lifecycle_secrets_drift_and_a_refused_key, and a ModelArts job
(replaced) and an algorithm (updated in place) in test_modelarts_engine.py::test_modelarts_stack_lifecycle.
"""

from __future__ import annotations

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain import spec as specs
from pulumi_mltrain.alaya.storage_mount import StorageMountProvider, StorageMountSpec
from pulumi_mltrain.alaya.training_job import TrainingJobProvider as AlayaJobs
from pulumi_mltrain.alaya.training_job import TrainingJobSpec as AlayaJobSpec
from pulumi_mltrain.modelarts.algorithm import AlgorithmProvider, AlgorithmSpec
from pulumi_mltrain.modelarts.training_job import TrainingJobProvider as ModelArtsJobs
from pulumi_mltrain.modelarts.training_job import TrainingJobSpec as ModelArtsJobSpec
from support import inprocess
from support.drift import Json, drift, remote_fields, spec_inputs

OWNER_KEY = "MLTRAIN_OWNER"
# Ops a preview may show for a resource it replaces (delete-before-replace shows them apart).
REPLACE_OPS = {"replace", "create-replacement", "delete-replaced"}


def _inputs(props: Json, model: type[specs.Spec]) -> Json:
    """The props that are fields of `model` and set (no owner marks, no outputs)."""
    return spec_inputs({"inputs": props}, model)


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


def _no_changes_after(resource: inprocess.Created) -> None:
    """A refresh and a preview after the repair find nothing to do."""
    resource.refresh()
    _, diff = resource.preview()
    assert not diff.changes, diff


# --- Alaya NeW TrainingJob --------------------------------------------------------------------------

def _task(emulator: EmulatorHandle, task_id: str) -> Json:
    tasks = [t for t in emulator.admin.state()["alaya"]["tasks"] if t["id"] == task_id]
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
    live = [t["id"] for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"]]
    assert old_id not in live and new_id in live, (old_id, new_id, live)
    task = _task(emulator, new_id)
    assert (task["name"], task["workerCount"], task["desc"]) == (before["name"], 2, "drift test")
    assert_declared_again(AlayaJobSpec, before, task)


def test_alaya_training_job_drift(emulator: EmulatorHandle) -> None:
    job = inprocess.Created(inprocess.configured(AlayaJobs(), "alaya", emulator), ALAYA_DECLARED)
    before, task_id = _inputs(job.inputs, AlayaJobSpec), job.id
    expected = patch_alaya_task(emulator, task_id, before)

    assert_refreshed(before, _inputs(job.refresh(), AlayaJobSpec), expected)
    assert job.up().replaces, "a changed replacing input plans a replace"
    assert_alaya_repaired(emulator, before, task_id, job.id)
    assert [t["id"] for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"]] == [job.id]
    _no_changes_after(job)


# --- Alaya NeW StorageMount -------------------------------------------------------------------------

MOUNT_DECLARED: Json = {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
                        "file_directory": "datasets", "mount_path": "/root/nas/datasets", "read_only": False}



def test_alaya_storage_mount_drift(emulator: EmulatorHandle) -> None:
    """The storage row belongs to the tenant: refresh records its type, the provider cannot change it
    back, so preview says why the mount no longer fits; once the row is right again, up repairs the state."""
    mounts = inprocess.configured(StorageMountProvider(), "alaya", emulator)
    mount = inprocess.Created(mounts, MOUNT_DECLARED, name=None)
    before, mount_id = _inputs(mount.inputs, StorageMountSpec), mount.id
    platform_row = next(r for r in _storages(emulator) if r["storageId"] == d.STORAGE_CAPACITY_ID)
    returned = {n for n in remote_fields(StorageMountSpec) & set(before)
                if specs.wire_path(StorageMountSpec, n) in platform_row} - {"storage_id"}  # the row's key
    assert returned == {"storage_type"}
    changes, expected = drift(StorageMountSpec, before, {"storage_type": "nas-performance"})
    emulator.admin.patch("alaya", "storage", d.STORAGE_CAPACITY_ID, changes)

    assert_refreshed(before, _inputs(mount.refresh(), StorageMountSpec), expected)
    refused = [(f.property, f.reason) for f in mounts.check(mount.inputs, mount.declared).failures]
    assert any(f == "storage_id" and d.STORAGE_CAPACITY_ID in r and "nas-performance" in r
               for f, r in refused), refused

    emulator.admin.patch("alaya", "storage", d.STORAGE_CAPACITY_ID, {"storageType": "nas-capacity"})
    assert mount.up().replaces, "the recorded type differs from the declared one: preview plans a replace"
    assert _inputs(mount.inputs, StorageMountSpec) == before and mount.id == mount_id
    _no_changes_after(mount)


def _storages(emulator: EmulatorHandle) -> list[Json]:
    with httpx.Client(base_url=emulator.url, headers={"Authorization": f"Bearer {emulator.alaya_api_key}"},
                      timeout=10.0, verify=False) as http:
        rows: list[Json] = http.get("/v1" + d.ALAYA_STORAGES, params={"pageSize": 100}).json()["data"]["records"]
    return rows



# --- ModelArts Algorithm ----------------------------------------------------------------------------

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


def test_modelarts_algorithm_drift(emulator: EmulatorHandle) -> None:
    algorithms = inprocess.configured(AlgorithmProvider(), "modelarts", emulator)
    algorithm = inprocess.Created(algorithms, ALGORITHM_DECLARED, name="algo")
    before, algorithm_id = _inputs(algorithm.inputs, AlgorithmSpec), algorithm.id
    expected = patch_algorithm(emulator, algorithm_id, before)

    assert_refreshed(before, _inputs(algorithm.refresh(), AlgorithmSpec), expected)
    diff = algorithm.up()
    assert diff.changes and not diff.replaces, diff.replaces
    assert algorithm.id == algorithm_id
    assert_algorithm_repaired(emulator, before, algorithm_id)
    _no_changes_after(algorithm)


# --- ModelArts TrainingJob --------------------------------------------------------------------------

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



@pytest.fixture
def ma_jobs(emulator: EmulatorHandle) -> ModelArtsJobs:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
    return inprocess.configured(ModelArtsJobs(), "modelarts", emulator)


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


@pytest.mark.parametrize("name", ["job", None], ids=["declared-name", "autonamed"])
def test_modelarts_training_job_drift(emulator: EmulatorHandle, ma_jobs: ModelArtsJobs, name: str | None) -> None:
    job = inprocess.Created(ma_jobs, MA_JOB_DECLARED, name=name)
    before, job_id = _inputs(job.inputs, ModelArtsJobSpec), job.id
    expected = patch_ma_job(emulator, job_id, before)

    assert_refreshed(before, _inputs(job.refresh(), ModelArtsJobSpec), expected)
    news, diff = job.preview()
    # The replacement is a new job named as declared, or autonamed as its create names it (not from the
    # drifted name the state holds), and its run_reason says which fields start the new run.
    assert news["name"] == before["name"], news["name"]
    assert str(news["run_reason"]).startswith("new run: changing ") and "name" in diff.replaces, news["run_reason"]
    assert job.up().replaces, "a changed replacing input plans a replace"
    assert_ma_job_repaired(emulator, before, job_id, job.id)
    assert job.state["run_reason"] == news["run_reason"], job.state["run_reason"]
    _no_changes_after(job)


def test_modelarts_description_drift_updates_in_place(emulator: EmulatorHandle, ma_jobs: ModelArtsJobs) -> None:
    job = inprocess.Created(ma_jobs, MA_JOB_DECLARED)
    before, job_id = _inputs(job.inputs, ModelArtsJobSpec), job.id
    changes, expected = drift(ModelArtsJobSpec, before, {"description": "edited in the console"})
    emulator.admin.patch("modelarts", "job", job_id, changes)

    assert_refreshed(before, _inputs(job.refresh(), ModelArtsJobSpec), expected)
    diff = job.up()
    assert diff.changes and not diff.replaces, diff.replaces
    assert job.id == job_id
    assert _modelarts(emulator, "job", job_id)["metadata"]["description"] == "drift test"
    _no_changes_after(job)
