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
from pulumi_mltrain.alaya.storage_mount import StorageMountSpec
from pulumi_mltrain.alaya.training_job import TrainingJobSpec as AlayaJobSpec
from pulumi_mltrain.modelarts.algorithm import AlgorithmSpec
from pulumi_mltrain.modelarts.training_job import TrainingJobSpec as ModelArtsJobSpec
from pulumi_mltrain.ownership import MARK_KEYS
from support import inprocess
from support.drift import (
    ALAYA_DECLARED,
    ALGORITHM_DECLARED,
    MA_JOB_DECLARED,
    Json,
    _modelarts,
    assert_alaya_repaired,
    assert_algorithm_repaired,
    assert_ma_job_repaired,
    assert_refreshed,
    drift,
    patch_alaya_task,
    patch_algorithm,
    patch_ma_job,
    remote_fields,
    spec_inputs,
)
from support.inprocess import AnyHandler


def _inputs(props: Json, model: type[specs.Spec]) -> Json:
    """The props that are fields of `model` and set (no owner marks, no outputs)."""
    return spec_inputs({"inputs": props}, model)


def _no_changes_after(resource: inprocess.Created) -> None:
    """A refresh and a preview after the repair find nothing to do."""
    resource.refresh()
    _, diff = resource.preview()
    assert not diff.changes, diff


# --- Alaya NeW TrainingJob --------------------------------------------------------------------------


def test_alaya_training_job_drift(emulator: EmulatorHandle) -> None:
    job = inprocess.Created(inprocess.handler("alaya:TrainingJob", emulator), ALAYA_DECLARED)
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
    mounts = inprocess.handler("alaya:StorageMount", emulator)
    mount = inprocess.Created(mounts, MOUNT_DECLARED, name=None)
    before, mount_id = _inputs(mount.inputs, StorageMountSpec), mount.id
    platform_row = next(r for r in _storages(emulator) if r["storageId"] == d.STORAGE_CAPACITY_ID)
    returned = {n for n in remote_fields(StorageMountSpec) & set(before)
                if specs.wire_path(StorageMountSpec, n) in platform_row} - {"storage_id"}  # the row's key
    assert returned == {"storage_type"}
    changes, expected = drift(StorageMountSpec, before, {"storage_type": "nas-performance"})
    emulator.admin.patch("alaya", "storage", d.STORAGE_CAPACITY_ID, changes)

    assert_refreshed(before, _inputs(mount.refresh(), StorageMountSpec), expected)
    refused = inprocess.failures_against(mounts, mount.inputs, mount.declared)
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


def test_modelarts_algorithm_drift(emulator: EmulatorHandle) -> None:
    algorithms = inprocess.handler("modelarts:Algorithm", emulator)
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


@pytest.fixture
def ma_jobs(emulator: EmulatorHandle) -> AnyHandler:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
    return inprocess.handler("modelarts:TrainingJob", emulator)


@pytest.mark.parametrize("name", ["job", None], ids=["declared-name", "autonamed"])
def test_modelarts_training_job_drift(emulator: EmulatorHandle, ma_jobs: AnyHandler, name: str | None) -> None:
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


def test_modelarts_description_drift_updates_in_place(emulator: EmulatorHandle, ma_jobs: AnyHandler) -> None:
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


# --- A refresh without drift ------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "declared", "name"), [
    ("alaya:TrainingJob", ALAYA_DECLARED, "job"),
    ("alaya:StorageMount", MOUNT_DECLARED, None),
    ("modelarts:Algorithm", ALGORITHM_DECLARED, "algo"),
    ("modelarts:TrainingJob", MA_JOB_DECLARED, "job"),
])
def test_a_refresh_without_drift_keeps_the_stored_inputs(emulator: EmulatorHandle, ma_jobs: AnyHandler,
                                                         kind: str, declared: Json, name: str | None) -> None:
    """A refresh of an object the platform holds as declared leaves the inputs check stored, derived ones
    and the owner mark included: a preview after it shows no added input, and the engine rewrites no step.
    The dynamic form's read is handed the outputs alone (the engine does not hand a dynamic provider's read
    the inputs), which repeat the stored inputs but for the owner mark: it gives no inputs, and the engine
    keeps the stored ones. The plugin's read is handed both and gives them back as stored. After drift the
    dynamic form's read gives the inputs, the platform's values in them (the next test)."""
    handler = inprocess.handler(kind, emulator)
    declared = {**inprocess.OWNER, **({} if name is None else {"name": name}), **declared}
    inputs = inprocess.checked(handler, declared)
    created = handler.create(inputs)
    dynamic = inprocess.read(handler, created.id, dict(created.outputs))
    assert dynamic.inputs is None, "the dynamic form's refresh must leave the stored inputs as they are"
    plugin = inprocess.read(handler, created.id, {**inputs, **created.outputs})
    assert plugin.inputs == inputs
    # What the dynamic form's read would have given: the stored inputs but for the mark it cannot see.
    assert {k: v for k, v in plugin.inputs.items() if k not in MARK_KEYS} == {
        **specs.user_props(dict(created.outputs), handler.spec_type),
        **{k: v for k, v in created.outputs.items() if k in inputs and k not in MARK_KEYS}}
    handler.delete(created.id, dict(created.outputs))


def test_alaya_training_job_drift_read_from_the_outputs_alone(emulator: EmulatorHandle) -> None:
    """The dynamic form's refresh of a drifted task gives the inputs, the platform's values in them and no
    owner mark (it cannot see it): the next check adds the mark, and the preview plans the repair."""
    handler = inprocess.handler("alaya:TrainingJob", emulator)
    inputs = inprocess.checked(handler, {**inprocess.OWNER, "name": "job", **ALAYA_DECLARED})
    created = handler.create(inputs)
    before = _inputs(inputs, AlayaJobSpec)
    expected = patch_alaya_task(emulator, created.id, before)
    read = inprocess.read(handler, created.id, dict(created.outputs))
    assert read.inputs is not None, "a drifted object's refresh must store the platform's values"
    assert_refreshed(before, _inputs(dict(read.inputs), AlayaJobSpec), expected)
    assert not set(MARK_KEYS) & set(read.inputs)
    handler.delete(created.id, dict(read.outputs))
