"""The handler's own operations that only the plugin face reaches through the engine (import of an
existing object, the look for a failed create's object, the engine's timeout, the account context),
in process against the emulator over loopback HTTP."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.accounts import SETTINGS_KEY
from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.ownership import ATTEMPT_KEY, EXISTS_KEY, PREVIEW_KEY
from support import inprocess
from support.inprocess import AnyHandler
from support.stacks import alaya_job_args

OWNER = {"__mltrain_stack": "st-handler", "__mltrain_urn": "urn:pulumi:test::handler::mltrain:x:Y::job"}
# The owner a `pulumi import` under another resource name gives.
IMPORTER = {"__mltrain_stack": "st-handler", "__mltrain_urn": "urn:pulumi:test::handler::mltrain:x:Y::imported"}
MOUNT = {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity", "file_directory": "datasets",
         "mount_path": "/root/nas/datasets"}
ALGORITHM = {"name": "algo", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
             "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
             "inputs": [{"name": "data_url"}], "outputs": [{"name": "train_url"}]}


ALAYA_JOBS, MOUNTS = "alaya:TrainingJob", "alaya:StorageMount"
ALGORITHMS, MODELARTS_JOBS = "modelarts:Algorithm", "modelarts:TrainingJob"

pytestmark = pytest.mark.usefixtures("quick")


@pytest.fixture
def quick(quick: EmulatorHandle) -> EmulatorHandle:
    """The shared fast settings, but a task takes 0.2 s to move on and a ModelArts run lasts 30 s."""
    quick.admin.set_settings(task_state_delay=0.2, modelarts_run_seconds=30)
    return quick


def created(handler: AnyHandler, props: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(ID, checked inputs) of an object the handler creates for `props` under OWNER."""
    checked = handler.check({}, {**OWNER, **props})
    assert checked.failures == (), checked.failures
    result = handler.create(checked.inputs)
    assert result.failed is None
    return result.id, checked.inputs


def test_import_of_an_alaya_task_reads_its_inputs_back(emulator: EmulatorHandle) -> None:
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    task_id, inputs = created(jobs, alaya_job_args(name="imp-task", wait_for="created"))
    imported = inprocess.handler(ALAYA_JOBS, emulator).import_object(task_id, IMPORTER)
    assert imported.id == task_id
    declared = {k: imported.inputs.get(k) for k in ("name", "product_code", "worker_count", "image",
                                                    "start_command", "timeout_hours")}
    assert declared == {k: inputs[k] for k in declared}
    assert {k: imported.inputs[k] for k in IMPORTER} == IMPORTER, "the importer's owner inputs"
    assert not set(IMPORTER) & set(imported.outputs), "kept once in the state: in its inputs"
    assert imported.outputs["name"] == "imp-task" and imported.outputs.get("status")
    assert task_id in inprocess.platform_ids(emulator, "alaya"), "an import never deletes the object"


def test_import_of_a_storage_mount_splits_its_id(emulator: EmulatorHandle) -> None:
    mounts = inprocess.handler(MOUNTS, emulator)
    mount_id = f"{d.STORAGE_CAPACITY_ID}:datasets:/root/nas/datasets"
    imported = mounts.import_object(mount_id, IMPORTER)
    assert imported.id == mount_id
    assert {k: imported.inputs[k] for k in MOUNT} == MOUNT
    # Derived outputs are off while the object is read, then computed from the read-back inputs.
    assert imported.outputs["mount"]["mount_path"] == "/root/nas/datasets"
    assert imported.outputs["storage_status"]
    with pytest.raises(MltrainError, match=r"StorageMount: an import ID is "
                                           r"<storage_id>:<file_directory>:<mount_path>"):
        mounts.import_object("no-colons", IMPORTER)


def test_import_of_a_modelarts_algorithm_and_job(emulator: EmulatorHandle) -> None:
    algorithms = inprocess.handler(ALGORITHMS, emulator)
    algorithm_id, algorithm_inputs = created(algorithms, ALGORITHM)
    imported = inprocess.handler(ALGORITHMS, emulator).import_object(algorithm_id, IMPORTER)
    assert imported.id == imported.outputs["algorithm_id"] == algorithm_id
    assert {k: imported.inputs[k] for k in ("name", "code_dir", "boot_file")} == \
        {k: algorithm_inputs[k] for k in ("name", "code_dir", "boot_file")}

    jobs = inprocess.handler(MODELARTS_JOBS, emulator)
    job_id, _ = created(jobs, {"name": "imp-job", "algorithm_id": algorithm_id, "flavor_id": d.FLAVOR_CPU_8U,
                               "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
                               "wait_for": "accepted"})
    imported = inprocess.handler(MODELARTS_JOBS, emulator).import_object(job_id, IMPORTER)
    assert imported.id == job_id
    assert (imported.inputs["name"], imported.inputs["algorithm_id"]) == ("imp-job", algorithm_id)
    assert job_id in inprocess.platform_ids(emulator, "modelarts"), "an import never deletes the job"


def test_import_of_an_unknown_id_records_nothing(emulator: EmulatorHandle) -> None:
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    before = inprocess.platform_ids(emulator, "alaya")
    with pytest.raises(MltrainError):
        jobs.import_object("tt-does-not-exist", IMPORTER)
    assert inprocess.platform_ids(emulator, "alaya") == before


def test_the_survivor_is_this_resources_own_object_only(emulator: EmulatorHandle) -> None:
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    task_id, inputs = created(jobs, alaya_job_args(name="survivor", wait_for="created"))
    assert jobs.survivor(inputs) == task_id
    assert jobs.survivor({**inputs, **IMPORTER}) is None, "another resource's task is not ours to record"
    assert jobs.survivor({**inputs, "name": "never-made"}) is None

    algorithms = inprocess.handler(ALGORITHMS, emulator)
    algorithm_id, algorithm_inputs = created(algorithms, ALGORITHM)
    assert algorithms.survivor(algorithm_inputs) == algorithm_id  # found as an object, not an ID
    assert inprocess.entry(MOUNTS).handler().survivor({**OWNER, **MOUNT}) is None, "no remote object of its own"


def test_the_engine_timeout_is_the_deadline_unless_the_inputs_set_one(emulator: EmulatorHandle) -> None:
    emulator.admin.set_settings(task_state_delay=60)
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    checked = jobs.check({}, {**OWNER, **alaya_job_args(name="slow", wait_for="running")})
    started = time.monotonic()
    late = jobs.create(checked.inputs, timeout=2).unfinished  # recorded unfinished: the next up waits on
    assert late is not None and late.startswith("TrainingJob 'slow': ") and "was still QUEUED after" in late, late
    assert time.monotonic() - started < 15, "the engine's 2 s, not the default 20 min"

    given = jobs.check({}, {**OWNER, **alaya_job_args(name="slow-2", wait_for="running", timeouts={"create": 2})})
    started = time.monotonic()
    late = jobs.create(given.inputs, timeout=3600).unfinished
    assert late is not None and late.startswith("TrainingJob 'slow-2': ") and "was still QUEUED after" in late, late
    assert time.monotonic() - started < 15, "the `timeouts` input wins over the engine's timeout"


def test_the_account_of_an_explicit_provider_is_given_to_that_operation_only(emulator: EmulatorHandle) -> None:
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    explicit = {SETTINGS_KEY: {"alaya_endpoint": "http://127.0.0.1:9", "alaya_api_key": "other"}}
    assert jobs.platform(explicit).settings.alaya_endpoint == "http://127.0.0.1:9"
    assert jobs.settings.alaya_endpoint == emulator.url, "the configured account is unchanged"
    assert jobs.platform({}).settings.alaya_endpoint == emulator.url


def test_check_fills_in_the_program_sides_constant_defaults(emulator: EmulatorHandle) -> None:
    """The program side reads an input that was not given from its constant default (`_fixed_defaults`)
    instead of registering it: check must fill in exactly that value."""
    from pulumi_mltrain.alaya import StorageMount, TrainingJob
    from pulumi_mltrain.modelarts import Algorithm
    from pulumi_mltrain.modelarts import TrainingJob as ModelArtsJob

    algorithms = inprocess.handler(ALGORITHMS, emulator)
    algorithm_id, _ = created(algorithms, ALGORITHM)
    cases: list[tuple[Any, str, dict[str, Any]]] = [
        (TrainingJob, ALAYA_JOBS, alaya_job_args(name="fixed-defaults")),
        (StorageMount, MOUNTS, MOUNT),
        (Algorithm, ALGORITHMS, {**ALGORITHM, "name": "fixed-defaults"}),
        (ModelArtsJob, MODELARTS_JOBS, {"name": "fixed-defaults", "algorithm_id": algorithm_id,
                                        "flavor_id": d.FLAVOR_CPU_8U}),
    ]
    for cls, kind, args in cases:
        absent = cls._fixed_defaults() - set(args)
        assert absent, (cls, "the case leaves some out")
        checked = inprocess.handler(kind, emulator).check({}, {**OWNER, **args})
        assert checked.failures == (), (cls, checked.failures)
        assert {a: checked.inputs.get(a) for a in absent} == {a: cls._defaults[a] for a in absent}, cls


def test_a_check_of_unchanged_inputs_gives_back_exactly_the_stored_ones(emulator: EmulatorHandle) -> None:
    """The engine compares a step's checked inputs with the stored ones and, for any difference, writes its
    whole checkpoint after that step: a no-change preview or `up` of N resources would write N times."""
    algorithms = inprocess.handler(ALGORITHMS, emulator)
    algorithm_id, _ = created(algorithms, ALGORITHM)
    cases = {ALAYA_JOBS: alaya_job_args(name="same", wait_for="created"), MOUNTS: MOUNT, ALGORITHMS: ALGORITHM,
             MODELARTS_JOBS: {"name": "same-job", "algorithm_id": algorithm_id, "flavor_id": d.FLAVOR_CPU_8U,
                              "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}], "wait_for": "accepted"}}
    for kind, props in cases.items():
        handler = inprocess.handler(kind, emulator)
        _, stored = created(handler, props) if kind != ALGORITHMS else (algorithm_id, handler.check(
            {}, {**OWNER, **props}).inputs)
        for preview in ({}, {PREVIEW_KEY: True}):  # the dynamic form's program marks a preview's inputs
            again = handler.check(stored, {**OWNER, **props, **preview})
            assert again.failures == () and again.inputs == stored, (kind, preview, {
                k: (stored.get(k), again.inputs.get(k)) for k in {*stored, *again.inputs}
                if stored.get(k) != again.inputs.get(k)})

    # A replacement's inputs (from its second check, without the stored ones) come back as they are too.
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    props = alaya_job_args(name="again", wait_for="created")
    _, stored = created(jobs, props)
    jobs.check(stored, {**OWNER, **props})  # the check against the state leaves what a replace would be
    replacement = jobs.check({}, {**OWNER, **props}).inputs
    assert replacement[EXISTS_KEY] is True and ATTEMPT_KEY not in replacement
    assert jobs.check(replacement, {**OWNER, **props}).inputs == replacement


def test_a_targeted_replace_of_unchanged_inputs_makes_a_new_job(emulator: EmulatorHandle) -> None:
    """A create of the inputs a check against the state gave back unchanged (the stored ones) learns from
    what that check left that it replaces the job, which it never takes over. (The engine's `pulumi up
    --replace` checks a targeted replacement without its stored inputs, so nothing is left and its run
    records `first run`: docs/runs.md; test_forced_replace.py holds that its old job is never taken over.)"""
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    props = alaya_job_args(name="targeted", wait_for="created")
    old_id, stored = created(jobs, props)
    again = jobs.check(stored, {**OWNER, **props})
    assert again.inputs == stored
    made = jobs.create(again.inputs)
    assert made.failed is None and made.id != old_id
    assert made.outputs.get("run_reason", "").startswith("new run: replaces the previous run"), made.outputs
