"""ModelArts scheduling, notification and access fields and the finished-run outputs, in process against the
emulator: preview validation, the wire shapes Huawei documents, read-back without drift, replace semantics."""

from __future__ import annotations

from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.errors import ApiError
from pulumi_mltrain.modelarts.wire import contract
from support import inprocess
from support.inprocess import AnyHandler
from support.runs import assert_end_is_start_plus_duration, moment

OWNER = {"__mltrain_stack": "st-unit", "__mltrain_urn": "urn:pulumi:test::unit::pulumi-python:dynamic/x:Y::job"}
TOPIC = "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts"
NEW_FIELDS: dict[str, Any] = {
    "pool_id": "pool-a100", "preemptible": True,
    "required_affinity": {"affinity_type": "networkTopology", "affinity_group_size": 4, "job_level": "cluster",
                          "affinity_group_level": "hyperinstance"},
    "notification": {"topic_urn": TOPIC, "events": ["JobFailed", "JobHanged"]},
    "ssh_key_pair_names": ["kp-debug"], "unconditional_retry": True, "hang_retry": False,
}


pytestmark = pytest.mark.usefixtures("quick")


@pytest.fixture
def jobs(emulator: EmulatorHandle) -> AnyHandler:
    return inprocess.handler("modelarts:TrainingJob", emulator, **{"mltrain:maxRetries": "2"})


def props(**changes: Any) -> dict[str, Any]:
    out = {**OWNER, "name": "job", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
           "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "flavor_id": d.FLAVOR_CPU_8U}
    out.update(changes)
    return {k: v for k, v in out.items() if v is not None}


def failures(handler: AnyHandler, values: dict[str, Any]) -> dict[str, str]:
    return dict(inprocess.failures(handler, values))


def stored(emulator: EmulatorHandle, job_id: str) -> dict[str, Any]:
    return dict(next(j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == job_id))


def test_preview_names_the_field_and_the_reason(jobs: AnyHandler) -> None:
    assert failures(jobs, props(**NEW_FIELDS)) == {}
    bad_event = failures(jobs, props(notification={"topic_urn": TOPIC, "events": ["JobFailed", "JobExploded"]}))
    assert bad_event == {"notification.events": "TrainingJob: notification.events has unknown event(s) JobExploded; "
                         "ModelArts reports JobStarted, JobCompleted, JobFailed, JobTerminated, JobRestarted, "
                         "JobHanged, JobPreempted"}
    bad_urn = failures(jobs, props(notification={"topic_urn": "arn:aws:sns:x", "events": ["JobFailed"]}))
    assert list(bad_urn) == ["notification.topic_urn"]
    assert "notification.events" in failures(jobs, props(notification={"topic_urn": TOPIC, "events": []}))
    twice = failures(jobs, props(notification={"topic_urn": TOPIC, "events": ["JobFailed", "JobFailed"]}))
    assert "JobFailed more than once" in twice["notification.events"]
    no_pool = failures(jobs, props(**{**NEW_FIELDS, "pool_id": None}))
    assert {k: v.split(": ", 1)[1] for k, v in no_pool.items()} == {
        "preemptible": "preemptible needs a dedicated pool: set pool_id",
        "required_affinity": "required_affinity needs a dedicated pool: set pool_id"}
    assert failures(jobs, props(preemptible=False)) == {}, "a job that may not be preempted needs no pool"
    size = failures(jobs, props(pool_id="p", required_affinity={"affinity_type": "hyperinstance"}))
    assert "affinity_group_size is required with affinity_type hyperinstance" in size["required_affinity"]
    level = failures(jobs, props(pool_id="p", required_affinity={"affinity_type": "cabinet", "job_level": "cluster"}))
    assert "apply only to affinity_type networkTopology" in level["required_affinity"]
    keys = failures(jobs, props(ssh_key_pair_names=["kp-1", "kp 2", "kp-1"]))
    assert set(keys) == {"ssh_key_pair_names[1]", "ssh_key_pair_names[2]"} and "listed twice" in \
        keys["ssh_key_pair_names[2]"]


def test_created_as_huawei_writes_it_read_back_without_drift(emulator: EmulatorHandle,
                                                             jobs: AnyHandler) -> None:
    inputs = inprocess.checked(jobs, props(**NEW_FIELDS, retry_count=2, priority=2))
    created = jobs.create(inputs)
    job = stored(emulator, created.id)
    assert job["spec"]["schedule_policy"] == {"priority": 2, "preemptible": True,
                                              "required_affinity": NEW_FIELDS["required_affinity"]}
    assert job["spec"]["notification"] == NEW_FIELDS["notification"]
    assert job["endpoints"] == {"ssh": {"key_pair_names": ["kp-debug"]}}
    annotations = job["metadata"]["annotations"]
    assert annotations[contract.UNCONDITIONAL_RETRY_ANNOTATION] == "true"
    assert annotations[contract.HANG_RETRY_ANNOTATION] == "false"
    assert annotations[contract.RETRY_ANNOTATION] == "2"

    assert inprocess.read(jobs, created.id, created.outputs).inputs is None, "no drift: the stored inputs stand"
    read = inprocess.read(jobs, created.id, {**inputs, **created.outputs})  # as the plugin's read: what it gives
    for field in NEW_FIELDS:
        assert read.inputs[field] == inputs[field], field
    assert read.inputs["run_reason"] == created.outputs["run_reason"], "the stored inputs keep the run's reason"
    # The run's reason and the derived GPU figures are the state's, not arguments.
    declared = {k: v for k, v in read.inputs.items()
                if k != "run_reason" and (k in jobs.spec_type.model_fields or k.startswith("__"))}
    assert not jobs.diff(created.outputs, inprocess.checked(jobs, declared), created.id).changes
    # Every new field is fixed at create (ModelArts updates only the description): a change replaces.
    for field, value in {"preemptible": False, "notification": {"topic_urn": TOPIC, "events": ["JobFailed"]},
                         "required_affinity": {"affinity_type": "cabinet"}, "ssh_key_pair_names": ["kp-other"],
                         "unconditional_retry": False, "hang_retry": True}.items():
        news = inprocess.checked(jobs, props(**{**NEW_FIELDS, field: value}, retry_count=2, priority=2))
        assert jobs.diff(created.outputs, news, created.id).replaces == (field,), field


def test_the_emulator_checks_shapes_as_the_platform_would(jobs: AnyHandler) -> None:
    declared = {k: v for k, v in props(**NEW_FIELDS).items() if k not in OWNER}
    body = jobs.spec_type.model_validate(declared).wire()
    cases = {
        "spec.notification.events": lambda b: b["spec"]["notification"].update(events=["JobExploded"]),
        "spec.notification.topic_urn": lambda b: b["spec"]["notification"].update(topic_urn="nope"),
        "spec.schedule_policy.preemptible": lambda b: b["spec"]["schedule_policy"].update(preemptible="yes"),
        "need a dedicated pool": lambda b: b["spec"]["resource"].pop("pool_id"),
        "affinity_type": lambda b: b["spec"]["schedule_policy"]["required_affinity"].update(affinity_type="rack"),
        "endpoints.ssh.key_pair_names": lambda b: b["endpoints"]["ssh"].update(key_pair_names="kp"),
        contract.HANG_RETRY_ANNOTATION: lambda b: b["metadata"]["annotations"].update(
            {contract.HANG_RETRY_ANNOTATION: True}),
    }
    for words, spoil in cases.items():
        bad = {**body, "spec": {**body["spec"], "resource": dict(body["spec"]["resource"]),
                                "notification": dict(body["spec"]["notification"]),
                                "schedule_policy": {**body["spec"]["schedule_policy"], "required_affinity": dict(
                                    body["spec"]["schedule_policy"]["required_affinity"])}},
               "endpoints": {"ssh": dict(body["endpoints"]["ssh"])},
               "metadata": {**body["metadata"], "annotations": dict(body["metadata"]["annotations"])}}
        spoil(bad)
        with pytest.raises(ApiError) as err:
            jobs.platform({}).client.create_job(bad)
        assert err.value.http_status == 400 and words in str(err.value), (words, str(err.value))


def test_finished_run_outputs(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    created = jobs.create(inprocess.checked(jobs, props(wait_for="completed", node_count=2)))
    outs = inprocess.read(jobs, created.id, created.outputs).outputs
    status = stored(emulator, created.id)
    assert outs["phase"] == "Completed" and outs["duration_ms"] > 0
    assert moment(outs["start_time"]).timestamp() * 1000 >= outs["create_time"] - 999
    assert_end_is_start_plus_duration(outs)
    assert outs["task_statuses"] == [{"task": "worker-0", "exit_code": 0, "message": None},
                                     {"task": "worker-1", "exit_code": 0, "message": None}], status
    # Still running: a start, no end and no task statuses yet.
    emulator.admin.set_settings(modelarts_run_seconds=600)
    running = jobs.create(inprocess.checked(jobs, props(name="later", wait_for="running")))
    assert moment(running.outputs["start_time"])
    # Outputs without a value yet are absent from the state (`Handler._present`), which SDKs read as null.
    assert "end_time" not in running.outputs and "task_statuses" not in running.outputs
