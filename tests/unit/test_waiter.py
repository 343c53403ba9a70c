"""wait_for keeps polling through transient errors until its own deadline, and only through those."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from pulumi_mltrain.errors import ApiError, Retryable, WaitTimeout
from pulumi_mltrain.waiter import Backoff, wait_for

QUICK = Backoff(first=1.0, maximum=1.0)


def outage() -> Retryable:
    return Retryable("Alaya NeW", "GET", "/v1/training/instance/t1", 503, None, "Service Unavailable")


def clock() -> tuple[Callable[[], float], Callable[[float], None]]:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    return (lambda: now[0]), sleep


def script(items: list[str | Exception]) -> Callable[[], str]:
    feed: Iterator[str | Exception] = iter(items)

    def fetch() -> str:
        item = next(feed)
        if isinstance(item, Exception):
            raise item
        return item

    return fetch


def test_an_outage_inside_the_wait_is_waited_out(capsys: pytest.CaptureFixture[str]) -> None:
    now, sleep = clock()
    fetch = script(["Pending", *[outage() for _ in range(40)], "Running"])
    waited = wait_for(fetch, lambda s: s == "Running", timeout=180, what="task t1", backoff=QUICK,
                      clock=now, sleep=sleep)
    assert (waited.value, waited.polls) == ("Running", 42)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "[mltrain] task t1: Pending",
        "[mltrain] task t1: Alaya NeW rejected the request (503 Service Unavailable): Service Unavailable "
        "(GET /v1/training/instance/t1); polling again until the deadline",
        "[mltrain] task t1: the platform answers again",
        "[mltrain] task t1: Running",
    ]  # forty failures, one line


def test_the_deadline_names_the_wait_and_the_last_error() -> None:
    now, sleep = clock()
    with pytest.raises(WaitTimeout) as err:
        wait_for(lambda: (_ for _ in ()).throw(outage()), lambda s: False, timeout=30, what="subscription k",
                 backoff=QUICK, clock=now, sleep=sleep)
    text = str(err.value)
    assert text.startswith("subscription k did not finish within 30s (never seen); the last error was: "
                           "Alaya NeW rejected the request (503 Service Unavailable)")
    assert now() == 30


def test_a_timeout_after_an_outage_says_the_last_state_too() -> None:
    now, sleep = clock()
    fetch = script(["Pending", *[outage() for _ in range(100)]])
    with pytest.raises(WaitTimeout, match=r"task t1 did not finish within 10s \(last seen Pending\); the last error"):
        wait_for(fetch, lambda s: False, timeout=10, what="task t1", backoff=QUICK, clock=now, sleep=sleep)


def test_other_errors_propagate_at_once() -> None:
    now, sleep = clock()
    calls: list[int] = []

    def fetch() -> str:
        calls.append(1)
        raise ApiError("Alaya NeW", "GET", "/v1/x", 403, None, "Forbidden")

    with pytest.raises(ApiError, match="403"):
        wait_for(fetch, lambda s: True, timeout=60, what="task", clock=now, sleep=sleep)
    assert (len(calls), now()) == (1, 0.0)
