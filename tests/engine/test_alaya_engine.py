"""Alaya NeW TrainingJob: up, preview, replace, refresh, destroy, secrets, bad input, adoption.

One engine stack holds what the engine decides, in seven commands: the alaya-distributed example's
lifecycle (a no-change preview that calls nothing, a replace, a refresh after an out-of-band delete,
destroy), secrets in the state, the refresh and repair of a drifted task, and a refused key failing the
preview. That a check failure fails the preview naming each field is held by test_errors.py. What the
provider decides (which fields a check refuses and why, the error a failed subscription gives, what an
adoption compares and records) runs in-process against the emulator.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
from test_drift import ALAYA_DECLARED, REPLACE_OPS, assert_alaya_repaired, assert_refreshed, patch_alaya_task

from mltrain_emulator import catalog, defaults
from pulumi_mltrain.alaya.storage_mount import StorageMountProvider
from pulumi_mltrain.alaya.training_job import TrainingJobProvider as AlayaJobs
from pulumi_mltrain.alaya.training_job import TrainingJobSpec as AlayaJobSpec
from pulumi_mltrain.errors import MltrainError
from support import inprocess
from support.drift import spec_inputs
from support.pulumi_cli import ROOT, change_counts
from support.stacks import alaya_job_args as job_args
from support.stacks import by_name, ops_by_name

TASK = "dynamic/alaya:TrainingJob"


def live_tasks(emulator: Any) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


def alaya(emulator: Any) -> httpx.Client:
    return httpx.Client(base_url=emulator.url, headers={"Authorization": f"Bearer {defaults.DEFAULT_ALAYA_API_KEY}"})


SUITE = ROOT / "tests" / "engine" / "programs" / "alaya_suite"
DISTRIBUTED = ROOT / "examples" / "alaya-distributed" / "__main__.py"
IMAGE_2_4 = "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu"
SECRET = "wandb-secret-value-123"


@pytest.mark.engine
@pytest.mark.slow
def test_alaya_stack_lifecycle_secrets_drift_and_a_refused_key(emulator: Any, alaya_stack: Any) -> None:
    """One stack, seven engine commands: the alaya-distributed example (a shared read-only mount, a 4-node
    and a 1-node task; its own `__main__.py`), a task with a private image and a secret env value, and a
    task whose every input drifts. Each section says which guarantee it holds and which former test it
    replaces; what the provider decides runs in-process (this file's and test_drift.py's other tests)."""
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2, delete_delay=0.2)
    secrets = {"mltrain:alayaApiKey": "not-the-key", "secretEnv": {"private": {"WANDB_API_KEY": SECRET}}}
    stack = alaya_stack(SUITE, secrets, example=str(DISTRIBUTED),
                        jobs={"private": job_args(image_type="private"), "drift": ALAYA_DECLARED})

    # --- A refused key fails `pulumi preview`, naming the keys to fix, without printing the key (was
    # test_preview_truth.py::test_a_refused_alaya_key_fails_the_preview; that mltrain:skipCredentialCheck
    # lets the check pass is the provider's: test_preview_truth.py::test_a_refused_alaya_key_fails_the_check).
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, "refused key: " + output[-3000:]
    assert "401" in output and "mltrain:alayaApiKey" in output and "mltrain:skipCredentialCheck" in output, \
        "refused key: " + output[-3000:]
    assert "not-the-key" not in output, "refused key: the key is printed"
    assert live_tasks(emulator) == [], "refused key: a preview creates nothing"
    stack.set_config("mltrain:alayaApiKey", emulator.alaya_api_key, secret=True)

    stack.up()
    outputs = stack.outputs()
    exported = stack.export()
    state = by_name(exported)
    tasks = {t["id"]: t for t in live_tasks(emulator)}
    sft_id, eval_id, private_id, drift_id = (outputs["sft_task_id"], outputs["eval_task_id"], outputs["private_id"],
                                             outputs["drift_id"])

    # --- The distributed example as declared (was test_alaya_distributed_example, and the first part of
    # test_quickstart_lifecycle: one task per resource, the mount reaches the tasks, the result key is recorded).
    assert set(tasks) == {sft_id, eval_id, private_id, drift_id}, "example: one task per resource"
    sft = tasks[sft_id]
    assert (sft["workerCount"], sft["productCode"], sft["maxRetryCount"], sft["timeoutHours"]) == \
        (4, "PRD-TRAIN-1", 3, 24), "example: the sft task as declared"
    mounts = [tasks[i]["storageConfigs"][0] for i in (sft_id, eval_id)]
    assert mounts[0] == mounts[1] and mounts[0]["onlyRead"] is True, "example: one shared read-only mount"
    assert mounts[0]["mountPath"] == "/root/nas/", "example: the mount path reaches the task"
    assert state["llama3-8b-sft"]["outputs"]["result_key"], "example: the subscription result key is recorded"

    # --- Where the program declares it: a job's source position (what Pulumi Cloud and editors link to) is
    # the line of the example's `alaya.TrainingJob(`, not the package's generated class.
    position = state["llama3-8b-sft"]["sourcePosition"]
    assert position.endswith("/__main__.py#21") and "pulumi_mltrain" not in position, position
    assert "pulumi_mltrain" not in json.dumps(state["llama3-8b-sft"]["stackTrace"][0]), "the stack's top frame"

    # --- Secrets in the state (was test_api_key_never_in_state): neither the API key nor a secret env value
    # nor the image-pull password is in the state; the pickled provider is a class reference.
    text = json.dumps(exported)
    key = defaults.DEFAULT_ALAYA_API_KEY
    assert key not in text, "secrets: the API key is in the state"
    assert SECRET not in text, "secrets: a secret env value must stay encrypted in the state"
    with alaya(emulator) as api:
        detail = api.get(f"/v1/training/instance/{private_id}/detail").json()["data"]
    pull_password = detail["imagePullSecret"]["password"]
    assert pull_password and pull_password not in text, "secrets: the image-pull password is scrubbed from outputs"
    assert "imagePullSecret" not in text
    for name in ("llama3-8b-sft", "llama3-8b-eval", "private", "drift"):
        decoded = base64.b64decode(state[name]["inputs"]["__provider"])
        assert key.encode() not in decoded, f"secrets: the API key is in the pickled provider of {name}"
        assert len(decoded) < 512, "secrets: the pickled provider is a class reference, not captured state"
    assert state["private"]["outputs"]["env"]["WANDB_API_KEY"].get("4dabf18193072939515e22adb298388d") == \
        "1b47061264138c4ac30d75fd1eb44270", "secrets: the env output is secret"

    # --- Out of band: every remote input of `drift` is changed (as in the console), the sft task is stopped
    # and deleted; and the program asks for a new image (the example's `image`), which replaces its tasks.
    before = spec_inputs(state["drift"], AlayaJobSpec)
    expected = patch_alaya_task(emulator, drift_id, before)
    with alaya(emulator) as api:
        assert api.post(f"/v1/training/instance/{sft_id}/stop").json()["status"] == 200
        assert api.delete(f"/v1/training/instance/{sft_id}/delete").json()["status"] == 200
    emulator.admin.advance(5)
    stack.set_config("image", IMAGE_2_4)

    # --- Refresh (was test_quickstart_lifecycle's refresh and test_drift.py::test_alaya_drift_through_the_engine):
    # a task deleted out of band leaves the state; the drifted task's state holds the platform's values.
    stack.refresh()
    state = by_name(stack.export())
    assert "llama3-8b-sft" not in state, "refresh: a task deleted out of band must leave the state"
    assert_refreshed(before, spec_inputs(state["drift"], AlayaJobSpec), expected)

    # --- The preview plans the repair and the replace: the drifted task and the task of a new image are
    # replaced, the deleted one is created again, the others are left as they are.
    ops = ops_by_name(stack.preview_json())
    assert ops.get("drift", set()) & REPLACE_OPS, f"drift: the preview must replace the drifted task: {ops}"
    assert ops.get("llama3-8b-eval", set()) & REPLACE_OPS, f"replace: a new image must replace the task: {ops}"
    assert ops.get("llama3-8b-sft") == {"create"}, f"refresh: a task deleted out of band is created again: {ops}"
    assert not {"private", "datasets"} & set(ops), f"nothing else changes: {ops}"

    # --- up: the replaced task leaves exactly one task with a new ID and the new image; the deleted one is
    # back; the drifted one holds the declared inputs again.
    stack.up()
    outputs = stack.outputs()
    new_sft, new_eval, new_drift = outputs["sft_task_id"], outputs["eval_task_id"], outputs["drift_id"]
    tasks = {t["id"]: t for t in live_tasks(emulator)}
    assert eval_id not in tasks and new_eval != eval_id, "replace: the replaced task must be gone"
    assert set(tasks) == {new_sft, new_eval, private_id, new_drift}, "replace: exactly one task per resource"
    assert tasks[new_eval]["image"].endswith("pytorch:2.4.0-gpu") and tasks[new_sft]["image"].endswith(
        "pytorch:2.4.0-gpu"), "replace: the new image"
    assert_alaya_repaired(emulator, before, drift_id, new_drift)

    # --- A preview after the repair changes nothing and makes no API call (was test_quickstart_lifecycle's
    # no-change preview, test_alaya_distributed_example's and the drift test's `--expect-no-changes`).
    calls = emulator.admin.requests().get("total")
    counts = change_counts(stack.preview_json())
    assert set(counts) == {"same"}, f"no change: {counts}"
    assert emulator.admin.requests().get("total") == calls, "no change: a no-change preview must not call the platform"

    # --- destroy leaves nothing behind on the platform or in the state.
    stack.destroy()
    assert live_tasks(emulator) == [], "destroy: tasks are left on the platform"
    assert stack.resources(TASK) == []


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


def test_check_names_bad_fields(emulator: Any) -> None:
    provider = jobs(emulator)
    output = refused(provider, job_args(worker_count=0, priority=9, product_code="PRD-NOPE",
                                        storage_mounts=[MOUNT, {**MOUNT, "mount_path": "/data/"}]))
    assert "worker_count" in output and "priority" in output

    # A relative mount path, of a StorageMount (the engine's preview of it: test_errors.py, for a task's mount).
    mounts = inprocess.configured(StorageMountProvider(), "alaya", emulator)
    output = refused(mounts, {**MOUNT, "mount_path": "mnt/datasets"}, name=None)
    assert output.startswith("mount_path: StorageMount: mount_path ") and "absolute" in output, output

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
