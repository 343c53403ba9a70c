"""Huawei's official Python SDK (huaweicloudsdkmodelarts) against the emulator and the provider: a create body
built from the SDK's own models with the scheduling, notification and access fields is accepted, and a job the
provider made with the same values reads back through the SDK's response model with those values."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.config import Settings
from pulumi_mltrain.modelarts.wire import contract
from pulumi_mltrain.modelarts.wire.client import ModelArtsClient
from support import inprocess
from support.runs import moment

# The SDK is imported where it is used: its import costs about 0.3 CPU-s, which every xdist worker
# would otherwise pay while collecting.
if TYPE_CHECKING:
    from huaweicloudsdkmodelarts.v1 import Job

TOPIC = "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts"
EVENTS = ["JobStarted", "JobFailed", "JobHanged", "JobPreempted"]
ANNOTATIONS = {contract.RETRY_ANNOTATION: "2", contract.UNCONDITIONAL_RETRY_ANNOTATION: "true",
               contract.HANG_RETRY_ANNOTATION: "true"}


pytestmark = pytest.mark.usefixtures("quick")


@pytest.fixture
def settings(emulator: EmulatorHandle) -> Settings:
    return inprocess.settings("modelarts", emulator)


@pytest.fixture(autouse=True)
def full_detail(emulator: EmulatorHandle) -> None:
    """The SDK's models describe the reference's full job detail (annotations included), which the real
    platform shortens (api.md B.6 #8): these tests compare shapes, so the emulator answers in full."""
    emulator.admin.set_settings(modelarts_full_detail=True)


def serialized(value: Any) -> Any:
    """`value` as the SDK's client serialises a request body."""
    from huaweicloudsdkcore.utils.http_utils import sanitize_for_serialization

    return sanitize_for_serialization(value)


def sdk_job(name: str) -> Job:
    """A create request written with the SDK's models only."""
    from huaweicloudsdkmodelarts.v1 import (
        Job,
        JobAlgorithm,
        JobEndpointsReq,
        JobEngine,
        JobMetadata,
        Notification,
        RequiredAffinity,
        SchedulePolicy,
        Spec,
        SpecResource,
        SSHReq,
    )

    return Job(
        kind="job",
        metadata=JobMetadata(name=name, annotations=dict(ANNOTATIONS)),
        algorithm=JobAlgorithm(code_dir="/b/code/", boot_file="/b/code/train.py",
                               engine=JobEngine(engine_name=d.ENGINE_PYTORCH[0], engine_version=d.ENGINE_PYTORCH[1])),
        spec=Spec(
            resource=SpecResource(flavor_id=d.FLAVOR_CPU_8U, node_count=1, pool_id="pool-a100"),
            schedule_policy=SchedulePolicy(
                priority=2, preemptible=True,
                required_affinity=RequiredAffinity(affinity_type="networkTopology", affinity_group_size=2,
                                                   job_level="cluster", affinity_group_level="hyperinstance")),
            notification=Notification(topic_urn=TOPIC, events=list(EVENTS)),
        ),
        endpoints=JobEndpointsReq(ssh=SSHReq(key_pair_names=["kp-debug"])),
    )


def read_through_sdk(api: ModelArtsClient, job_id: str) -> Any:
    """GET the job over HTTP and deserialise it with the SDK's response model, as its client does."""
    from huaweicloudsdkcore.client import Client

    answer = httpx.get(f"{api.http.base_url}/v2/{api.project_id}/training-jobs/{job_id}",
                       headers={"X-Auth-Token": api.auth.token()}, timeout=10)  # type: ignore[union-attr]
    assert answer.status_code == 200, answer.text
    client = Client()
    client.model_package = importlib.import_module("huaweicloudsdkmodelarts.v1.model")
    return client._deserialize(answer.json(), "ShowTrainingJobDetailsResponse")


def test_a_create_built_from_the_sdk_models_is_accepted(settings: Settings) -> None:
    api = ModelArtsClient(settings)
    body = serialized(sdk_job("sdk-made"))
    assert body["spec"]["notification"] == {"topic_urn": TOPIC, "events": EVENTS}
    answer = httpx.post(f"{api.http.base_url}/v2/{api.project_id}/training-jobs", json=body,
                        headers={"X-Auth-Token": api.auth.token()}, timeout=10)  # type: ignore[union-attr]
    assert answer.status_code == 201, answer.text
    job = read_through_sdk(api, answer.json()["metadata"]["id"])
    assert job.spec.schedule_policy.preemptible is True and job.spec.schedule_policy.priority == 2
    assert job.spec.schedule_policy.required_affinity.affinity_group_level == "hyperinstance"
    assert job.endpoints.ssh.key_pair_names == ["kp-debug"]
    assert {k: job.metadata.annotations[k] for k in ANNOTATIONS} == ANNOTATIONS


def test_a_job_made_by_the_provider_reads_back_through_the_sdk(emulator: EmulatorHandle) -> None:
    jobs = inprocess.handler("modelarts:TrainingJob", emulator)
    inputs = inprocess.checked(jobs, {
        "__mltrain_stack": "st-sdk", "__mltrain_urn": "urn:pulumi:test::sdk::pulumi-python:dynamic/x:Y::job",
        "name": "ours", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
        "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "flavor_id": d.FLAVOR_CPU_8U,
        "pool_id": "pool-a100", "priority": 2, "preemptible": True, "retry_count": 2,
        "unconditional_retry": True, "hang_retry": True, "ssh_key_pair_names": ["kp-debug"],
        "required_affinity": {"affinity_type": "networkTopology", "affinity_group_size": 2, "job_level": "cluster",
                              "affinity_group_level": "hyperinstance"},
        "notification": {"topic_urn": TOPIC, "events": EVENTS}, "wait_for": "completed",
    })
    created = jobs.create(inputs)
    job = read_through_sdk(jobs.platform({}).client, created.id)
    expected = serialized(sdk_job("ours"))
    assert serialized(job.spec.schedule_policy) == expected["spec"]["schedule_policy"]
    assert serialized(job.endpoints.ssh) == {"key_pair_names": ["kp-debug"]}
    assert {k: job.metadata.annotations[k] for k in ANNOTATIONS} == ANNOTATIONS
    # The SDK's SpecResponse has no notification: the raw answer carries it as the request wrote it.
    raw = jobs.platform({}).client.job(created.id)
    assert raw["spec"]["notification"] == expected["spec"]["notification"]
    # Finished-run facts the SDK documents: start time, duration and each task's exit code.
    assert int(moment(created.outputs["start_time"]).timestamp()) == job.status.start_time // 1000
    assert job.status.duration == created.outputs["duration_ms"]
    assert [(t.task, t.exit_code) for t in job.status.task_statuses] == [("worker-0", 0)]
