"""Alaya NeW: the seed-000 create call, the adopted contract (api.md), and the task state machine."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d

CREATE = "/subscription/training/create"
RESULT = "/subscription/training/result"
Body = Callable[..., dict[str, Any]]


def _result(alaya: httpx.Client, key: str) -> dict[str, Any]:
    envelope: dict[str, Any] = alaya.get(RESULT, params={"resultKey": key}).json()
    assert envelope["status"] == 200, envelope
    data: dict[str, Any] = envelope["data"]
    return data


def _detail(alaya: httpx.Client, task_id: str) -> dict[str, Any]:
    envelope: dict[str, Any] = alaya.get(f"/training/instance/{task_id}/detail").json()
    assert envelope["status"] == 200, envelope
    data: dict[str, Any] = envelope["data"]
    return data


def test_create_answers_result_key_then_subscription_succeeds(
    emulator: EmulatorHandle, alaya: httpx.Client, alaya_body: Body, timing: Any
) -> None:
    response = alaya.post(CREATE, json=alaya_body())
    assert response.status_code == 200
    envelope = response.json()
    assert (envelope["status"], envelope["message"]) == (200, "OK")
    key = envelope["data"]
    assert uuid.UUID(key).version == 4

    pending = _result(alaya, key)
    assert pending == {"resultKey": key, "status": "PROCESSING", "trainingTaskId": None,
                       "message": pending["message"]}
    assert alaya.get("/training/instance/list").json()["data"]["totalRows"] == 0  # no task yet

    emulator.admin.advance(timing.step)
    done = _result(alaya, key)
    assert done["status"] == "SUCCESS"
    assert re.fullmatch(r"tt-[0-9a-f]{12}", done["trainingTaskId"])
    assert alaya.get(f"{RESULT}/{key}").json()["data"] == done  # the path form answers the same
    task = _detail(alaya, done["trainingTaskId"])
    assert (task["name"], task["status"], task["workerCount"]) == ("llama3-8b-sft", "QUEUED", 4)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", task["createdTime"])
    assert task["startTime"] is None and task["endTime"] is None


def test_seed_curl_example_is_accepted_verbatim(alaya: httpx.Client, alaya_body: Body,
                                                create_task: Callable[..., str]) -> None:
    """The curl example: trainingFramework "PyTorch", trainingType "PRE_TRAINING", PRD-QTT."""
    task_id = create_task(
        name="my training task", trainingType="PRE_TRAINING", trainingFramwork=None, trainingFramework="PyTorch",
        productCode=d.PRODUCT_QTT, workerCount=1, timeoutHours=1,
        storageConfigs=[{"storageId": d.STORAGE_CAPACITY_ID, "storageType": "nas-capacity",
                         "fileDirectory": "nas123", "mountPath": "/root/nas/", "onlyRead": True}],
        env={"CUDA_VISIBLE_DEVICES": "0", "CUDA_VISIBLE_MASTER": "yu"},
        startCommand="cat > /tmp/mnist.py << 'EOF'\nprint(1)\nEOF\npython3 /tmp/mnist.py",
    )
    task = _detail(alaya, task_id)
    assert task["trainingFramework"] == task["trainingFramwork"] == "PyTorch"
    assert task["trainingType"] == "PRE_TRAINING"
    assert task["env"] == {"CUDA_VISIBLE_DEVICES": "0", "CUDA_VISIBLE_MASTER": "yu"}
    assert task["storageConfigs"][0]["onlyRead"] is True
    assert task["startCommand"].endswith("python3 /tmp/mnist.py")
    assert task["resource"] == {"type": "worker", "productCode": "PRD-QTT", "workerCount": 1,
                                "gpuName": "NVIDIA A800", "gpuCount": 1, "cpuCores": "14", "memoryGB": "128"}


@pytest.mark.parametrize(("field", "value", "training_type"), [
    ("trainingFramwork", "pytorch", "pre_training"),
    ("trainingFramework", "PyTorch", "PRE_TRAINING"),
    ("trainingFramework", "DeepSpeed", "hpc"),
])
def test_both_framework_spellings_and_cases(alaya: httpx.Client, create_task: Callable[..., str],
                                            field: str, value: str, training_type: str) -> None:
    overrides = {"trainingFramwork": None, field: value, "trainingType": training_type}
    task = _detail(alaya, create_task(**overrides))
    assert task["trainingFramework"] == value
    assert task["trainingType"] == training_type


def test_optional_fields_take_documented_defaults(alaya: httpx.Client, create_task: Callable[..., str]) -> None:
    task = _detail(alaya, create_task(
        priority=None, storageConfigs=[{"storageId": d.STORAGE_PERFORMANCE_ID, "mountPath": "/data"}],
        env=None, enableAutoRetry=None, maxRetryCount=None, enableTimeoutCancel=None, timeoutHours=None,
    ))
    assert task["priority"] == 3
    assert task["storageConfigs"] == [{"storageId": d.STORAGE_PERFORMANCE_ID, "storageType": None,
                                       "fileDirectory": "", "mountPath": "/data", "onlyRead": True}]
    assert (task["env"], task["enableAutoRetry"], task["enableTimeoutCancel"]) == ({}, False, False)


@pytest.mark.parametrize(("overrides", "message"), [
    ({"name": None}, "name: is required"),
    ({"name": "  "}, "name: must be a non-empty string"),
    ({"createType": "CLONE"}, "createType: must be one of DIRECT, COPY, TEMPLATE"),
    ({"workerCount": 0}, "workerCount: must be an integer between 1 and 512"),
    ({"workerCount": "4"}, "workerCount: must be an integer between 1 and 512"),
    ({"productCode": None}, "productCode: is required"),
    ({"image": None}, "image: is required"),
    ({"priority": 4}, "priority: must be an integer between 1 and 3"),
    ({"trainingType": "finetune"}, "trainingType: must be one of pre_training, hpc"),
    ({"imageType": "docker"}, "imageType: must be one of general, application, private"),
    ({"trainingFramwork": "jax"}, "trainingFramwork: must be one of pytorch, deepspeed, mpi, tensorflow"),
    ({"trainingFramework": "mpi"}, "trainingFramework: conflicts with trainingFramwork"),
    ({"storageConfigs": [{"storageId": "x", "mountPath": "rel"}]},
     "storageConfigs[0].mountPath: must be an absolute path"),
    ({"storageConfigs": [{"storageId": "x", "mountPath": "/a", "onlyRead": "yes"}]},
     "storageConfigs[0].onlyRead: must be true or false"),
    ({"env": {"A": 1}}, "env.A: must be a string"),
    ({"enableTimeoutCancel": True, "timeoutHours": None}, "timeoutHours: is required when enableTimeoutCancel is true"),
])
def test_invalid_bodies_get_business_400(emulator: EmulatorHandle, alaya: httpx.Client, alaya_body: Body,
                                         overrides: dict[str, Any], message: str) -> None:
    response = alaya.post(CREATE, json=alaya_body(**overrides))
    assert response.status_code == 200  # the business code differs from the HTTP code
    assert response.json() == {"status": 400, "message": message, "data": {}}
    assert emulator.admin.state()["alaya"]["subscriptions"] == []


def test_non_json_body_is_a_business_400(alaya: httpx.Client) -> None:
    response = alaya.post(CREATE, content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.json() == {"status": 400, "message": "body: invalid JSON", "data": {}}


def test_forbidden_product_gets_the_seed_403_envelope(emulator: EmulatorHandle, alaya: httpx.Client,
                                                      alaya_body: Body) -> None:
    response = alaya.post(CREATE, json=alaya_body(productCode=d.PRODUCT_FORBIDDEN))
    assert response.json() == {"status": 403, "message": "Forbidden", "data": {}}
    assert emulator.admin.state()["alaya"]["subscriptions"] == []


@pytest.mark.parametrize(("overrides", "message"), [
    ({"productCode": "PRD-X"}, "productCode PRD-X does not exist"),
    ({"productCode": d.PRODUCT_SOLDOUT}, f"insufficient stock for {d.PRODUCT_SOLDOUT}"),
    ({"storageConfigs": [{"storageId": "no-such-volume", "mountPath": "/data"}]},
     "storage no-such-volume does not exist"),
    ({"storageConfigs": [{"storageId": d.STORAGE_PROVISIONING_ID, "mountPath": "/data"}]},
     f"storage {d.STORAGE_PROVISIONING_ID} is not Active (Provisioning)"),
    ({"storageConfigs": [{"storageId": d.STORAGE_CAPACITY_ID, "storageType": "nas-performance", "mountPath": "/d"}]},
     f"storage {d.STORAGE_CAPACITY_ID} is nas-capacity, not nas-performance"),
])
def test_unschedulable_requests_are_accepted_then_fail(emulator: EmulatorHandle, alaya: httpx.Client,
                                                       alaya_body: Body, timing: Any,
                                                       overrides: dict[str, Any], message: str) -> None:
    key = alaya.post(CREATE, json=alaya_body(**overrides)).json()["data"]
    emulator.admin.advance(timing.step)
    assert _result(alaya, key) == {"resultKey": key, "status": "FAILED", "trainingTaskId": None, "message": message}
    assert emulator.admin.state()["alaya"]["tasks"] == []


def test_unknown_result_key_is_business_404(alaya: httpx.Client) -> None:
    envelope = alaya.get(RESULT, params={"resultKey": "nope"}).json()
    assert (envelope["status"], envelope["data"]) == (404, {})
    assert alaya.get(RESULT).json()["status"] == 400


@pytest.mark.parametrize(("headers", "expected"), [
    ({}, {"status": 40401, "message": "Login credential expired, please log in again", "data": {}}),
    ({"Authorization": "Bearer wrong-key"}, {"status": 40006, "message": "API key not found", "data": {}}),
    ({"Authorization": f"Basic {d.DEFAULT_ALAYA_API_KEY}"}, {"status": 40006, "message": "API key not found",
                                                             "data": {}}),
])
def test_missing_or_invalid_key_is_http_401(emulator: EmulatorHandle, http: httpx.Client, alaya_body: Body,
                                            headers: dict[str, str], expected: dict[str, Any]) -> None:
    for path in (CREATE, "/training/instance/list"):
        method = "POST" if path == CREATE else "GET"
        response = http.request(method, "/v1" + path, headers=headers, json=alaya_body())
        assert response.status_code == 401
        assert response.json() == expected
    assert emulator.admin.state()["alaya"]["subscriptions"] == []


def test_extra_keys_from_settings_are_accepted(emulator: EmulatorHandle, http: httpx.Client) -> None:
    emulator.admin.set_settings(alaya_api_keys=["second-key"])
    path = "/v1/training/instance/checkIsEnabled"
    ok = http.get(path, headers={"Authorization": "Bearer second-key"})
    assert ok.json() == {"status": 200, "message": "OK", "data": True}
    old = http.get(path, headers={"Authorization": f"Bearer {d.DEFAULT_ALAYA_API_KEY}"})
    assert old.status_code == 401


def test_gateway_prefix_serves_the_same_objects(http: httpx.Client, alaya: httpx.Client,
                                                create_task: Callable[..., str]) -> None:
    task_id = create_task()
    osm = http.get(f"/api/osm/v1/training/instance/{task_id}/detail",
                   headers={"Authorization": f"Bearer {d.DEFAULT_ALAYA_API_KEY}"})
    assert osm.json()["data"]["id"] == task_id
    assert osm.json() == alaya.get(f"/training/instance/{task_id}/detail").json()


def test_task_moves_queued_starting_running_and_stays(emulator: EmulatorHandle, alaya: httpx.Client,
                                                      create_task: Callable[..., str], timing: Any) -> None:
    task_id = create_task(enableTimeoutCancel=False)
    seen = [_detail(alaya, task_id)["status"]]
    for _ in range(2):
        emulator.admin.advance(timing.step)
        seen.append(_detail(alaya, task_id)["status"])
    assert seen == ["QUEUED", "STARTING", "RUNNING"]
    assert _detail(alaya, task_id)["startTime"] is not None
    emulator.admin.advance(100 * 3600)
    task = _detail(alaya, task_id)
    assert (task["status"], task["endTime"]) == ("RUNNING", None)


def test_fail_regex_fails_running_tasks(emulator: EmulatorHandle, alaya: httpx.Client,
                                        create_task: Callable[..., str], timing: Any) -> None:
    emulator.admin.set_settings(fail_task_names="^doomed-")
    doomed, fine = create_task(name="doomed-1", enableAutoRetry=False), create_task(name="fine-1")
    emulator.admin.advance(3 * timing.step)
    failed = _detail(alaya, doomed)
    assert failed["status"] == "FAILED" and failed["reason"] and failed["endTime"]
    assert _detail(alaya, fine)["status"] == "RUNNING"


def test_auto_retry_requeues_until_retries_run_out(emulator: EmulatorHandle, alaya: httpx.Client,
                                                   create_task: Callable[..., str], timing: Any) -> None:
    emulator.admin.set_settings(fail_task_names="^doomed-")
    task_id = create_task(name="doomed-retry", enableAutoRetry=True, maxRetryCount=2)
    emulator.admin.advance(3 * timing.step)  # first failure → requeued at once
    assert (_detail(alaya, task_id)["status"], _detail(alaya, task_id)["retryCount"]) == ("QUEUED", 1)
    emulator.admin.advance(6 * timing.step)
    task = _detail(alaya, task_id)
    assert (task["status"], task["retryCount"]) == ("FAILED", 2)


def test_succeed_after_and_timeout_cancel(emulator: EmulatorHandle, alaya: httpx.Client,
                                          create_task: Callable[..., str], timing: Any) -> None:
    timed = create_task(name="timed", enableTimeoutCancel=True, timeoutHours=1)
    emulator.admin.advance(2 * timing.step + 3600)
    task = _detail(alaya, timed)
    assert task["status"] == "STOPPED" and "timeout" in task["reason"]

    emulator.admin.set_settings(succeed_after=5.0)
    done = create_task(name="done", enableTimeoutCancel=False)
    emulator.admin.advance(2 * timing.step + 5)
    assert _detail(alaya, done)["status"] == "SUCCEEDED"


def test_stop_then_delete_then_gone(emulator: EmulatorHandle, alaya: httpx.Client,
                                    create_task: Callable[..., str], timing: Any) -> None:
    task_id = create_task()
    emulator.admin.advance(2 * timing.step)
    refused = alaya.delete(f"/training/instance/{task_id}/delete").json()
    assert refused == {"status": 409, "message": "stop the task before deleting it", "data": {}}

    assert alaya.post(f"/training/instance/{task_id}/stop").json() == {"status": 200, "message": "OK", "data": {}}
    stopped = _detail(alaya, task_id)
    assert (stopped["status"], stopped["reason"]) == ("STOPPED", "stopped by user")
    again = alaya.post(f"/training/instance/{task_id}/stop").json()
    assert again["status"] == 409 and "STOPPED" in again["message"]

    assert alaya.delete(f"/training/instance/{task_id}/delete").json()["status"] == 200
    assert _detail(alaya, task_id)["status"] == "DELETING"
    assert alaya.delete(f"/training/instance/{task_id}/delete").json()["status"] == 200  # idempotent
    emulator.admin.advance(timing.step)
    gone = alaya.get(f"/training/instance/{task_id}/detail")
    assert gone.status_code == 200
    assert gone.json() == {"status": 404, "message": f"training task {task_id} not found", "data": {}}
    assert emulator.admin.state()["alaya"]["tasks"] == []


def test_queued_task_can_be_deleted_without_stop(emulator: EmulatorHandle, alaya: httpx.Client,
                                                 create_task: Callable[..., str]) -> None:
    task_id = create_task()
    assert alaya.delete(f"/training/instance/{task_id}/delete").json()["status"] == 200
    assert emulator.admin.state()["alaya"]["tasks"][0]["deleting"] is True


@pytest.mark.parametrize("call", ["detail", "stop", "delete"])
def test_unknown_task_is_business_404(alaya: httpx.Client, call: str) -> None:
    method = {"detail": "GET", "stop": "POST", "delete": "DELETE"}[call]
    response = alaya.request(method, f"/training/instance/tt-000000000000/{call}")
    assert response.status_code == 200
    assert response.json() == {"status": 404, "message": "training task tt-000000000000 not found", "data": {}}


def test_list_pages_and_filters_by_exact_name(alaya: httpx.Client, create_task: Callable[..., str]) -> None:
    ids = [create_task(name=name) for name in ("a", "b", "b", "bb")]
    page = alaya.get("/training/instance/list", params={"pageNo": 1, "pageSize": 3}).json()["data"]
    assert (page["pageNo"], page["pageSize"], page["totalRows"], len(page["records"])) == (1, 3, 4, 3)
    second = alaya.get("/training/instance/list", params={"pageNo": 2, "pageSize": 3}).json()["data"]
    assert {r["id"] for r in page["records"] + second["records"]} == set(ids)
    named = alaya.get("/training/instance/list", params={"name": "b"}).json()["data"]
    assert named["totalRows"] == 2 and {r["name"] for r in named["records"]} == {"b"}
    assert alaya.get("/training/instance/list", params={"pageSize": 0}).json()["status"] == 400


def test_private_image_detail_carries_a_pull_secret(alaya: httpx.Client, create_task: Callable[..., str]) -> None:
    task_id = create_task(imageType="private", image="harbor.unite.zetyun.cn/tenant/torch:latest")
    secret = _detail(alaya, task_id)["imagePullSecret"]
    assert secret["username"] and len(secret["password"]) >= 16
    rows = alaya.get("/training/instance/list").json()["data"]["records"]
    assert "imagePullSecret" not in rows[0]
    assert _detail(alaya, create_task(name="public")).get("imagePullSecret") is None


def test_products_have_string_numbers(alaya: httpx.Client) -> None:
    envelope = alaya.get("/product/list-for-training-task").json()
    rows = {row["productCode"]: row for row in envelope["data"]}
    assert {d.PRODUCT_TRAIN_1, d.PRODUCT_TRAIN_2, d.PRODUCT_QTT, d.PRODUCT_CPU, d.PRODUCT_SOLDOUT} <= set(rows)
    train = rows[d.PRODUCT_TRAIN_1]
    assert (train["gpuName"], train["gpuCount"], train["aidcId"]) == ("NVIDIA A800", "8", 1)
    assert all(isinstance(train[k], str) for k in ("cpuCores", "memoryGB", "gpuCount", "diskGB", "price"))
    assert (rows[d.PRODUCT_CPU]["gpuName"], rows[d.PRODUCT_CPU]["gpuCount"]) == ("-", "0")
    assert rows[d.PRODUCT_SOLDOUT]["remainingCount"] == 0
    assert alaya.get("/product/list-for-training-task", params={"aidcId": 99}).json()["data"] == []


def test_storages_page(alaya: httpx.Client) -> None:
    data = alaya.get("/nasStorage/instance/tenant/page", params={"pageNo": 1, "pageSize": 10}).json()["data"]
    assert data["totalRows"] == 3
    by_id = {r["storageId"]: r for r in data["records"]}
    assert by_id[d.STORAGE_CAPACITY_ID] == {"storageId": d.STORAGE_CAPACITY_ID, "storageType": "nas-capacity",
                                            "name": "datasets", "status": "Active", "capacityGB": 1024}
    assert by_id[d.STORAGE_PERFORMANCE_ID]["storageType"] == "nas-performance"
    assert by_id[d.STORAGE_PROVISIONING_ID]["status"] == "Provisioning"


def test_check_is_enabled(alaya: httpx.Client) -> None:
    assert alaya.get("/training/instance/checkIsEnabled").json() == {"status": 200, "message": "OK", "data": True}
