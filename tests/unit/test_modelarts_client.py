"""ModelArts client and IAM token auth over real HTTP against the emulator (no mocks)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pulumi_mltrain.config import Settings
from pulumi_mltrain.emulator import EmulatorHandle
from pulumi_mltrain.emulator import defaults as d
from pulumi_mltrain.errors import AmbiguousOutcome, ApiError, ConfigError, NotFound
from pulumi_mltrain.modelarts import contract, iam
from pulumi_mltrain.modelarts.client import ModelArtsClient

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
    assert client.log_url(job_id, "worker-0") is None, "logs are not ready while Creating"

    emulator.admin.advance(25)
    assert client.job(job_id)["status"]["phase"] == contract.RUNNING
    assert (client.log_url(job_id, "worker-0") or "").startswith("https://")
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
