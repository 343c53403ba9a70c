"""Retry policy and error mapping of the shared HTTP layer, over httpx's in-memory transport."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from pulumi_mltrain import transport
from pulumi_mltrain.alaya.client import decode as alaya_decode
from pulumi_mltrain.errors import AmbiguousOutcome, ApiError, NotFound, Retryable, WaitTimeout
from pulumi_mltrain.waiter import Backoff, wait_for

FAST = transport.Policy(timeout=1, max_retries=3, backoff_initial=0.001, backoff_max=0.002)


def client(responses: list[httpx.Response | Exception]) -> tuple[httpx.Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = responses[min(len(seen), len(responses)) - 1]
        if isinstance(item, Exception):
            raise item
        return item

    return httpx.Client(base_url="http://alaya.test", transport=httpx.MockTransport(handler)), seen


def ok(data: object) -> httpx.Response:
    return httpx.Response(200, json={"status": 200, "message": "OK", "data": data})


def call(
    responses: list[httpx.Response | Exception], method: str = "GET", idempotent: bool = True
) -> tuple[object, int]:
    http, seen = client(responses)
    result = transport.call(http, method, "/v1/x", alaya_decode, FAST, idempotent=idempotent)
    return result, len(seen)


def test_429_with_retry_after_then_success() -> None:
    result, calls = call([httpx.Response(429, headers={"Retry-After": "0"}, json={"status": 429, "message": "slow"}),
                          ok("done")])
    assert (result, calls) == ("done", 2)


def test_business_500_inside_http_200_is_retried() -> None:
    result, calls = call([httpx.Response(200, json={"status": 500, "message": "Internal Server Error", "data": {}}),
                          ok([1])])
    assert (result, calls) == ([1], 2)


def test_malformed_body_is_retried() -> None:
    result, calls = call([httpx.Response(200, text="{not json"), ok({"a": 1})])
    assert (result, calls) == ({"a": 1}, 2)


def test_retries_are_bounded() -> None:
    with pytest.raises(Retryable) as err:
        call([httpx.Response(503, json={"status": 503, "message": "busy"})])
    assert "503 Service Unavailable" in str(err.value)


def test_403_is_not_retried_and_reads_well() -> None:
    http, seen = client([httpx.Response(200, json={"status": 403, "message": "Forbidden", "data": {}})])
    with pytest.raises(ApiError) as err:
        transport.call(http, "POST", "/v1/subscription/training/create", alaya_decode, FAST, idempotent=False)
    assert len(seen) == 1
    assert str(err.value) == ("Alaya NeW rejected the request (403 Forbidden): Forbidden "
                              "(POST /v1/subscription/training/create)")


def test_unknown_id_is_not_found() -> None:
    with pytest.raises(NotFound):
        call([httpx.Response(200, json={"status": 404, "message": "training task x not found", "data": {}})])


def test_401_keeps_the_business_code() -> None:
    with pytest.raises(ApiError) as err:
        call([httpx.Response(401, json={"status": 40006, "message": "API key not found"})])
    assert "(401 Unauthorized) [40006]: API key not found" in str(err.value)


def test_write_with_5xx_is_ambiguous_and_not_repeated() -> None:
    http, seen = client([httpx.Response(502, json={"status": 502, "message": "bad gateway"}), ok("k")])
    with pytest.raises(AmbiguousOutcome):
        transport.call(http, "POST", "/v1/c", alaya_decode, FAST, idempotent=False)
    assert len(seen) == 1


def test_write_dropped_after_send_is_ambiguous() -> None:
    with pytest.raises(AmbiguousOutcome):
        call([httpx.RemoteProtocolError("peer closed connection")], method="POST", idempotent=False)


def test_write_throttled_is_retried() -> None:
    result, calls = call([httpx.Response(429, json={"status": 429, "message": "slow"}), ok("key")],
                         method="POST", idempotent=False)
    assert (result, calls) == ("key", 2)


def test_write_that_never_connected_is_retried() -> None:
    result, calls = call([httpx.ConnectError("refused"), ok("key")], method="POST", idempotent=False)
    assert (result, calls) == ("key", 2)


def test_read_transport_errors_are_retried() -> None:
    result, calls = call([httpx.ReadTimeout("slow"), ok("x")])
    assert (result, calls) == ("x", 2)


def fake_clock() -> tuple[Callable[[], float], Callable[[float], None], list[float]]:
    now = [0.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    return (lambda: now[0]), sleep, sleeps


def test_waiter_backs_off_and_returns() -> None:
    clock, sleep, sleeps = fake_clock()
    states = iter(["PROCESSING"] * 5 + ["SUCCESS"])
    waited = wait_for(lambda: next(states), lambda s: s == "SUCCESS", timeout=60, what="sub",
                      backoff=Backoff(first=0.5, maximum=2.0), clock=clock, sleep=sleep)
    assert waited.value == "SUCCESS" and waited.polls == 6
    assert sleeps == [0.5, 1.0, 2.0, 2.0, 2.0]


def test_waiter_deadline_names_the_state() -> None:
    clock, sleep, _ = fake_clock()
    with pytest.raises(WaitTimeout) as err:
        wait_for(lambda: "PROCESSING", lambda s: False, timeout=10, what="subscription k",
                 clock=clock, sleep=sleep)
    assert "subscription k was still PROCESSING after 10s" in str(err.value)


def test_write_turned_away_with_503_is_retried() -> None:
    result, calls = call([httpx.Response(503, json={"status": 503, "message": "busy"}), ok("key")],
                         method="POST", idempotent=False)
    assert (result, calls) == ("key", 2)
