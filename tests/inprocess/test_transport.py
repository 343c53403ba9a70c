"""The shared HTTP layer: retry policy and error mapping over httpx's in-memory transport; total and
operation deadlines, TLS and endpoint checks over real loopback servers (the emulator, or tiny ones here)."""

from __future__ import annotations

import email.utils
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain import deadline, transport
from pulumi_mltrain.alaya.wire.client import AlayaClient, BearerAuth
from pulumi_mltrain.alaya.wire.client import decode as alaya_decode
from pulumi_mltrain.config import Settings
from pulumi_mltrain.deadline import Deadline
from pulumi_mltrain.errors import AmbiguousOutcome, ApiError, ConfigError, NotFound, Retryable, WaitTimeout
from pulumi_mltrain.waiter import Backoff, wait_for
from support import inprocess

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
    broken = httpx.Response(200, text="{not json", headers={"Content-Type": "application/json"})
    result, calls = call([broken, ok({"a": 1})])
    assert (result, calls) == ({"a": 1}, 2)


def test_retries_are_bounded() -> None:
    with pytest.raises(Retryable) as err:
        call([httpx.Response(503, json={"status": 503, "message": "busy"})])
    assert "503 Service Unavailable" in str(err.value)


@pytest.mark.parametrize("retries", [0, 1, 3])
def test_a_persistent_503_is_sent_once_plus_max_retries(retries: int) -> None:
    http, seen = client([httpx.Response(503, json={"status": 503, "message": "busy"})])
    policy = transport.Policy(timeout=1, max_retries=retries, backoff_initial=0.001, backoff_max=0.002)
    with pytest.raises(Retryable, match="503"):
        transport.call(http, "GET", "/v1/x", alaya_decode, policy)
    assert len(seen) == 1 + retries


def test_a_throttled_request_does_not_spend_the_retries() -> None:
    """Six 429s, then the answer: a shared account's throttling makes the call slower, never failed,
    although the policy allows 3 retries of errors (30 % 429s failed one `up` of 50 jobs in five)."""
    throttled = httpx.Response(429, headers={"Retry-After": "0"}, json={"status": 429, "message": "slow"})
    result, calls = call([throttled] * 6 + [ok("done")])
    assert (result, calls) == ("done", 7)


def test_an_error_past_the_retries_ends_a_throttled_call() -> None:
    busy = httpx.Response(503, json={"status": 503, "message": "busy"})
    throttled = httpx.Response(429, headers={"Retry-After": "0"}, json={"status": 429, "message": "slow"})
    http, seen = client([busy, throttled, busy, throttled, busy, busy, ok("late")])
    with pytest.raises(Retryable, match="503"):
        transport.call(http, "GET", "/v1/x", alaya_decode, FAST)
    assert len(seen) == 5  # the first error past 1 + max_retries (3) attempts ends it


def test_endless_429s_outside_a_deadline_give_up() -> None:
    throttled = httpx.Response(429, headers={"Retry-After": "0"}, json={"status": 429, "message": "slow"})
    http, seen = client([throttled])
    with pytest.raises(Retryable, match="429"):
        transport.call(http, "GET", "/v1/x", alaya_decode, FAST)
    assert len(seen) == transport.THROTTLED_ATTEMPTS


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
    with pytest.raises(AmbiguousOutcome) as caught:
        call([httpx.RemoteProtocolError("peer closed connection")], method="POST", idempotent=False)
    assert str(caught.value) == ("POST /v1/x: the connection failed (RemoteProtocolError: peer closed connection); "
                                 "the request was sent, so the platform may or may not have applied it")


def test_a_transport_failure_does_not_read_as_a_refusal() -> None:
    with pytest.raises(Retryable) as caught:
        call([httpx.ReadError("connection reset")] * 4)
    assert str(caught.value) == "GET /v1/x: the connection failed (ReadError: connection reset)"


def test_a_timeout_without_detail_still_reads_as_one() -> None:
    with pytest.raises(Retryable) as caught:
        call([httpx.ReadTimeout("")] * 4)
    assert str(caught.value) == "GET /v1/x: no answer from the platform in time (ReadTimeout: no detail)"


def test_a_refused_connection_names_the_endpoint() -> None:
    with socket.socket() as probe:  # a port nothing listens on: bound, never listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        policy = transport.Policy(timeout=2, max_retries=0)
        with transport.new_client(f"http://127.0.0.1:{port}", policy) as http, pytest.raises(Retryable) as caught:
            transport.call(http, "GET", "/v1/x", alaya_decode, policy)
    assert str(caught.value).startswith(f"GET /v1/x: could not connect to http://127.0.0.1:{port} (ConnectError: ")


def test_write_throttled_is_retried() -> None:
    result, calls = call([httpx.Response(429, json={"status": 429, "message": "slow"}), ok("key")],
                         method="POST", idempotent=False)
    assert (result, calls) == ("key", 2)


@pytest.mark.parametrize("unsent", [httpx.ConnectError("refused"), httpx.ConnectTimeout("no answer to SYN"),
                                    httpx.PoolTimeout("every connection busy")])
def test_write_that_never_left_is_retried(unsent: Exception) -> None:
    result, calls = call([unsent, ok("key")], method="POST", idempotent=False)
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
    waited = wait_for(lambda: next(states), lambda s: s == "SUCCESS", until=Deadline.after(60, "sub", start=clock()),
                      what="sub", backoff=Backoff(first=0.5, maximum=2.0), clock=clock, sleep=sleep)
    assert waited.value == "SUCCESS" and waited.polls == 6
    # Pauses grow with the time waited (a tenth of it, at least `first`): early on they stay at `first`.
    assert sleeps == [0.5, 0.5, 0.5, 0.5, 0.5]


def test_waiter_deadline_names_the_state() -> None:
    clock, sleep, _ = fake_clock()
    with pytest.raises(WaitTimeout) as err:
        wait_for(lambda: "PROCESSING", lambda s: False, until=Deadline.after(10, "sub", start=clock()),
                 what="subscription k", clock=clock, sleep=sleep)
    assert "subscription k was still PROCESSING after 10s" in str(err.value)


def api_client(responses: list[httpx.Response | Exception], policy: transport.Policy) -> transport.ApiClient:
    """A client as `new_client` makes it (its policy, its Retrying), over an in-memory transport."""
    items = iter(responses)

    def handler(_request: httpx.Request) -> httpx.Response:
        item = next(items)
        if isinstance(item, Exception):
            raise item
        return item

    return transport.ApiClient(policy, base_url="http://alaya.test", transport=httpx.MockTransport(handler))


def test_retries_run_under_the_clients_one_retrying() -> None:
    busy = httpx.Response(503, json={"status": 503, "message": "busy"})
    http = api_client([busy, ok(1), busy, busy, ok(2)], FAST)
    rules = http.retrying
    assert transport.call(http, "GET", "/v1/x", alaya_decode, FAST) == 1
    assert rules.statistics["attempt_number"] == 2
    assert transport.call(http, "GET", "/v1/x", alaya_decode, FAST) == 2
    assert http.retrying is rules and rules.statistics["attempt_number"] == 3


def test_the_pause_before_a_retry_honours_retry_after() -> None:
    """The backoff would be at most 2 ms; the server asks for 0.3 s and gets it (tenacity counts the
    time it slept, so this needs no clock)."""
    throttled = httpx.Response(429, headers={"Retry-After": "0.3"}, json={"status": 429, "message": "slow"})
    http = api_client([throttled, ok("done")], FAST)
    assert transport.call(http, "GET", "/v1/x", alaya_decode, FAST) == "done"
    assert http.retrying.statistics["idle_for"] >= 0.3


def test_retry_after_is_the_pause_even_when_the_backoff_would_be_longer() -> None:
    """The server's Retry-After (0.2 s) is the pause, not a backoff grown to seconds by earlier 429s."""
    slow = transport.Policy(timeout=5.0, max_retries=5, backoff_initial=4.0, backoff_max=20.0)
    throttled = httpx.Response(429, headers={"Retry-After": "0.2"}, json={"status": 429, "message": "slow"})
    http = api_client([throttled, throttled, throttled, ok("done")], slow)
    assert transport.call(http, "GET", "/v1/x", alaya_decode, slow) == "done"
    assert 0.6 <= http.retrying.statistics["idle_for"] < 1.0, http.retrying.statistics


def test_a_single_attempt_leaves_the_transient_error_to_the_caller() -> None:
    busy = httpx.Response(503, headers={"Retry-After": "2"}, json={"status": 503, "message": "busy"})
    http = api_client([busy, ok("late")], FAST)
    with transport.single_attempt(), pytest.raises(Retryable, match="503") as err:
        transport.call(http, "GET", "/v1/x", alaya_decode, FAST)
    assert err.value.retry_after == 2.0  # the caller paces the next look by it
    assert transport.call(http, "GET", "/v1/x", alaya_decode, FAST) == "late"  # outside the block: as before


def test_write_turned_away_with_503_is_retried() -> None:
    result, calls = call([httpx.Response(503, json={"status": 503, "message": "busy"}), ok("key")],
                         method="POST", idempotent=False)
    assert (result, calls) == ("key", 2)


# --- total deadline, operation deadline, Retry-After, over loopback -----------------------------------

ENABLED = "/training/instance/checkIsEnabled"
CREATE = "/subscription/training/create"


def emulated(emulator: EmulatorHandle, policy: transport.Policy) -> httpx.Client:
    return transport.new_client(emulator.url + "/v1", policy, BearerAuth(emulator.alaya_api_key))


def calls_to(emulator: EmulatorHandle, key: str) -> int:
    count: int = emulator.admin.requests()["endpoints"].get(key, 0)
    return count


def test_a_dripping_answer_fails_at_the_total_deadline(emulator: EmulatorHandle) -> None:
    """~50 bytes at 2 B/s would take 25 s; each byte comes well within any read timeout."""
    emulator.admin.set_faults([f"GET /v1{ENABLED}:slow_drip=2"])
    policy = transport.Policy(timeout=2.0, max_retries=0)
    with emulated(emulator, policy) as http:
        started = time.monotonic()
        with pytest.raises(Retryable) as err:
            transport.call(http, "GET", ENABLED, alaya_decode, policy)
        elapsed = time.monotonic() - started
    print(f"drip: failed after {elapsed:.2f}s with a 2 s timeout")
    assert elapsed < policy.timeout + 8  # the drip alone would take 25 s; 8 s: a loaded machine's slack
    assert "ReadTimeout" in str(err.value) and "no complete answer within 2.0s" in str(err.value)


def test_a_dripping_create_answer_is_ambiguous_not_repeated(emulator: EmulatorHandle) -> None:
    emulator.admin.set_faults([f"POST /v1{CREATE}:slow_drip=2"])
    body = {"name": "drip", "createType": "DIRECT", "trainingType": "pre_training", "imageType": "general",
            "trainingFramwork": "pytorch", "productCode": d.PRODUCT_TRAIN_1, "workerCount": 1,
            "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu", "startCommand": "python3 train.py"}
    policy = transport.Policy(timeout=1.5, max_retries=3)
    with emulated(emulator, policy) as http:
        started = time.monotonic()
        with pytest.raises(AmbiguousOutcome):
            transport.call(http, "POST", CREATE, alaya_decode, policy, idempotent=False, json=body)
        assert time.monotonic() - started < policy.timeout + 8  # the drip alone: 25 s
    assert calls_to(emulator, f"POST /v1{CREATE}") == 1
    assert len(emulator.admin.state()["alaya"]["subscriptions"]) == 1  # committed: the caller must look it up


@pytest.fixture
def stalling_server() -> Iterator[str]:
    """Answers headers and one body byte at once, a second byte after 1.5 s, then nothing for 30 s."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)
    done = threading.Event()

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{")
            for pause, data in ((1.5, b" "), (30.0, b"")):
                if done.wait(pause):
                    return
                conn.sendall(data)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    done.set()
    listener.close()
    thread.join(5)


def test_a_stalled_read_is_cut_at_the_deadline(stalling_server: str) -> None:
    """The read timeout alone would end this at 1.5 + 2 = 3.5 s; the deadline ends it at 2 s."""
    policy = transport.Policy(timeout=2.0, max_retries=0)
    with transport.new_client(stalling_server, policy) as http:
        started = time.monotonic()
        with pytest.raises(Retryable, match="ReadTimeout"):
            transport.call(http, "GET", "/x", alaya_decode, policy)
        elapsed = time.monotonic() - started
    print(f"stall: failed after {elapsed:.2f}s with a 2 s timeout")
    assert elapsed < 3.0


class Dripping:
    """Every connection: headers and one body byte at once, then a byte every 0.2 s (60 in all); `sent`
    counts, per connection in accept order, the bytes it took before the client hung up."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(10)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.sent: list[int] = []
        self.done = threading.Event()

    def drip(self, conn: socket.socket, slot: int) -> None:
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n{")
            conn.settimeout(0.2)
            for _ in range(59):
                try:
                    if conn.recv(1) == b"":
                        return  # the client shut the socket down
                except TimeoutError:
                    pass
                except OSError:
                    return
                if self.done.is_set():
                    return
                conn.sendall(b" ")
                self.sent[slot] += 1

    def serve(self) -> None:
        for slot in range(2):
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.sent.append(0)
            threading.Thread(target=self.drip, args=(conn, slot), daemon=True).start()


@pytest.fixture
def dripping_server() -> Iterator[Dripping]:
    server = Dripping()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    yield server
    server.done.set()
    server.listener.close()
    thread.join(5)


def test_an_earlier_deadline_is_kept_while_a_later_one_waits(dripping_server: Dripping) -> None:
    """One watchdog serves every request: a short deadline set after a long one still ends its read first."""
    outcomes: dict[str, str] = {}

    def read(name: str, seconds: float) -> None:
        policy = transport.Policy(timeout=seconds, max_retries=0)
        with transport.new_client(dripping_server.url, policy) as http:
            try:
                transport.call(http, "GET", "/x", alaya_decode, policy)
                outcomes[name] = "answered"
            except Retryable as err:
                outcomes[name] = "cut" if "ReadTimeout" in str(err) else str(err)

    long = threading.Thread(target=read, args=("long", 6.0))
    long.start()
    for _ in range(100):  # the long read is registered first
        if dripping_server.sent:
            break
        time.sleep(0.05)
    read("short", 1.0)
    long.join(15)
    assert outcomes == {"short": "cut", "long": "cut"}
    long_sent, short_sent = dripping_server.sent
    assert short_sent < long_sent / 2, dripping_server.sent  # the short read was cut long before the other


@pytest.mark.parametrize(("rule", "max_retries", "least"), [
    ({"status": 503}, 10, 1),
    ({"status": 429, "retry_after": 1}, 0, 2),  # a 429 goes on past max_retries, until the deadline
])
def test_the_operation_deadline_caps_retries(emulator: EmulatorHandle, rule: dict[str, int], max_retries: int,
                                             least: int) -> None:
    emulator.admin.set_faults([{"method": "GET", "path": f"/v1{ENABLED}", "kind": "status", **rule}])
    policy = transport.Policy(timeout=10, max_retries=max_retries, backoff_initial=0.3, backoff_max=0.6)
    with emulated(emulator, policy) as http:
        started = time.monotonic()
        with deadline.scope(Deadline(started + 2.0, "the operation", 2.0)), \
                pytest.raises(Retryable, match=str(rule["status"])):
            transport.call(http, "GET", ENABLED, alaya_decode, policy)
        elapsed = time.monotonic() - started
    assert elapsed < 2.0 + 0.5  # stopped before a pause that would pass the deadline
    assert least <= calls_to(emulator, f"GET /v1{ENABLED}") < 11


def test_the_operation_deadline_caps_each_request(emulator: EmulatorHandle) -> None:
    emulator.admin.set_faults([f"GET /v1{ENABLED}:slow_after_commit=4"])
    policy = transport.Policy(timeout=30, max_retries=5, backoff_initial=0.01, backoff_max=0.02)
    with emulated(emulator, policy) as http:
        started = time.monotonic()
        with deadline.scope(Deadline(started + 1.5, "reading alaya:TrainingJob 'x'", 1.5)), \
                pytest.raises(Retryable) as caught:
            transport.call(http, "GET", ENABLED, alaya_decode, policy)
        assert time.monotonic() - started < 1.5 + 2
    # Cut by the operation's deadline, not by the request timeout: the error says which to raise.
    assert str(caught.value).endswith("no answer within the 1.5s deadline of reading alaya:TrainingJob 'x'; raise "
                                      "its timeout (customTimeouts) or check the platform")


def test_a_write_cut_by_the_operation_deadline_is_ambiguous(emulator: EmulatorHandle) -> None:
    emulator.admin.set_faults([f"PUT /v1{ENABLED}:slow_after_commit=4"])
    policy = transport.Policy(timeout=30, max_retries=5)
    expected = (r"no answer within the 1s deadline of updating x; .* the request was sent, so the platform may or "
                r"may not have applied it")
    with emulated(emulator, policy) as http, deadline.scope(Deadline.after(1.0, "updating x")), \
            pytest.raises(AmbiguousOutcome, match=expected):
        transport.call(http, "PUT", ENABLED, alaya_decode, policy, idempotent=False)


def test_no_request_starts_after_the_operation_deadline(emulator: EmulatorHandle) -> None:
    policy = transport.Policy(timeout=5, max_retries=2)
    with emulated(emulator, policy) as http:
        with deadline.scope(Deadline.after(60, "the operation")):
            with deadline.scope(Deadline(time.monotonic() - 1, "creating alaya:TrainingJob 'late'", 0)), \
                    pytest.raises(WaitTimeout) as err:
                transport.call(http, "GET", ENABLED, alaya_decode, policy)
            left = deadline.left()
            assert 50 < left <= 60  # the inner block ended; the outer one holds
        assert deadline.current() is None
        assert transport.call(http, "GET", ENABLED, alaya_decode, policy) is True  # no deadline: as before
    assert str(err.value) == (f"GET {ENABLED} was not sent: creating alaya:TrainingJob 'late' ran out of time; "
                              "raise its timeout (customTimeouts) or check the platform")
    assert calls_to(emulator, f"GET /v1{ENABLED}") == 1


def test_polls_during_an_outage_send_one_request_each(emulator: EmulatorHandle) -> None:
    """Three 503s in a row: with the transport's retries (5 here) the first poll would absorb them
    all; instead each poll sends one request and the waiter, pacing the polls, sees the outage."""
    emulator.admin.set_faults([{"method": "GET", "path": f"/v1{ENABLED}", "kind": "status", "status": 503,
                                "times": 3}])
    policy = transport.Policy(timeout=5, max_retries=5, backoff_initial=0.01, backoff_max=0.02)
    seen: list[str] = []
    with emulated(emulator, policy) as http:
        waited = wait_for(lambda: transport.call(http, "GET", ENABLED, alaya_decode, policy), lambda v: v is True,
                          until=Deadline.after(30, "enabled"), what="enabled",
                          backoff=Backoff(first=0.01, maximum=0.02), sink=lambda text, _urn: seen.append(text))
    assert waited.polls == 4
    assert calls_to(emulator, f"GET /v1{ENABLED}") == 4
    assert "503 Service Unavailable" in seen[0] and "polling again until the deadline" in seen[0]


def test_a_later_inner_deadline_does_not_extend_the_outer_one() -> None:
    with deadline.scope(Deadline.after(5, "outer")), deadline.scope(Deadline.after(500, "inner")):
        assert deadline.left() <= 5


def test_a_clean_up_may_override_a_spent_deadline() -> None:
    with deadline.scope(Deadline(time.monotonic() - 1, "spent", 0)):
        with deadline.scope(Deadline.after(30, "cleaning up"), override=True):
            assert deadline.left() > 25
        spent = deadline.current()
        assert spent is not None and spent.at < time.monotonic() and deadline.left() == 0


def test_the_deadline_is_per_thread() -> None:
    seen: list[Deadline | None] = []
    with deadline.scope(Deadline.after(5, "here")):
        thread = threading.Thread(target=lambda: seen.append(deadline.current()))
        thread.start()
        thread.join()
    assert seen == [None]


def test_retry_after_that_is_not_a_delay_is_ignored() -> None:
    result, calls = call([httpx.Response(429, headers={"Retry-After": "soon"}, json={"status": 429, "message": "x"}),
                          ok("done")])
    assert (result, calls) == ("done", 2)


def test_retry_after_parsing_clamps() -> None:
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert transport.parse_retry_after("soon") is None
    assert transport.parse_retry_after("nan") is None
    assert transport.parse_retry_after("") is None
    assert transport.parse_retry_after("-5") == 0.0
    assert transport.parse_retry_after("1e12") == transport.RETRY_AFTER_CAP
    assert transport.parse_retry_after("inf") == transport.RETRY_AFTER_CAP
    assert transport.parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    parsed = transport.parse_retry_after(future)
    assert parsed is not None and 25 < parsed <= 30


def test_retry_after_as_a_date_counts_from_the_answers_date() -> None:
    # The platform's clock an hour ahead of this machine's: its date says 2 s from its own Date, which
    # against this machine's clock would read as the 60 s cap (and an hour behind, as 0 s).
    for skew in (3600, -3600):
        sent = time.time() + skew
        answer = email.utils.formatdate(sent, usegmt=True)
        retry_at = email.utils.formatdate(sent + 2, usegmt=True)
        assert transport.parse_retry_after(retry_at, answer) == 2.0
    assert transport.parse_retry_after("Wed, 21 Oct 2015 07:28:02 GMT", "Wed, 21 Oct 2015 07:28:00 GMT") == 2.0
    # No usable Date: this machine's clock, as before.
    assert transport.parse_retry_after("Wed, 21 Oct 2015 07:28:02 GMT", "yesterday") == 0.0


def test_a_polls_retry_after_date_is_read_against_the_same_answers_date() -> None:
    sent = time.time() + 3600
    throttled = httpx.Response(429, json={"status": 429, "message": "slow"}, headers={
        "Date": email.utils.formatdate(sent, usegmt=True),
        "Retry-After": email.utils.formatdate(sent + 3, usegmt=True)})
    http, _ = client([throttled])
    with transport.single_attempt(), pytest.raises(Retryable) as err:
        transport.call(http, "GET", "/v1/x", alaya_decode, FAST)
    assert err.value.retry_after == 3.0


# --- TLS and endpoint checks ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tls_cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost: (certificate, key)."""
    folder: Path = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture(scope="module")
def tls_server(tls_cert: tuple[Path, Path]) -> Iterator[str]:
    """A loopback HTTPS server with a self-signed certificate, answering one Alaya envelope per call."""
    cert, key = tls_cert
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    body = b'{"status": 200, "message": "OK", "data": true}'

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                raw, _ = listener.accept()
            except OSError:
                continue
            try:
                with context.wrap_socket(raw, server_side=True) as conn:
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            except (OSError, ssl.SSLError):
                raw.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(5)
    listener.close()


@pytest.mark.parametrize("scheme", ["https", "HTTPS", "Https"])
def test_https_in_any_case_verifies_the_certificate(tls_server: str, scheme: str) -> None:
    policy = transport.Policy(timeout=5, max_retries=0)
    with transport.new_client(f"{scheme}://{tls_server}", policy) as http, pytest.raises(Retryable) as err:
        transport.call(http, "GET", "/x", alaya_decode, policy)
    assert "CERTIFICATE_VERIFY_FAILED" in str(err.value)


def test_the_explicit_opt_out_skips_verification(tls_server: str) -> None:
    policy = transport.Policy(timeout=5, max_retries=0, verify_tls=False)
    with transport.new_client(f"HTTPS://{tls_server}", policy) as http:
        assert transport.call(http, "GET", "/x", alaya_decode, policy) is True


def test_a_ca_bundle_named_by_ssl_cert_file_is_trusted(tls_server: str, tls_cert: tuple[Path, Path],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A private CA (as in many CI networks) is trusted the way httpx trusts one: SSL_CERT_FILE."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_cert[0]))
    policy = transport.Policy(timeout=5, max_retries=0)
    with transport.new_client(f"https://{tls_server}", policy) as http:
        assert transport.call(http, "GET", "/x", alaya_decode, policy) is True


def test_https_clients_share_one_tls_context_per_ca_source(tls_server: str, tls_cert: tuple[Path, Path],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The CA bundle is loaded once per process and CA source, never shared across sources: a client
    made after SSL_CERT_FILE is unset again does not trust the private CA."""
    policy = transport.Policy(timeout=5, max_retries=0)
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_cert[0]))
    private = transport.tls_context()
    assert transport.tls_context() is private
    for _ in range(2):
        with transport.new_client(f"https://{tls_server}", policy) as http:
            assert transport.call(http, "GET", "/x", alaya_decode, policy) is True
    monkeypatch.delenv("SSL_CERT_FILE")
    assert transport.tls_context() is not private
    with transport.new_client(f"https://{tls_server}", policy) as http, pytest.raises(Retryable) as err:
        transport.call(http, "GET", "/x", alaya_decode, policy)
    assert "CERTIFICATE_VERIFY_FAILED" in str(err.value)


def settings(**config: str) -> Settings:
    return Settings.load({f"mltrain:{k}": v for k, v in config.items()}, env={})


def test_plain_http_to_a_remote_host_is_refused_before_any_request() -> None:
    with pytest.raises(ConfigError) as err:
        settings(alayaEndpoint="http://10.0.0.1", alayaApiKey="k")
    text = str(err.value)
    assert "`mltrain:alayaEndpoint` (MLTRAIN_ALAYA_ENDPOINT) = 'http://10.0.0.1' is plain http" in text
    assert "pulumi config set mltrain:allowInsecureHttp true" in text
    with pytest.raises(ConfigError, match="mltrain:modelartsEndpoint"):
        settings(modelartsEndpoint="HTTP://modelarts.example.com")


def test_plain_http_to_a_remote_host_is_allowed_with_the_switch() -> None:
    allowed = settings(alayaEndpoint="http://10.0.0.1", alayaApiKey="k", allowInsecureHttp="true")
    client = AlayaClient(allowed)  # constructed only: no traffic to 10.0.0.1
    assert str(client.http.base_url) == "http://10.0.0.1"
    client.http.close()
    env = Settings.load({"mltrain:alayaEndpoint": "http://10.0.0.1"}, env={"MLTRAIN_ALLOW_INSECURE_HTTP": "1"})
    assert env.allow_insecure_http is True


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080", "http://127.3.4.5", "http://localhost:1/api",
                                 "http://[::1]:9", "https://10.0.0.1"])
def test_loopback_http_and_any_https_are_accepted(url: str) -> None:
    assert settings(alayaEndpoint=url).alaya_endpoint == url


@pytest.mark.parametrize(("url", "problem"), [
    ("ftp://files.example.com", "has scheme 'ftp'"), ("api.alayanew.com", "has no scheme"),
    ("https://", "has no host"), ("https://host:port", "is not a valid URL"),
])
def test_endpoints_without_http_scheme_or_host_are_refused(url: str, problem: str) -> None:
    with pytest.raises(ConfigError) as err:
        settings(huaweiIamEndpoint=url)
    assert f"`mltrain:huaweiIamEndpoint` (MLTRAIN_HUAWEI_IAM_ENDPOINT) = {url!r} {problem}" in str(err.value)
    with pytest.raises(ConfigError, match=problem):
        transport.new_client(url, transport.Policy())


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("requestTimeout", "inf", "finite"), ("requestTimeout", "nan", "finite"), ("requestTimeout", "0", "greater than 0"),
    ("maxRetries", "2.5", "whole number"), ("maxRetries", "-1", "whole number"), ("maxRetries", "99", "less than"),
])
def test_numbers_are_validated_strictly(key: str, value: str, problem: str) -> None:
    with pytest.raises(ConfigError) as err:
        settings(**{key: value})
    assert f"`mltrain:{key}`" in str(err.value) and problem in str(err.value)


def test_whole_numbers_from_config_and_code() -> None:
    assert settings(maxRetries="3", requestTimeout="2.5").max_retries == 3
    assert Settings(max_retries=4).max_retries == 4
    assert Settings(max_retries=2.0).max_retries == 2  # numbers cross the engine's RPC as floats
    for bad in (True, 2.5, "three"):
        with pytest.raises(ValueError):
            Settings(max_retries=bad)


def test_the_platforms_clock_is_read_from_its_answers_date_header(emulator: EmulatorHandle) -> None:
    """A platform whose clock is ten minutes ahead of this machine's shows it in every answer's `Date`
    (whole seconds: the midpoint, within half a second); what `max_pending_minutes` counts with."""
    client = AlayaClient(inprocess.settings("alaya", emulator))
    try:
        assert transport.skew(client.http) == 0.0  # no answer yet: this machine's clock
        emulator.admin.advance(600)
        client.list_tasks("none-")
        assert 599.0 <= transport.skew(client.http) <= 601.0, transport.skew(client.http)
    finally:
        client.http.close()
