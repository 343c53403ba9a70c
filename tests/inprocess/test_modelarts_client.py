"""ModelArts client and IAM token auth over real HTTP against the emulator (no mocks)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.answers import MAX_TEXT
from pulumi_mltrain.config import Settings
from pulumi_mltrain.errors import AmbiguousOutcome, ApiError, ConfigError, EndpointError, NotFound, UnexpectedAnswer
from pulumi_mltrain.modelarts.wire import contract, iam
from pulumi_mltrain.modelarts.wire.client import ModelArtsClient

TOKENS = "POST /v3/auth/tokens"


@pytest.fixture(autouse=True)
def fresh_tokens() -> Iterator[None]:
    iam.forget_tokens()  # the emulator forgets its tokens between tests; so do we
    yield
    iam.forget_tokens()


@pytest.fixture
def settings(emulator: EmulatorHandle) -> Callable[..., Settings]:
    def make(**changes: Any) -> Settings:
        config = {
            "mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
            "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiProjectId": emulator.project_id,
            "mltrain:huaweiUser": emulator.iam_user, "mltrain:huaweiDomain": emulator.iam_domain,
            "mltrain:huaweiPassword": emulator.iam_password, "mltrain:maxRetries": "3",
        }
        config.update({f"mltrain:{k}": v for k, v in changes.items()})
        return Settings.load({k: v for k, v in config.items() if v is not None}, env={})

    return make


@pytest.fixture
def client(settings: Callable[..., Settings]) -> ModelArtsClient:
    return ModelArtsClient(settings())


def calls(emulator: EmulatorHandle, key: str) -> int:
    return int(emulator.admin.requests()["endpoints"].get(key, 0))


def algorithm_body(name: str = "algo") -> dict[str, Any]:
    return {"metadata": {"name": name},
            "job_config": {"code_dir": "/b/code/", "boot_file": "/b/code/train.py",
                           "engine": {"engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}}}


def job_body(algorithm_id: str, name: str = "job", flavor: str = d.FLAVOR_CPU_8U) -> dict[str, Any]:
    return {"kind": "job", "metadata": {"name": name}, "algorithm": {"id": algorithm_id},
            "spec": {"resource": {"flavor_id": flavor, "node_count": 1}}}


# ----- tokens ------------------------------------------------------------------------------------
def test_one_token_per_process_shared_by_clients_and_threads(emulator: EmulatorHandle,
                                                            settings: Callable[..., Settings]) -> None:
    first, second = ModelArtsClient(settings()), ModelArtsClient(settings())
    errors: list[BaseException] = []

    def work(c: ModelArtsClient) -> None:
        try:
            for _ in range(3):
                c.flavors()
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(c,)) for c in (first, second, first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert calls(emulator, "GET /v2/{project_id}/training-job-flavors") == 12
    assert calls(emulator, TOKENS) == 1


def test_a_revoked_token_is_replaced_once_and_the_call_succeeds(emulator: EmulatorHandle,
                                                                client: ModelArtsClient) -> None:
    client.engines()
    emulator.admin.set_faults(["GET /v2/*/training-job-flavors:token_expiry:times=1"])
    assert [f["flavor_id"] for f in client.flavors("GPU")] == [d.FLAVOR_GPU_V100, d.FLAVOR_GPU_8V100]
    assert calls(emulator, TOKENS) == 2
    assert emulator.admin.requests()["faults"]["by_kind"] == {"token_expiry": 1}


def test_an_expired_token_is_refreshed(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    emulator.admin.set_settings(token_ttl=600)
    client.flavors()
    emulator.admin.advance(700)  # the emulator's clock moves; ours does not: the 401 path renews it
    client.flavors()
    assert calls(emulator, TOKENS) == 2


def test_a_short_lived_token_is_renewed_before_it_expires(emulator: EmulatorHandle,
                                                         client: ModelArtsClient) -> None:
    emulator.admin.set_settings(token_ttl=0.05)
    client.flavors()
    time.sleep(0.1)  # past refresh_after(0.05 s); the emulator's token has expired too
    client.flavors()
    assert calls(emulator, TOKENS) == 2
    assert calls(emulator, "GET /v2/{project_id}/training-job-flavors") == 2, "renewed before sending, no 401"


def test_lifetime_and_refresh_margin() -> None:
    body = {"token": {"issued_at": "2026-01-01T00:00:00.000000Z", "expires_at": "2026-01-02T00:00:00.000000Z"}}
    assert iam.lifetime(body) == 86400
    assert iam.refresh_after(86400) == 86100  # five minutes early
    assert iam.refresh_after(10) == 9  # a tenth early for short tokens
    assert iam.lifetime({}) == 3600


def test_wrong_password_is_a_clear_error_without_the_password(emulator: EmulatorHandle,
                                                             settings: Callable[..., Settings]) -> None:
    client = ModelArtsClient(settings(huaweiPassword="not-the-password"))
    with pytest.raises(ApiError) as caught:
        client.flavors()
    text = str(caught.value)
    assert caught.value.http_status == 401 and "Huawei IAM rejected the request (401 Unauthorized)" in text
    assert "mltrain:huaweiPassword" in text and "not-the-password" not in text
    assert calls(emulator, TOKENS) == 1, "a 401 from IAM is not retried"


def test_token_never_printed(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    client.flavors()
    entry = next(iter(iam._CACHE.values()))
    assert entry.value and entry.value not in repr(entry) and entry.value not in repr(client.auth)


def test_project_id_comes_from_the_token_when_not_configured(emulator: EmulatorHandle,
                                                            settings: Callable[..., Settings]) -> None:
    client = ModelArtsClient(settings(huaweiProjectId=None))
    assert client.project_id == d.DEFAULT_PROJECT_ID
    assert len(client.engines()) == 3


def test_missing_settings_name_the_config_key(settings: Callable[..., Settings]) -> None:
    with pytest.raises(ConfigError, match="mltrain:huaweiIamEndpoint"):
        ModelArtsClient(settings(huaweiIamEndpoint=None))
    with pytest.raises(ConfigError, match="mltrain:huaweiProjectName"):
        ModelArtsClient(settings(huaweiProjectName=None, huaweiProjectId=None))


# ----- errors ------------------------------------------------------------------------------------
def test_rejections_read_like_sentences(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    algorithm = client.create_algorithm(algorithm_body())
    with pytest.raises(ApiError) as caught:
        client.create_job(job_body(algorithm["metadata"]["id"], flavor="modelarts.vm.nope"))
    assert str(caught.value) == (
        "Huawei ModelArts rejected the request (400 Bad Request) [ModelArts.2781]: flavor modelarts.vm.nope "
        f"not found (POST /v2/{d.DEFAULT_PROJECT_ID}/training-jobs)"
    )
    assert not isinstance(caught.value, NotFound)


def test_not_found_is_400_with_a_code(client: ModelArtsClient) -> None:
    with pytest.raises(NotFound) as job:
        client.job("00000000-0000-0000-0000-000000000000")
    assert (job.value.http_status, job.value.code) == (400, contract.JOB_NOT_FOUND)
    with pytest.raises(NotFound) as algorithm:
        client.algorithm("00000000-0000-0000-0000-000000000000")
    assert algorithm.value.code == contract.ALGORITHM_NOT_FOUND


def test_throttling_is_retried(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    emulator.admin.set_faults([{"path": "/v2/*/training-job-engines", "kind": "status", "status": 429,
                                "retry_after": 0, "times": 2}])
    assert len(client.engines()) == 3
    assert calls(emulator, "GET /v2/{project_id}/training-job-engines") == 3


def test_a_lost_create_answer_is_ambiguous_not_retried(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    emulator.admin.set_faults(["POST /v2/*/algorithms:drop_after_commit:times=1"])
    with pytest.raises(AmbiguousOutcome):
        client.create_algorithm(algorithm_body("lost"))
    assert [a["metadata"]["name"] for a in client.find_algorithms("lost")] == ["lost"], "it was created once"
    assert calls(emulator, "POST /v2/{project_id}/algorithms") == 1


# ----- endpoints ---------------------------------------------------------------------------------
def test_job_lifecycle_calls(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=10, modelarts_run_seconds=100, delete_delay=5)
    algorithm_id = client.create_algorithm(algorithm_body())["metadata"]["id"]
    job = client.create_job(job_body(algorithm_id, "abc"))
    client.create_job(job_body(algorithm_id, "abcd"))
    job_id = job["metadata"]["id"]
    assert job["status"]["phase"] == contract.CREATING
    assert [j["metadata"]["name"] for j in client.find_jobs("abc")] == ["abc"], "exact names only"
    assert client.log_preview(job_id, "worker-0") is None, "logs are not ready while Creating"

    emulator.admin.advance(25)
    assert client.job(job_id)["status"]["phase"] == contract.RUNNING
    assert client.log_preview(job_id, "worker-0"), "a running task's log can be read"
    assert {m["metric"] for m in client.metrics(job_id, "worker-0") or []} >= {"cpuUsage", "memUsage"}

    client.update_job_description(job_id, "new words")
    assert client.job(job_id)["metadata"]["description"] == "new words"

    assert (client.terminate_job(job_id) or {})["status"]["phase"] == contract.TERMINATING
    emulator.admin.advance(10)
    with pytest.raises(ApiError) as caught:
        client.terminate_job(job_id)
    assert (caught.value.http_status, caught.value.code) == (409, contract.CANNOT_TERMINATE)

    client.delete_job(job_id)
    emulator.admin.advance(6)
    with pytest.raises(NotFound):
        client.job(job_id)


def test_listings_read_on_to_the_last_page(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    """More than a page of algorithms and jobs: the look-ups by name read every page."""
    first = client.create_algorithm(algorithm_body("pg"))["metadata"]["id"]
    for i in range(contract.PAGE_LIMIT):
        client.create_algorithm(algorithm_body(f"pg-{i}"))
        client.create_job(job_body(first, f"pj-{i}"))
    client.create_job(job_body(first, "pj"))
    assert [a["metadata"]["id"] for a in client.find_algorithms("pg")] == [first]
    assert calls(emulator, "GET /v2/{project_id}/algorithms") == 2, "the name search matched two pages"
    assert len(client.search_jobs("pj")) == contract.PAGE_LIMIT + 1
    assert [j["metadata"]["name"] for j in client.find_jobs("pj")] == ["pj"]


def test_algorithm_calls(client: ModelArtsClient) -> None:
    created = client.create_algorithm(algorithm_body("algo-1"))
    algorithm_id = created["metadata"]["id"]
    client.create_algorithm(algorithm_body("algo-10"))
    assert [a["metadata"]["id"] for a in client.find_algorithms("algo-1")] == [algorithm_id]
    body = algorithm_body("algo-1")
    body["metadata"]["description"] = "updated"
    assert client.update_algorithm(algorithm_id, body)["metadata"]["description"] == "updated"
    client.delete_algorithm(algorithm_id)
    with pytest.raises(NotFound):
        client.algorithm(algorithm_id)


# ----- answers of the wrong shape --------------------------------------------------------------
P = d.DEFAULT_PROJECT_ID
JOB_ID = "00000000-0000-0000-0000-00000000000a"


def answer(emulator: EmulatorHandle, method: str, path: str, **rule: Any) -> None:
    emulator.admin.set_faults([{"method": method, "path": path, "kind": "respond", **rule}])


def a_job(**status: Any) -> dict[str, Any]:
    return {"kind": "job", "metadata": {"id": JOB_ID, "name": "j"}, "status": {"phase": "Running", **status}}


MALFORMED = [
    ("GET", "/v2/*/training-jobs/*", {"metadata": {"id": JOB_ID}, "status": {"phase": None}},
     lambda c: c.job(JOB_ID), f"GET /v2/{P}/training-jobs/{JOB_ID}: status.phase should be a string, not null"),
    ("GET", "/v2/*/training-jobs/*", {"status": {"phase": "Running"}}, lambda c: c.job(JOB_ID),
     f"GET /v2/{P}/training-jobs/{JOB_ID}: metadata is required"),
    ("GET", "/v2/*/training-jobs/*", [a_job()], lambda c: c.job(JOB_ID),
     f"GET /v2/{P}/training-jobs/{JOB_ID}: the answer should be an object, not an array"),
    ("GET", "/v2/*/training-jobs/*", a_job(task_statuses=[{"message": 5}]), lambda c: c.job(JOB_ID),
     f"GET /v2/{P}/training-jobs/{JOB_ID}: status.task_statuses[0].message should be a string, not a number"),
    ("POST", "/v2/*/training-job-searches", {"total": 1, "items": {"metadata": {}}}, lambda c: c.find_jobs("j"),
     f"POST /v2/{P}/training-job-searches: items should be an array, not an object"),
    ("POST", "/v2/*/training-job-searches", {"total": 1, "items": [{"metadata": {"name": "j"}}]},
     lambda c: c.find_jobs("j"), f"POST /v2/{P}/training-job-searches: items[0].metadata.id is required"),
    ("GET", "/v2/*/algorithms", {"total": 0}, lambda c: c.find_algorithms("a"),
     f"GET /v2/{P}/algorithms: items is required"),
    ("GET", "/v2/*/algorithms/*", {"metadata": {"id": 12}}, lambda c: c.algorithm(JOB_ID),
     f"GET /v2/{P}/algorithms/{JOB_ID}: metadata.id should be a string, not a number"),
    ("GET", "/v2/*/training-job-flavors", {"flavors": [1]}, lambda c: c.flavors(),
     f"GET /v2/{P}/training-job-flavors: flavors[0] should be an object, not a number"),
    ("GET", "/v2/*/training-job-engines", {"items": [{"engine_id": None}]}, lambda c: c.engines(),
     f"GET /v2/{P}/training-job-engines: items[0].engine_id should be a string, not null"),
    ("GET", "/v2/*/training-jobs/*/tasks/*/logs/preview", {"content": ["x"]},
     lambda c: c.log_preview(JOB_ID, "worker-0"),
     f"GET /v2/{P}/training-jobs/{JOB_ID}/tasks/worker-0/logs/preview: content should be a string, not an array"),
    ("GET", "/v2/*/training-jobs/*/metrics/*", {"metrics": "none"}, lambda c: c.metrics(JOB_ID, "worker-0"),
     f"GET /v2/{P}/training-jobs/{JOB_ID}/metrics/worker-0: metrics should be an array, not a string"),
]


@pytest.mark.parametrize(("method", "path", "body", "call", "problem"), MALFORMED, ids=[m[4] for m in MALFORMED])
def test_a_malformed_answer_names_the_call_and_the_field(emulator: EmulatorHandle, client: ModelArtsClient,
                                                         method: str, path: str, body: Any, call: Any,
                                                         problem: str) -> None:
    answer(emulator, method, path, body=body)
    with pytest.raises(UnexpectedAnswer) as caught:
        call(client)
    assert str(caught.value) == f"Huawei ModelArts returned an unexpected answer to {problem}"


def test_a_create_without_an_id_after_commit_is_ambiguous(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    answer(emulator, "POST", "/v2/*/algorithms", status=201, body={"metadata": {"name": "lost"}}, commit=True,
           times=1)
    with pytest.raises(AmbiguousOutcome) as caught:
        client.create_algorithm(algorithm_body("lost"))
    assert f"POST /v2/{P}/algorithms: metadata.id is required" in str(caught.value)
    algorithm_id = client.find_algorithms("lost")[0]["metadata"]["id"]
    answer(emulator, "POST", "/v2/*/training-jobs", status=201, body={"kind": "job", "status": {}}, commit=True,
           times=1)
    with pytest.raises(AmbiguousOutcome, match="metadata is required"):
        client.create_job(job_body(algorithm_id, "lost-job"))
    assert [j["metadata"]["name"] for j in emulator.admin.state()["modelarts"]["jobs"]] == ["lost-job"]


def test_job_answers_pass_unknown_fields_and_bound_free_text(emulator: EmulatorHandle,
                                                            client: ModelArtsClient) -> None:
    body = a_job(reason="r" * 1_000_000, task_statuses=[{"task": "worker-0", "message": "m" * 5000}])
    body["metadata"]["annotations"] = {"mark": "ours"}
    answer(emulator, "GET", "/v2/*/training-jobs/*", body=body)
    job = client.job(JOB_ID)
    assert job["metadata"]["annotations"] == {"mark": "ours"}
    assert job["status"]["reason"] == "r" * MAX_TEXT + f"… [cut at {MAX_TEXT} characters]"
    assert len(job["status"]["task_statuses"][0]["message"]) < MAX_TEXT + 40


# ----- not found is ModelArts' own not-found ------------------------------------------------------
NOT_THE_API = [
    ("gateway 404", {"status": 404, "body": {"error_code": "APIG.0101", "error_msg": "The API does not exist"}},
     "404 Not Found [APIG.0101]"),
    ("plain 404", {"status": 404, "body": {"detail": "Not Found"}}, '{"detail": "Not Found"}'),
    ("html 404", {"status": 404, "text": "<html>Not Found</html>"}, "an HTML page"),
    ("html 200", {"status": 200, "text": "<html>console</html>"}, "an HTML page"),
    ("gateway 400", {"status": 400, "body": {"error_code": "APIG.0201", "error_msg": "Request body too large"}},
     "[APIG.0201]"),
]


@pytest.mark.parametrize(("rule", "shown"), [(r, s) for _, r, s in NOT_THE_API], ids=[n for n, _, _ in NOT_THE_API])
def test_an_answer_that_is_not_modelarts_is_an_endpoint_error(emulator: EmulatorHandle, client: ModelArtsClient,
                                                               rule: dict[str, Any], shown: str) -> None:
    client.flavors()  # the token first: the rule below would also catch IAM's answer otherwise
    answer(emulator, "*", "/v2/*", **rule)
    for call in (lambda: client.job(JOB_ID), lambda: client.find_jobs("j"), lambda: client.find_algorithms("a"),
                 lambda: client.algorithm(JOB_ID)):
        with pytest.raises(EndpointError) as caught:
            call()
        assert not isinstance(caught.value, NotFound)
        text = str(caught.value)
        assert f"{emulator.url}/v2/{P}/" in text and "check `mltrain:modelartsEndpoint`" in text, text
        assert shown in text, text


def test_a_mistyped_modelarts_endpoint_is_not_not_found(emulator: EmulatorHandle,
                                                        settings: Callable[..., Settings]) -> None:
    client = ModelArtsClient(settings(modelartsEndpoint=emulator.url + "/modelarts"))
    for call in (lambda: client.job(JOB_ID), lambda: client.find_jobs("j"), lambda: client.delete_job(JOB_ID)):
        with pytest.raises(EndpointError) as caught:
            call()
        assert f"{emulator.url}/modelarts/v2/" in str(caught.value)
        assert "check `mltrain:modelartsEndpoint`" in str(caught.value)


def test_iam_answers_that_are_not_iam(emulator: EmulatorHandle, client: ModelArtsClient) -> None:
    answer(emulator, "POST", "/v3/auth/tokens", status=404, text="<html>no</html>")
    with pytest.raises(EndpointError) as caught:
        client.flavors()
    assert f"{emulator.url}/v3/auth/tokens" in str(caught.value)
    assert "check `mltrain:huaweiIamEndpoint`" in str(caught.value)
    answer(emulator, "POST", "/v3/auth/tokens", status=201, body={"token": {"expires_at": "2099-01-01T00:00:00Z"}})
    with pytest.raises(UnexpectedAnswer, match="POST /v3/auth/tokens: the X-Subject-Token header is required"):
        client.flavors()


def test_iam_token_body_of_the_wrong_shape(emulator: EmulatorHandle, settings: Callable[..., Settings]) -> None:
    client = ModelArtsClient(settings(huaweiProjectId=None))
    emulator.admin.set_faults([{"method": "POST", "path": "/v3/auth/tokens", "kind": "respond", "status": 201,
                                "body": {"token": {"project": ["p"]}}}])
    with pytest.raises(UnexpectedAnswer) as caught:
        client.engines()
    assert str(caught.value) == ("Huawei IAM returned an unexpected answer to POST /v3/auth/tokens: "
                                 "token.project should be an object, not an array")
