"""Fault injection: every kind at least once, and the rule mechanics (times, after, probability)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle, FaultRule, parse_fault_spec
from mltrain_emulator import defaults as d
from mltrain_emulator.fault_rules import FaultBook

CREATE = "/v1/subscription/training/create"
Body = Callable[..., dict[str, Any]]


def _faults(emulator: EmulatorHandle) -> dict[str, Any]:
    faults: dict[str, Any] = emulator.admin.requests()["faults"]
    return faults


def test_status_503_for_the_next_two_calls_only(emulator: EmulatorHandle, alaya: httpx.Client,
                                                alaya_body: Body) -> None:
    emulator.admin.set_faults([f"POST {CREATE}:status=503:times=2"])
    for _ in range(2):
        response = alaya.post("/subscription/training/create", json=alaya_body())
        assert response.status_code == 503
        assert response.json() == {"status": 503, "message": "Service Unavailable", "data": {}}
    assert emulator.admin.state()["alaya"]["subscriptions"] == []  # the handler never ran
    assert alaya.post("/subscription/training/create", json=alaya_body()).json()["status"] == 200
    assert _faults(emulator) == {"total": 2, "by_kind": {"status": 2}, "by_endpoint": {f"POST {CREATE}": 2}}
    assert emulator.admin.requests()["endpoints"][f"POST {CREATE}"] == 3
    described = emulator.admin.faults()[0]
    assert (described["kind"], described["seen"], described["applied"]) == ("status", 3, 2)


def test_429_carries_retry_after_and_the_modelarts_code(emulator: EmulatorHandle, modelarts: httpx.Client) -> None:
    emulator.admin.set_faults([{"method": "GET", "path": "/v2/*/training-job-flavors", "kind": "status",
                                "status": 429, "retry_after": 3}])
    throttled = modelarts.get("/training-job-flavors")
    assert (throttled.status_code, throttled.headers["Retry-After"]) == (429, "3")
    assert throttled.json()["error_code"] == "ModelArts.2799"
    assert modelarts.get("/training-job-engines").status_code == 200  # other endpoints unaffected


def test_gateway_prefix_is_matched_by_the_v1_glob(emulator: EmulatorHandle, http: httpx.Client) -> None:
    emulator.admin.set_faults(["GET /v1/training/*:status=502"])
    auth = {"Authorization": f"Bearer {d.DEFAULT_ALAYA_API_KEY}"}
    assert http.get("/api/osm/v1/training/instance/list", headers=auth).status_code == 502
    assert http.get("/v1/training/instance/checkIsEnabled", headers=auth).status_code == 502
    assert http.get("/v1/product/list-for-training-task", headers=auth).status_code == 200


def test_business_500_is_http_200_with_the_seed_envelope(emulator: EmulatorHandle, alaya: httpx.Client,
                                                         alaya_body: Body) -> None:
    emulator.admin.set_faults([f"POST {CREATE}:business_500:times=1"])
    response = alaya.post("/subscription/training/create", json=alaya_body())
    assert response.status_code == 200
    assert response.json() == {"status": 500, "message": "Internal Server Error", "data": {}}
    assert emulator.admin.state()["alaya"]["subscriptions"] == []


def test_latency_delays_then_serves(emulator: EmulatorHandle, alaya: httpx.Client) -> None:
    emulator.admin.set_faults(["GET /v1/training/instance/checkIsEnabled:latency=0.3"])
    started = time.monotonic()
    assert alaya.get("/training/instance/checkIsEnabled").json()["data"] is True
    assert time.monotonic() - started >= 0.3
    assert _faults(emulator)["by_kind"] == {"latency": 1}


def test_drop_after_commit_alaya(emulator: EmulatorHandle, alaya: httpx.Client, alaya_body: Body) -> None:
    emulator.admin.set_faults([f"POST {CREATE}:drop_after_commit:times=1"])
    with pytest.raises(httpx.TransportError):
        alaya.post("/subscription/training/create", json=alaya_body(name="committed"))
    subscriptions = emulator.admin.state()["alaya"]["subscriptions"]
    assert [s["name"] for s in subscriptions] == ["committed"]  # the write happened anyway
    assert alaya.post("/subscription/training/create", json=alaya_body()).json()["status"] == 200


def test_drop_after_commit_modelarts_delete(emulator: EmulatorHandle, modelarts: httpx.Client,
                                            job_body: Body, algorithm_id: str) -> None:
    """An empty 202 is cut too: the client must not see a complete response."""
    job_id = modelarts.post("/training-jobs", json=job_body(algorithm_id)).json()["metadata"]["id"]
    emulator.admin.set_faults(["DELETE /v2/*/training-jobs/*:drop_after_commit"])
    with pytest.raises(httpx.TransportError):
        modelarts.delete(f"/training-jobs/{job_id}")
    assert emulator.admin.state()["modelarts"]["jobs"][0]["deleting"] is True


def test_slow_after_commit_lets_the_client_time_out(emulator: EmulatorHandle, alaya: httpx.Client,
                                                    alaya_body: Body) -> None:
    emulator.admin.set_faults([f"POST {CREATE}:slow_after_commit=2:times=1"])
    with pytest.raises(httpx.ReadTimeout):
        alaya.post("/subscription/training/create", json=alaya_body(), timeout=0.3)
    assert len(emulator.admin.state()["alaya"]["subscriptions"]) == 1


def test_slow_after_commit_answers_late_but_complete(emulator: EmulatorHandle, alaya: httpx.Client) -> None:
    emulator.admin.set_faults(["GET /v1/training/instance/checkIsEnabled:slow_after_commit=0.2"])
    started = time.monotonic()
    assert alaya.get("/training/instance/checkIsEnabled").json()["data"] is True
    assert time.monotonic() - started >= 0.2


def test_malformed_body_after_commit(emulator: EmulatorHandle, modelarts: httpx.Client,
                                     algorithm_body: Body) -> None:
    emulator.admin.set_faults(["POST /v2/*/algorithms:malformed"])
    response = modelarts.post("/algorithms", json=algorithm_body())
    assert response.status_code == 200
    with pytest.raises(ValueError):
        response.json()
    assert len(emulator.admin.state()["modelarts"]["algorithms"]) == 1


def test_token_expiry_marks_the_token_expired(emulator: EmulatorHandle, modelarts: httpx.Client,
                                              login: Callable[..., httpx.Response]) -> None:
    emulator.admin.set_faults([{"path": "/v2/*", "kind": "token_expiry", "times": 1}])
    first = modelarts.get("/training-job-flavors")
    assert (first.status_code, first.json()["error_code"]) == (401, "ModelArts.0208")
    second = modelarts.get("/training-job-flavors")  # the rule is spent; the token stays expired
    assert (second.status_code, second.json()["error_code"]) == (401, "ModelArts.0208")
    fresh = login().headers["X-Subject-Token"]
    assert modelarts.get("/training-job-flavors", headers={"X-Auth-Token": fresh}).status_code == 200


def test_never_resolve_on_create(emulator: EmulatorHandle, alaya: httpx.Client, alaya_body: Body) -> None:
    emulator.admin.set_faults([f"POST {CREATE}:never_resolve:times=1"])
    stuck = alaya.post("/subscription/training/create", json=alaya_body(name="stuck")).json()["data"]
    normal = alaya.post("/subscription/training/create", json=alaya_body(name="normal")).json()["data"]
    emulator.admin.advance(3600)
    result = "/subscription/training/result"
    assert alaya.get(result, params={"resultKey": stuck}).json()["data"]["status"] == "PROCESSING"
    assert alaya.get(result, params={"resultKey": normal}).json()["data"]["status"] == "SUCCESS"
    assert [t["name"] for t in emulator.admin.state()["alaya"]["tasks"]] == ["normal"]


def test_never_resolve_on_the_result_call_hides_an_existing_task(emulator: EmulatorHandle, alaya: httpx.Client,
                                                                 alaya_body: Body, timing: Any) -> None:
    key = alaya.post("/subscription/training/create", json=alaya_body()).json()["data"]
    emulator.admin.set_faults(["GET /v1/subscription/training/result*:never_resolve"])
    emulator.admin.advance(timing.step)
    seen = alaya.get("/subscription/training/result", params={"resultKey": key}).json()["data"]
    assert (seen["status"], seen["trainingTaskId"]) == ("PROCESSING", None)
    assert len(emulator.admin.state()["alaya"]["tasks"]) == 1  # the task exists: an orphan to find by name


def test_after_skips_the_first_matches(emulator: EmulatorHandle, alaya: httpx.Client) -> None:
    emulator.admin.set_faults(["GET /v1/training/instance/checkIsEnabled:status=500:after=2:times=1"])
    codes = [alaya.get("/training/instance/checkIsEnabled").status_code for _ in range(4)]
    assert codes == [200, 200, 500, 200]


def test_probability_is_reproducible_with_a_seed() -> None:
    rule = FaultRule(path="/v1/*", kind="status", status=503, probability=0.5)

    def pattern(seed: int) -> list[bool]:
        book = FaultBook(seed)
        book.replace([rule])
        return [book.select("GET", "/v1/x", "alaya") is not None for _ in range(40)]

    assert pattern(7) == pattern(7)
    assert 5 < sum(pattern(7)) < 35
    assert pattern(7) != pattern(8)


def test_rules_only_match_their_platform() -> None:
    book = FaultBook()
    book.replace([FaultRule(path="*", kind="business_500"), FaultRule(path="*", kind="token_expiry")])
    assert book.select("GET", "/v3/auth/tokens", "iam") is None
    assert book.select("GET", "/v1/x", "alaya") == FaultRule(path="*", kind="business_500")
    assert book.select("GET", "/v2/p/x", "modelarts") == FaultRule(path="*", kind="token_expiry")


def test_compact_syntax() -> None:
    rule = parse_fault_spec("POST /v1/subscription/training/create:status=503:times=2")
    assert (rule.method, rule.path, rule.kind, rule.status, rule.times) == ("POST", CREATE, "status", 503, 2)
    rule = parse_fault_spec("/v2/*/training-jobs:slow_after_commit=1.5:probability=0.25:after=3")
    assert (rule.method, rule.kind, rule.seconds, rule.probability, rule.after) == ("*", "slow_after_commit",
                                                                                   1.5, 0.25, 3)
    assert parse_fault_spec("GET /v2/*:status=429:retry_after=5").retry_after == 5
    for bad in ("POST /v1/x", "/v1/x:status", "/v1/x:explode", "/v1/x:malformed=3", "/v1/x:status=200",
                "/v1/x:latency=1:oops"):
        with pytest.raises(ValueError):
            parse_fault_spec(bad)


def test_admin_rejects_invalid_rules(emulator: EmulatorHandle, http: httpx.Client) -> None:
    response = http.post("/_admin/faults", json=[{"path": "/v1/*", "kind": "status"}])
    assert response.status_code == 422
    assert http.post("/_admin/faults", json={"rules": [{"path": "/x", "kind": "melt"}]}).status_code == 422
    assert emulator.admin.faults() == []
    emulator.admin.set_faults(["/v1/*:malformed"])
    assert http.delete("/_admin/faults").json() == {"rules": []}


def test_slow_drip_commits_then_sends_the_answer_byte_by_byte(emulator: EmulatorHandle, alaya: httpx.Client,
                                                              alaya_body: Body) -> None:
    emulator.admin.set_faults([f"POST {CREATE}:slow_drip=40:times=1"])
    started = time.monotonic()
    with alaya.stream("POST", "/subscription/training/create", json=alaya_body(name="dripped")) as response:
        chunks = list(response.iter_raw())
    elapsed = time.monotonic() - started
    body = b"".join(chunks)
    assert httpx.Response(200, content=body).json()["status"] == 200  # complete and valid in the end
    assert len(chunks) >= 10  # many small chunks (4 bytes each at 40 B/s), not one
    assert elapsed >= (len(body) - 1) / 40 * 0.9
    assert [s["name"] for s in emulator.admin.state()["alaya"]["subscriptions"]] == ["dripped"]


def test_slow_drip_outlives_a_per_read_timeout(emulator: EmulatorHandle, alaya: httpx.Client) -> None:
    """Each byte arrives well within the read timeout, so only a total deadline stops this call."""
    emulator.admin.set_faults(["GET /v1/training/instance/checkIsEnabled:slow_drip=5"])
    started = time.monotonic()
    with alaya.stream("GET", "/training/instance/checkIsEnabled", timeout=0.5) as response:
        for _ in response.iter_raw():
            if time.monotonic() - started > 1.5:
                break
    assert time.monotonic() - started > 1.5  # no ReadTimeout although 1.5 s > 0.5 s


def test_slow_drip_stops_after_seconds(emulator: EmulatorHandle, alaya: httpx.Client) -> None:
    emulator.admin.set_faults(["GET /v1/training/instance/checkIsEnabled:slow_drip=1:seconds=0.5"])
    started = time.monotonic()
    assert alaya.get("/training/instance/checkIsEnabled").json()["data"] is True
    assert time.monotonic() - started < 5  # at 1 B/s the whole body would take far longer


def test_respond_with_a_gateway_error_instead_of_the_handler(emulator: EmulatorHandle, modelarts: httpx.Client,
                                                             algorithm_body: Body) -> None:
    apig = {"error_code": "APIG.0101", "error_msg": "The API does not exist or has not been published"}
    emulator.admin.set_faults([{"method": "POST", "path": "/v2/*/algorithms", "kind": "respond",
                                "status": 404, "body": apig, "times": 1}])
    response = modelarts.post("/algorithms", json=algorithm_body())
    assert (response.status_code, response.json()) == (404, apig)
    assert response.headers["content-type"] == "application/json"
    assert emulator.admin.state()["modelarts"]["algorithms"] == []  # the handler never ran


def test_respond_with_html_after_commit(emulator: EmulatorHandle, alaya: httpx.Client, alaya_body: Body) -> None:
    emulator.admin.set_faults([f"POST {CREATE}:respond=502:text=<html>Bad Gateway</html>:commit=true"])
    response = alaya.post("/subscription/training/create", json=alaya_body(name="kept"))
    assert (response.status_code, response.text) == (502, "<html>Bad Gateway</html>")
    assert response.headers["content-type"].startswith("text/html")
    assert [s["name"] for s in emulator.admin.state()["alaya"]["subscriptions"]] == ["kept"]


def test_respond_defaults_to_200_and_takes_any_content_type(emulator: EmulatorHandle,
                                                            alaya: httpx.Client) -> None:
    emulator.admin.set_faults([{"path": "/v1/training/instance/checkIsEnabled", "kind": "respond",
                                "text": "null", "content_type": "application/json"}])
    response = alaya.get("/training/instance/checkIsEnabled")
    assert (response.status_code, response.headers["content-type"]) == (200, "application/json")
    assert response.json() is None  # valid JSON, useless as an envelope
    with pytest.raises(ValueError):
        FaultRule(path="/x", kind="respond", body={}, text="both")


def test_for_seconds_limits_a_rule_to_a_window(emulator: EmulatorHandle, alaya: httpx.Client) -> None:
    """The window runs on the emulator's clock (as the objects' states do): advancing it ends the outage."""
    emulator.admin.set_faults(["GET /v1/training/instance/checkIsEnabled:status=503:for_seconds=30"])
    assert alaya.get("/training/instance/checkIsEnabled").status_code == 503
    assert emulator.admin.faults()[0]["active"] is True
    emulator.admin.advance(31)
    assert alaya.get("/training/instance/checkIsEnabled").status_code == 200
    described = emulator.admin.faults()[0]
    assert (described["active"], described["seen"], described["applied"]) == (False, 1, 1)


def test_compact_syntax_of_the_new_kinds() -> None:
    rule = parse_fault_spec("GET /v1/*:slow_drip=1.5:seconds=30")
    assert (rule.kind, rule.rate, rule.seconds) == ("slow_drip", 1.5, 30)
    assert parse_fault_spec("GET /v1/*:slow_drip").rate == 2.0
    rule = parse_fault_spec("POST /v2/*/training-jobs:respond=404:body=[1,2]:commit=true")
    assert (rule.status, rule.body, rule.commit) == (404, [1, 2], True)
    rule = parse_fault_spec("/v1/*:respond:text=<p>down</p>:content_type=text/plain")
    assert (rule.status, rule.text, rule.content_type, rule.body) == (None, "<p>down</p>", "text/plain", None)
    assert parse_fault_spec("/v1/*:status=503:for_seconds=40:times=3").for_seconds == 40
    for bad in ("/v1/x:slow_drip=0", "/v1/x:status=503:for_seconds=0", "/v1/x:respond=42"):
        with pytest.raises(ValueError):
            parse_fault_spec(bad)


def test_429_retry_after_range_is_drawn_and_logged(emulator: EmulatorHandle, alaya: httpx.Client,
                                                   alaya_body: Body) -> None:
    emulator.admin.set_faults([{"method": "POST", "path": CREATE, "kind": "status", "status": 429,
                                "retry_after": 1, "retry_after_max": 3, "times": 40}])
    sent = []
    for _ in range(40):
        response = alaya.post("/subscription/training/create", json=alaya_body(name="ranged"))
        assert response.status_code == 429
        sent.append(int(response.headers["Retry-After"]))
    assert set(sent) == {1, 2, 3}  # whole seconds, every value of the range (seeded draws)
    log = emulator.admin.requests()["fault_answers"]
    assert [entry["retry_after"] for entry in log] == sent
    first = log[0]
    assert (first["call"], first["status"], first["query"]) == (f"POST {CREATE}", 429, "")
    assert first["path"].endswith(CREATE)
    assert '"ranged"' in first["body"]  # the unread body's head says whose call it was
    assert all(a["at"] <= b["at"] for a, b in itertools.pairwise(log))
    with pytest.raises(ValueError, match="retry_after_max"):
        FaultRule(path="/v1/*", kind="status", status=429, retry_after=3, retry_after_max=2)
