"""wait_for keeps polling through transient errors until its own deadline, and only through those."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import pairwise

import pytest

from pulumi_mltrain.deadline import Deadline
from pulumi_mltrain.errors import ApiError, Retryable, WaitTimeout
from pulumi_mltrain.ownership import Mark
from pulumi_mltrain.progress import Label, duration, engine_address
from pulumi_mltrain.waiter import Backoff, wait_for

QUICK = Backoff(first=1.0, maximum=1.0)


def outage() -> Retryable:
    return Retryable("Alaya NeW", "GET", "/v1/training/instance/t1", 503, None, "Service Unavailable")


def clock() -> tuple[Callable[[], float], Callable[[float], None]]:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    return (lambda: now[0]), sleep


def within(seconds: float, now: Callable[[], float]) -> Deadline:
    """A wait's deadline `seconds` from now on the test's clock."""
    return Deadline.after(seconds, "the test's wait", start=now())


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
    waited = wait_for(fetch, lambda s: s == "Running", until=within(180, now), what="task t1", backoff=QUICK,
                      clock=now, sleep=sleep)
    assert (waited.value, waited.polls) == ("Running", 42)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "[mltrain] task t1: Pending after 0s (deadline 3m)",
        "[mltrain] task t1: Alaya NeW rejected the request (503 Service Unavailable): Service Unavailable "
        "(GET /v1/training/instance/t1); polling again until the deadline after 1s (deadline 3m)",
        "[mltrain] task t1: the platform still does not answer after 31s (deadline 3m)",
        "[mltrain] task t1: the platform answers again: Running after 41s (deadline 3m)",
    ]  # forty failures: one line, and one more when thirty seconds pass without news


def test_the_deadline_names_the_wait_and_the_last_error() -> None:
    now, sleep = clock()
    with pytest.raises(WaitTimeout) as err:
        wait_for(lambda: (_ for _ in ()).throw(outage()), lambda s: False, until=within(30, now), what="subscription k",
                 backoff=QUICK, clock=now, sleep=sleep)
    text = str(err.value)
    assert text.startswith("subscription k did not finish within 30s (never seen); the last error was: "
                           "Alaya NeW rejected the request (503 Service Unavailable)")
    assert now() == 30


def test_a_timeout_after_an_outage_says_the_last_state_too() -> None:
    now, sleep = clock()
    fetch = script(["Pending", *[outage() for _ in range(100)]])
    with pytest.raises(WaitTimeout, match=r"task t1 did not finish within 10s \(last seen Pending\); the last error"):
        wait_for(fetch, lambda s: False, until=within(10, now), what="task t1", backoff=QUICK, clock=now, sleep=sleep)


def test_other_errors_propagate_at_once() -> None:
    now, sleep = clock()
    calls: list[int] = []

    def fetch() -> str:
        calls.append(1)
        raise ApiError("Alaya NeW", "GET", "/v1/x", 403, None, "Forbidden")

    with pytest.raises(ApiError, match="403"):
        wait_for(fetch, lambda s: True, until=within(60, now), what="task", clock=now, sleep=sleep)
    assert (len(calls), now()) == (1, 0.0)


def test_lines_name_the_resource_id_state_elapsed_and_deadline() -> None:
    now, sleep = clock()
    fetch = script(["QUEUED", "QUEUED", "RUNNING"])
    said: list[tuple[str, str | None]] = []
    urn = "urn:pulumi:dev::infra::pulumi-python:dynamic/alaya:TrainingJob::llama3-sft"
    label = Label.of("TrainingJob", None, Mark("stack-1", urn), object_id="tt-3f9c")
    wait_for(fetch, lambda s: s == "RUNNING", until=within(1200, now), what="task tt-3f9c", label=label,
             backoff=Backoff(first=20.0, maximum=20.0), clock=now, sleep=sleep,
             sink=lambda line, where: said.append((line, where)))
    assert said == [
        ("[mltrain] TrainingJob 'llama3-sft' (tt-3f9c): QUEUED after 0s (deadline 20m)", urn),
        ("[mltrain] TrainingJob 'llama3-sft' (tt-3f9c): RUNNING after 30s (deadline 20m)", urn),
    ]  # the unchanged QUEUED at 20s is not repeated; the poll at 30s is the heartbeat's


def test_a_state_that_lasts_is_repeated_at_least_every_30s_and_no_line_twice() -> None:
    now, sleep = clock()
    stamps: list[float] = []
    said: list[str] = []

    def fetch() -> str:
        return "RUNNING" if now() < 200 else "SUCCEEDED"

    wait_for(fetch, lambda s: s == "SUCCEEDED", until=within(600, now), what="job j1",
             label=Label("TrainingJob", "bert", "j1", None, "stopping"),
             backoff=Backoff(first=1.0, maximum=45.0), clock=now, sleep=sleep,
             sink=lambda line, _where: (said.append(line), stamps.append(now())))
    assert stamps[0] == 0 and all(b - a <= 30 for a, b in pairwise(stamps))
    assert len(said) == len(set(said)) >= 7  # 200 s of RUNNING: one line per 30 s at least
    assert said[1].startswith("[mltrain] TrainingJob 'bert' (j1), stopping: still RUNNING after 30s")
    assert said[-1].endswith("SUCCEEDED after 3m30s (deadline 10m)")


def test_label_without_owner_uses_the_spec_name_and_durations_read_well() -> None:
    class Spec:
        name = "sft-a1b2c3"

    assert Label.of("Algorithm", Spec(), object_id="a-1", doing="deleting").heading() == \
        "Algorithm 'sft-a1b2c3' (a-1), deleting"
    assert [duration(s) for s in (0.4, 42, 90, 1200, 5400, 7200)] == ["0s", "42s", "1m30s", "20m", "1h30m", "2h"]


def test_the_engine_address_is_found_only_in_a_dynamic_provider_process() -> None:
    main = "/venv/lib/python3.11/site-packages/pulumi/dynamic/__main__.py"
    assert engine_address([main, "127.0.0.1:40123"]) == "127.0.0.1:40123"
    assert engine_address(["/usr/bin/pytest", "127.0.0.1:40123"]) is None
    assert engine_address([main]) is None


def _finish_after(seconds: float, backoff: Backoff) -> tuple[int, float]:
    """Polls and lag (seconds between the platform finishing and the poll that saw it), on a fake clock."""
    now, sleep = clock()
    waited = wait_for(lambda: "Completed" if now() >= seconds else "Running", lambda s: s == "Completed",
                      until=within(3600, now), what="job j1", backoff=backoff, clock=now, sleep=sleep,
                      sink=lambda *_: None)
    return waited.polls, waited.seconds - seconds


@pytest.mark.parametrize("backoff", [Backoff(), Backoff(first=0.5, maximum=5.0), Backoff(first=0.5, maximum=10.0)])
@pytest.mark.parametrize("seconds", [0.3, 2, 10, 60, 120])
def test_the_lag_after_the_platform_finishes_is_at_most_a_tenth_of_the_wait(seconds: float, backoff: Backoff) -> None:
    polls, lag = _finish_after(seconds, backoff)
    assert 0 <= lag <= max(0.5, 0.1 * seconds) + 1e-9
    assert polls <= 60  # a two-minute wait costs tens of calls, not hundreds


def test_a_long_wait_polls_at_the_cap() -> None:
    polls, lag = _finish_after(1800, Backoff(first=0.5, maximum=10.0))
    assert lag <= 10 and 180 <= polls <= 230  # every 10 s once a tenth of the elapsed time exceeds it


def test_the_platforms_hint_sets_the_next_poll() -> None:
    now, sleep = clock()
    stamps: list[float] = []

    def fetch() -> str:
        stamps.append(now())
        return "Completed" if now() >= 3 else "Running"

    wait_for(fetch, lambda s: s == "Completed", until=within(60, now), what="job j1", clock=now, sleep=sleep,
             hint=lambda _s: 1.5, sink=lambda *_: None)
    assert stamps == [0.0, 1.5, 3.0]


def test_retry_after_on_a_transient_error_sets_the_next_poll() -> None:
    now, sleep = clock()
    busy = outage()
    busy.retry_after = 4.0
    stamps: list[float] = []
    items = iter([busy, "Running", "Completed"])

    def fetch() -> str:
        stamps.append(now())
        item = next(items)
        if isinstance(item, Exception):
            raise item
        return item

    wait_for(fetch, lambda s: s == "Completed", until=within(60, now), what="task t1", clock=now, sleep=sleep,
             sink=lambda *_: None)
    assert stamps == [0.0, 4.0, 4.5]  # the hint, then the usual max(0.5 s, 10 % of the 4 s waited)


def test_a_wait_done_at_the_first_look_says_nothing_and_a_longer_one_says_each_state() -> None:
    now, sleep = clock()
    said: list[str] = []
    label = Label("TrainingJob", "bert", "j1", None, "deleting")
    waited = wait_for(script(["GONE"]), lambda s: s == "GONE", until=within(60, now), what="task j1", label=label,
                      clock=now, sleep=sleep, sink=lambda line, _where: said.append(line))
    assert (waited.value, waited.polls, said) == ("GONE", 1, [])
    wait_for(script(["DELETING", "GONE"]), lambda s: s == "GONE", until=within(60, now), what="task j1", label=label,
             backoff=QUICK, clock=now, sleep=sleep, sink=lambda line, _where: said.append(line))
    assert said == ["[mltrain] TrainingJob 'bert' (j1), deleting: DELETING after 0s (deadline 1m)",
                    "[mltrain] TrainingJob 'bert' (j1), deleting: GONE after 1s (deadline 1m)"]
