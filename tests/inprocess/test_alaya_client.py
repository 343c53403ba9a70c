"""The Alaya NeW client over real HTTP against the emulator."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_mltrain.alaya.wire.client import AlayaClient
from pulumi_mltrain.answers import MAX_STRING, MAX_TEXT
from pulumi_mltrain.config import Settings
from pulumi_mltrain.errors import AmbiguousOutcome, ApiError, ConfigError, EndpointError, NotFound, UnexpectedAnswer


def client(emulator: Any, key: str | None = None) -> AlayaClient:
    return AlayaClient(Settings.load({"mltrain:alayaEndpoint": emulator.url,
                                      "mltrain:alayaApiKey": key or emulator.alaya_api_key,
                                      "mltrain:maxRetries": "1"}, env={}))


def test_wrong_key_is_a_clear_error_without_the_key(emulator: Any) -> None:
    with pytest.raises(ApiError) as err:
        client(emulator, "wrong-key-0123456789").products()
    text = str(err.value)
    assert "401 Unauthorized" in text and "mltrain:alayaApiKey" in text
    assert "wrong-key-0123456789" not in text


def test_missing_key_names_the_config_key() -> None:
    with pytest.raises(ConfigError) as err:
        AlayaClient(Settings.load({"mltrain:alayaEndpoint": "http://127.0.0.1:9"}, env={}))
    assert "pulumi config set --secret mltrain:alayaApiKey" in str(err.value)
    assert "MLTRAIN_ALAYA_API_KEY" in str(err.value)


def test_settings_never_print_secrets() -> None:
    settings = Settings.load({"mltrain:alayaApiKey": "s3cr3t-value", "mltrain:huaweiPassword": "pw-value"}, env={})
    assert "s3cr3t-value" not in repr(settings) and "pw-value" not in str(settings)


def test_create_then_detail_and_not_found(emulator: Any) -> None:
    api = client(emulator)
    key = api.create_task({"name": "t1", "createType": "DIRECT", "productCode": "PRD-QTT", "workerCount": 1,
                           "image": "harbor.zetyun.cn/x:1"})
    assert api.result(key)["status"] == "PROCESSING"
    emulator.admin.advance(5)
    task_id = api.result(key)["trainingTaskId"]
    assert api.task(task_id)["name"] == "t1"
    assert [t["id"] for t in api.find_tasks("t1")] == [task_id]
    with pytest.raises(NotFound):
        api.task("tt-000000000000")
    rows = api.storages()
    assert any(r["storageId"] == "72a2a885-e45e-4c79-aaf3-e1fa05abdb92" for r in rows)


# ----- answers of the wrong shape --------------------------------------------------------------
RESULT = "/v1/subscription/training/result"
DETAIL = "/v1/training/instance/*/detail"
LIST = "/v1/training/instance/list"
PRODUCTS = "/v1/product/list-for-training-task"
STORAGES = "/v1/nasStorage/instance/tenant/page"
PYTHON_ERRORS = ("AttributeError", "KeyError", "TypeError", "ValueError", "Traceback")


def ok(data: Any) -> dict[str, Any]:
    return {"status": 200, "message": "OK", "data": data}


def answer(emulator: Any, method: str, path: str, **rule: Any) -> None:
    emulator.admin.set_faults([{"method": method, "path": path, "kind": "respond", **rule}])


def created_task(emulator: Any, api: AlayaClient, name: str = "t1") -> str:
    key = api.create_task({"name": name, "createType": "DIRECT", "productCode": "PRD-QTT", "workerCount": 1,
                           "image": "harbor.zetyun.cn/x:1"})
    emulator.admin.advance(5)
    return str(api.result(key)["trainingTaskId"])


MALFORMED = [
    # (path, data, call, the problem as the error states it)
    (RESULT, {"resultKey": "k", "trainingTaskId": "tt-1"}, lambda a: a.result("k"),
     f"GET {RESULT}: data.status is required"),
    (RESULT, {"resultKey": "k", "status": 1}, lambda a: a.result("k"),
     f"GET {RESULT}: data.status should be a string, not a number"),
    (RESULT, None, lambda a: a.result("k"), f"GET {RESULT}: data should be an object, not null"),
    (RESULT, ["SUCCESS"], lambda a: a.result("k"), f"GET {RESULT}: data should be an object, not an array"),
    (DETAIL, {"id": "tt-1", "status": ["RUNNING"]}, lambda a: a.task("tt-1"),
     "GET /v1/training/instance/tt-1/detail: data.status should be a string, not an array"),
    (DETAIL, {"id": 7, "status": "RUNNING"}, lambda a: a.task("tt-1"),
     "GET /v1/training/instance/tt-1/detail: data.id should be a string, not a number"),
    (DETAIL, "tt-1", lambda a: a.task("tt-1"),
     "GET /v1/training/instance/tt-1/detail: data should be an object, not a string"),
    (LIST, None, lambda a: a.find_tasks("t1"), f"GET {LIST}: data should be an object, not null"),
    (LIST, {"records": {"id": "tt-1"}}, lambda a: a.find_tasks("t1"),
     f"GET {LIST}: data.records should be an array, not an object"),
    (LIST, {"records": [{"name": "t1"}]}, lambda a: a.find_tasks("t1"), f"GET {LIST}: data.records[0].id is required"),
    (PRODUCTS, {"rows": []}, lambda a: a.products(), f"GET {PRODUCTS}: data should be an array, not an object"),
    (PRODUCTS, [1, 2], lambda a: a.products(), f"GET {PRODUCTS}: data[0] should be an object, not a number"),
    (PRODUCTS, [{"productCode": 3}], lambda a: a.products(),
     f"GET {PRODUCTS}: data[0].productCode should be a string, not a number"),
    (STORAGES, {"records": [{"storageId": "s"}]}, lambda a: a.storages(),
     f"GET {STORAGES}: data.totalRows is required"),
    (STORAGES, {"records": "none", "totalRows": 0}, lambda a: a.storages(),
     f"GET {STORAGES}: data.records should be an array, not a string"),
]


@pytest.mark.parametrize(("path", "data", "call", "problem"), MALFORMED, ids=[m[3] for m in MALFORMED])
def test_a_malformed_answer_names_the_call_and_the_field(emulator: Any, path: str, data: Any,
                                                         call: Any, problem: str) -> None:
    api = client(emulator)
    answer(emulator, "*", path, body=ok(data))
    with pytest.raises(UnexpectedAnswer) as caught:
        call(api)
    assert str(caught.value) == f"Alaya NeW returned an unexpected answer to {problem}"
    assert not any(name in str(caught.value) for name in PYTHON_ERRORS)


def test_the_envelope_itself_must_have_an_integer_status(emulator: Any) -> None:
    answer(emulator, "GET", DETAIL, body={"status": "OK", "message": "OK", "data": {}})
    with pytest.raises(UnexpectedAnswer, match="status should be an integer, not a string"):
        client(emulator).task("tt-1")


def test_products_with_numbers_as_numbers_are_read_as_strings(emulator: Any) -> None:
    answer(emulator, "GET", PRODUCTS, body=ok([{"productCode": "P1", "gpuCount": 8, "cpuCores": "64", "x": [1]}]))
    assert client(emulator).products() == [{"productCode": "P1", "gpuCount": "8", "cpuCores": "64", "x": [1]}]


def test_unknown_fields_pass_through(emulator: Any) -> None:
    api = client(emulator)
    task_id = created_task(emulator, api)
    detail = api.task(task_id)
    assert detail["id"] == task_id and detail["productCode"] == "PRD-QTT" and "storageConfigs" in detail


def test_free_text_is_cut_at_the_stated_bound(emulator: Any) -> None:
    answer(emulator, "GET", DETAIL, body=ok({"id": "tt-1", "status": "FAILED", "reason": "x" * 1_000_000,
                                            "image": "y" * 100_000}))
    detail = client(emulator).task("tt-1")
    assert detail["reason"] == "x" * MAX_TEXT + f"… [cut at {MAX_TEXT} characters]"
    assert len(detail["image"]) < MAX_STRING + 40, "other strings are bounded too"


def test_a_create_answered_with_a_number_after_commit_is_ambiguous(emulator: Any) -> None:
    api = client(emulator)
    answer(emulator, "POST", "/v1/subscription/training/create", body=ok(123), commit=True, times=1)
    with pytest.raises(AmbiguousOutcome) as caught:
        api.create_task({"name": "t2", "createType": "DIRECT", "productCode": "PRD-QTT", "workerCount": 1,
                         "image": "harbor.zetyun.cn/x:1"})
    assert "POST /v1/subscription/training/create: data should be the resultKey string, not a number" \
        in str(caught.value)
    subscriptions = emulator.admin.state()["alaya"]["subscriptions"]
    assert [s["name"] for s in subscriptions] == ["t2"], "the create was committed"


def test_a_create_answered_with_a_page_after_commit_is_ambiguous(emulator: Any) -> None:
    answer(emulator, "POST", "/v1/subscription/training/create", text="<html>ok</html>", status=200,
           commit=True, times=1)
    with pytest.raises(AmbiguousOutcome, match="an HTML page"):
        client(emulator).create_task({"name": "t3", "createType": "DIRECT", "productCode": "PRD-QTT",
                                      "workerCount": 1, "image": "harbor.zetyun.cn/x:1"})


# ----- not found is the platform's own not-found -----------------------------------------------
def test_the_platforms_own_not_found_is_not_found(emulator: Any) -> None:
    api = client(emulator)
    with pytest.raises(NotFound) as business:
        api.task("tt-000000000000")  # HTTP 200, envelope status 404
    assert business.value.http_status == 404
    answer(emulator, "GET", DETAIL, status=404, body={"status": 404, "message": "task not found", "data": {}})
    with pytest.raises(NotFound):
        api.task("tt-000000000001")  # HTTP 404 with the envelope


def test_a_mistyped_endpoint_is_not_not_found(emulator: Any) -> None:
    api = AlayaClient(Settings.load({"mltrain:alayaEndpoint": emulator.url + "/api/v1",
                                     "mltrain:alayaApiKey": emulator.alaya_api_key, "mltrain:maxRetries": "1"},
                                    env={}))
    for call in (lambda: api.task("tt-1"), lambda: api.find_tasks("t1"), api.products, api.storages,
                 lambda: api.result("k")):
        with pytest.raises(EndpointError) as caught:
            call()
        assert not isinstance(caught.value, NotFound)
        text = str(caught.value)
        assert f"{emulator.url}/api/v1/v1/" in text and "check `mltrain:alayaEndpoint`" in text, text
        assert '{"detail": "Not Found"}' in text


NOT_THE_API = [
    ("gateway", {"status": 404, "body": {"error_code": "APIG.0101", "error_msg": "The API does not exist"}},
     "[APIG.0101]"),
    ("framework", {"status": 404, "body": {"detail": "Not Found"}}, '{"detail": "Not Found"}'),
    ("spring error page", {"status": 404, "body": {"timestamp": "2026-01-01T00:00:00", "status": 404,
                                                   "error": "Not Found", "message": "", "path": "/api/v1"}},
     '"error": "Not Found"'),
    ("html 404", {"status": 404, "text": "<html><body>Not Found</body></html>"}, "an HTML page"),
    ("html 200", {"status": 200, "text": "<!doctype html><html>app</html>"}, "an HTML page"),
    ("json without envelope", {"status": 200, "body": {"id": "tt-1", "status": "RUNNING"}}, '"id": "tt-1"'),
]


@pytest.mark.parametrize(("rule", "shown"), [(r, s) for _, r, s in NOT_THE_API], ids=[n for n, _, _ in NOT_THE_API])
def test_an_answer_that_is_not_the_api_is_an_endpoint_error(emulator: Any, rule: dict[str, Any], shown: str) -> None:
    api = client(emulator)
    answer(emulator, "*", "/v1/*", **rule)
    for call in (lambda: api.task("tt-1"), lambda: api.find_tasks("t1")):
        with pytest.raises(EndpointError) as caught:
            call()
        text = str(caught.value)
        assert emulator.url + "/v1/training/instance/" in text and "check `mltrain:alayaEndpoint`" in text
        assert shown in text, text


def test_a_gateway_page_on_502_is_retried(emulator: Any) -> None:
    api = client(emulator)
    task_id = created_task(emulator, api)
    answer(emulator, "GET", DETAIL, status=502, text="<html>502 Bad Gateway</html>", times=1)
    assert api.task(task_id)["id"] == task_id
    assert emulator.admin.requests()["faults"]["total"] == 1
