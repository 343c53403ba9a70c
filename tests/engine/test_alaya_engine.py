"""Alaya NeW TrainingJob: up, preview, replace, refresh, destroy, secrets, bad input, adoption.

The engine runs hold what the engine decides: the quickstart's lifecycle (a no-change preview that
calls nothing, a replace, a refresh after an out-of-band delete, destroy), secrets in the state, the
distributed example, and that a check failure fails the preview naming the field. What the provider
decides (which fields a check refuses and why, the error a failed subscription gives, what an
adoption compares and records) runs in-process against the emulator.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest

from pulumi_mltrain.alaya.storage_mount import StorageMountProvider
from pulumi_mltrain.alaya.training_job import TrainingJobProvider as AlayaJobs
from pulumi_mltrain.emulator import catalog, defaults
from pulumi_mltrain.errors import MltrainError
from support import inprocess
from support.pulumi_cli import ROOT, change_counts
from support.stacks import alaya_job_args as job_args

TASK = "dynamic/alaya:TrainingJob"


def live_tasks(emulator: Any) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


def alaya(emulator: Any) -> httpx.Client:
    return httpx.Client(base_url=emulator.url, headers={"Authorization": f"Bearer {defaults.DEFAULT_ALAYA_API_KEY}"})


@pytest.mark.engine
@pytest.mark.slow
def test_quickstart_lifecycle(emulator: Any, alaya_stack: Any) -> None:
    stack = alaya_stack(ROOT / "examples" / "quickstart")

    stack.up()
    outputs = stack.outputs()
    tasks = live_tasks(emulator)
    assert [t["id"] for t in tasks] == [outputs["training_task_id"]]
    assert outputs["result_key"], "the subscription result key is recorded"
    assert tasks[0]["storageConfigs"][0]["mountPath"] == "/root/nas/datasets"

    # A second preview changes nothing, and makes no API call for the unchanged resources.
    before = emulator.admin.requests()
    counts = change_counts(stack.preview_json())
    assert set(counts) == {"same"}, counts
    after = emulator.admin.requests()
    assert after.get("total") == before.get("total"), "a no-change preview must not call the platform"

    # A new image replaces the task: exactly one task remains, with a new ID and the new image.
    stack.set_config("image", "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu")
    preview = stack.preview()
    assert "replace" in preview.stdout
    stack.up()
    new_id = stack.outputs()["training_task_id"]
    tasks = live_tasks(emulator)
    assert new_id != outputs["training_task_id"]
    assert [t["id"] for t in tasks] == [new_id]
    assert tasks[0]["image"].endswith("pytorch:2.4.0-gpu")

    # Out-of-band deletion: refresh drops the task from the state.
    with alaya(emulator) as api:
        assert api.post(f"/v1/training/instance/{new_id}/stop").json()["status"] == 200
        assert api.delete(f"/v1/training/instance/{new_id}/delete").json()["status"] == 200
    emulator.admin.advance(5)
    stack.refresh()
    assert stack.resources(TASK) == []

    # up recreates it; destroy leaves nothing behind on the platform.
    stack.up()
    assert len(live_tasks(emulator)) == 1
    stack.destroy()
    assert live_tasks(emulator) == []
    assert stack.resources(TASK) == []


@pytest.mark.engine
@pytest.mark.slow
def test_api_key_never_in_state(emulator: Any, alaya_stack: Any) -> None:
    stack = alaya_stack(job=job_args(image_type="private"))
    stack.set_config("secretEnv", json.dumps({"WANDB_API_KEY": "wandb-secret-value-123"}), secret=True)
    stack.up()
    exported = json.dumps(stack.export())
    key = defaults.DEFAULT_ALAYA_API_KEY
    assert key not in exported
    assert "wandb-secret-value-123" not in exported, "a secret env value stays encrypted in the state"
    with alaya(emulator) as api:
        detail = api.get(f"/v1/training/instance/{stack.outputs()['training_task_id']}/detail").json()["data"]
    pull_password = detail["imagePullSecret"]["password"]
    assert pull_password and pull_password not in exported, "the image-pull password is scrubbed from outputs"
    assert "imagePullSecret" not in exported
    for resource in stack.resources(TASK):
        blob = resource["inputs"]["__provider"]
        decoded = base64.b64decode(blob)
        assert key.encode() not in decoded
        assert len(decoded) < 512, "the pickled provider is a class reference, not captured state"
        assert resource["outputs"]["env"]["WANDB_API_KEY"].get("4dabf18193072939515e22adb298388d") == \
            "1b47061264138c4ac30d75fd1eb44270", "the env output is secret"
    stack.destroy()


def jobs(emulator: Any, **config: str) -> AlayaJobs:
    return inprocess.configured(AlayaJobs(), "alaya", emulator, **config)


def refused(provider: Any, props: dict[str, Any], name: str | None = "job") -> str:
    """What `check` refuses, one `property: reason` a line: what a preview prints."""
    named = {} if name is None else {"name": name}
    return "\n".join(f"{f}: {r}" for f, r in inprocess.failures(provider, {**inprocess.OWNER, **named, **props}))


def test_failed_subscription_is_a_clear_error(emulator: Any) -> None:
    # The catalogue read at preview still shows stock (it sold out since); the subscription then fails.
    rows = [{**r, "remainingCount": 3, "ext": {}} for r in catalog.products()]
    emulator.admin.set_faults([{"method": "GET", "path": "/v1/product/list-for-training-task", "kind": "respond",
                                "body": {"status": 200, "message": "OK", "data": rows}}])
    provider = jobs(emulator)
    inputs = inprocess.checked(provider, {**inprocess.OWNER, "name": "job",
                                          **job_args(product_code=defaults.PRODUCT_SOLDOUT)})
    with pytest.raises(MltrainError) as failed:
        provider.create(inputs)  # raises: the engine records nothing
    assert str(failed.value).startswith("TrainingJob 'job': "), str(failed.value)
    assert "insufficient stock" in str(failed.value).lower()
    assert live_tasks(emulator) == []


MOUNT = {"storage_id": defaults.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
         "file_directory": "d", "mount_path": "/data"}


@pytest.mark.engine
@pytest.mark.slow
def test_a_preview_names_bad_fields(emulator: Any, alaya_stack: Any) -> None:
    """A check failure fails `pulumi preview`, naming each field (the reasons: `test_check_names_bad_fields`)."""
    stack = alaya_stack(job=job_args(worker_count=0, priority=9, product_code="PRD-NOPE",
                                     storage_mounts=[MOUNT, {**MOUNT, "mount_path": "/data/"}]))
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "worker_count" in output and "priority" in output


def test_check_names_bad_fields(emulator: Any) -> None:
    provider = jobs(emulator)
    output = refused(provider, job_args(worker_count=0, priority=9, product_code="PRD-NOPE",
                                        storage_mounts=[MOUNT, {**MOUNT, "mount_path": "/data/"}]))
    assert "worker_count" in output and "priority" in output

    output = refused(provider, job_args(product_code="PRD-NOPE",
                                        storage_mounts=[MOUNT, {**MOUNT, "mount_path": "/data/"}]))
    assert "product_code" in output and "PRD-NOPE is not offered" in output
    assert "storage_mounts[1].mount_path" in output


def test_missing_storage_fails_at_preview(emulator: Any) -> None:
    missing = "00000000-dead-beef-0000-000000000000"
    mount = {**MOUNT, "storage_id": missing}
    # As a StorageMount resource ...
    output = refused(inprocess.configured(StorageMountProvider(), "alaya", emulator), mount, name=None)
    assert output.startswith("storage_id: ") and missing in output, output
    # ... and as an inline mount of the job.
    output = refused(jobs(emulator), job_args(storage_mounts=[mount]))
    assert f"storage_mounts[0].storage_id storage {missing} does not exist" in output, output
    assert live_tasks(emulator) == []


@pytest.mark.engine
@pytest.mark.slow
def test_alaya_distributed_example(emulator: Any, alaya_stack: Any) -> None:
    stack = alaya_stack(ROOT / "examples" / "alaya-distributed")
    stack.up()
    outputs = stack.outputs()
    tasks = {t["id"]: t for t in live_tasks(emulator)}
    assert set(tasks) == {outputs["sft_task_id"], outputs["eval_task_id"]}
    sft = tasks[outputs["sft_task_id"]]
    assert (sft["workerCount"], sft["productCode"], sft["maxRetryCount"], sft["timeoutHours"]) == \
        (4, "PRD-TRAIN-1", 3, 24)
    mounts = [t["storageConfigs"][0] for t in tasks.values()]
    assert mounts[0] == mounts[1] and mounts[0]["onlyRead"] is True
    assert set(change_counts(stack.preview_json())) == {"same"}
    stack.destroy()
    assert live_tasks(emulator) == []


def test_adopt_an_existing_task(emulator: Any) -> None:
    args = job_args(name="legacy-sft")
    with alaya(emulator) as api:
        body = {"name": "legacy-sft", "createType": "DIRECT", "productCode": args["product_code"],
                "workerCount": args["worker_count"], "image": args["image"], "trainingFramwork": "pytorch",
                "startCommand": args["start_command"], "enableTimeoutCancel": True, "timeoutHours": 12}
        key = api.post("/v1/subscription/training/create", json=body).json()["data"]
        emulator.admin.advance(5)
        result = api.get("/v1/subscription/training/result", params={"resultKey": key}).json()["data"]
        task_id = result["trainingTaskId"]
    creates = emulator.admin.requests()["endpoints"]["POST /v1/subscription/training/create"]

    # A declaration that differs is refused with the differences (the create raises: nothing enters
    # the state), and the task is unchanged.
    with pytest.raises(MltrainError) as failed:
        inprocess.Created(jobs(emulator), {**args, "adopt_id": task_id, "worker_count": 8}, name=None)
    assert "worker_count: declared 8, platform has 2" in str(failed.value)
    assert [(t["id"], t["workerCount"]) for t in live_tasks(emulator)] == [(task_id, 2)]

    # The matching declaration takes the task into the state without creating anything.
    adopted = inprocess.Created(jobs(emulator), {**args, "adopt_id": task_id}, name=None)
    assert adopted.id == task_id
    assert emulator.admin.requests()["endpoints"]["POST /v1/subscription/training/create"] == creates
    assert [t["id"] for t in live_tasks(emulator)] == [task_id]

    # After adoption and after a refresh, a preview shows no changes.
    assert not adopted.preview()[1].changes
    adopted.refresh()
    assert not adopted.preview()[1].changes
    adopted.provider.delete(adopted.id, adopted.state)
    assert live_tasks(emulator) == []
