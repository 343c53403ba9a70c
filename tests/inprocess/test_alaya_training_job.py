"""Alaya NeW TrainingJob and StorageMount in-process against the emulator: which fields a check refuses and
why, the error a failed subscription gives, what an adoption compares and records. The engine's part (one
stack through up, preview, refresh and destroy) is tests/engine/test_alaya_engine.py."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mltrain_emulator import catalog, defaults
from pulumi_mltrain.errors import MltrainError
from support import inprocess
from support.inprocess import AnyHandler
from support.stacks import alaya_job_args as job_args


def live_tasks(emulator: Any) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


def alaya(emulator: Any) -> httpx.Client:
    return httpx.Client(base_url=emulator.url, headers={"Authorization": f"Bearer {defaults.DEFAULT_ALAYA_API_KEY}"})


def jobs(emulator: Any, **config: str) -> AnyHandler:
    return inprocess.handler("alaya:TrainingJob", emulator, **config)


def refused(handler: AnyHandler, props: dict[str, Any], name: str | None = "job") -> str:
    """What `check` refuses, one `property: reason` a line: what a preview prints."""
    named = {} if name is None else {"name": name}
    return "\n".join(f"{f}: {r}" for f, r in inprocess.failures(handler, {**inprocess.OWNER, **named, **props}))


def test_failed_subscription_is_a_clear_error(emulator: Any) -> None:
    # The catalogue read at preview still shows stock (it sold out since); the subscription then fails.
    rows = [{**r, "remainingCount": 3, "ext": {}} for r in catalog.products()]
    emulator.admin.set_faults([{"method": "GET", "path": "/v1/product/list-for-training-task", "kind": "respond",
                                "body": {"status": 200, "message": "OK", "data": rows}}])
    handler = jobs(emulator)
    inputs = inprocess.checked(handler, {**inprocess.OWNER, "name": "job",
                                         **job_args(product_code=defaults.PRODUCT_SOLDOUT)})
    with pytest.raises(MltrainError) as failed:
        handler.create(inputs)  # raises: the engine records nothing
    assert str(failed.value).startswith("TrainingJob 'job': "), str(failed.value)
    assert "insufficient stock" in str(failed.value).lower()
    assert live_tasks(emulator) == []


MOUNT = {"storage_id": defaults.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
         "file_directory": "d", "mount_path": "/data"}


def test_check_names_bad_fields(emulator: Any) -> None:
    handler = jobs(emulator)
    output = refused(handler, job_args(worker_count=0, priority=9, product_code="PRD-NOPE",
                                       storage_mounts=[MOUNT, {**MOUNT, "mount_path": "/data/"}]))
    assert "worker_count" in output and "priority" in output

    # A relative mount path, of a StorageMount (the engine's preview of it: test_errors.py, for a task's mount).
    mounts = inprocess.handler("alaya:StorageMount", emulator)
    output = refused(mounts, {**MOUNT, "mount_path": "mnt/datasets"}, name=None)
    assert output.startswith("mount_path: StorageMount: mount_path ") and "absolute" in output, output

    output = refused(handler, job_args(product_code="PRD-NOPE",
                                       storage_mounts=[MOUNT, {**MOUNT, "mount_path": "/data/"}]))
    assert "product_code" in output and "PRD-NOPE is not offered" in output
    assert "storage_mounts[1].mount_path" in output


def test_missing_storage_fails_at_preview(emulator: Any) -> None:
    missing = "00000000-dead-beef-0000-000000000000"
    mount = {**MOUNT, "storage_id": missing}
    # As a StorageMount resource ...
    output = refused(inprocess.handler("alaya:StorageMount", emulator), mount, name=None)
    assert output.startswith("storage_id: ") and missing in output, output
    # ... and as an inline mount of the job.
    output = refused(jobs(emulator), job_args(storage_mounts=[mount]))
    assert f"storage_mounts[0].storage_id storage {missing} does not exist" in output, output
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
    adopted.delete()
    assert live_tasks(emulator) == []
