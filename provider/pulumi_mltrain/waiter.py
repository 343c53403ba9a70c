"""Poll an asynchronous platform object until it reaches a wanted state, under a deadline.

A wait takes the `Deadline` it must end by (the operation's, or a part of it: `Deadline.within`) and
holds it current while it polls, so that no request of a poll outlives it; it quotes what that
deadline left it when it began, the budget of this wait.

The pause before the next poll is a fixed share of the time waited so far (`Backoff.share`, 10 %),
never below `first` nor above `maximum`: the lag between the platform finishing and us seeing it stays
within max(first, 10 % of the wait) at every length, and a long wait still costs few calls. A hint from
the platform (Retry-After on a transient error, or `hint(value)`) replaces that pause, within the cap.
Progress lines (see `progress.py`) go to the engine under the resource's URN, or
to stderr; each says the state, the time waited and the deadline, at least every 30 s. A wait whose
first look finds the object done says nothing.
A transient error while polling (e.g. a minute-long 503 outage) does not end the wait: polling goes on
until the wait's own deadline. Each poll sends its requests once (`transport.single_attempt`): the
transport's retries, with their own backoff, would stretch the lag past the 10 % rule during an outage,
so the pacing of a failing poll is this loop's as well.
Every pause sleeps on the engine's Cancel (`cancel.py`): once the engine cancels, a wait polls no more
and raises `Cancelled` with the last answer it had, within moments, whatever its backoff.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from . import cancel, deadline
from .cancel import Cancelled
from .deadline import Deadline
from .errors import Retryable, WaitTimeout
from .progress import Label, Reporter, Sink, duration
from .transport import single_attempt

T = TypeVar("T")


# At most this many seconds pass between two lines of one wait.
HEARTBEAT = 30.0


@dataclass(frozen=True)
class Backoff:
    """Pause = clamp(share * elapsed, first, maximum). `factor` is kept for callers that still pass it."""

    first: float = 0.5
    maximum: float = 10.0
    factor: float = 2.0
    share: float = 0.1

    def pause(self, elapsed: float, hint: float | None = None) -> float:
        """Seconds until the next poll after `elapsed` seconds; the platform's `hint` wins when given."""
        if hint is not None:
            return min(max(0.0, hint), self.maximum)
        return min(max(self.first, self.share * elapsed), self.maximum)


@dataclass
class Waited(Generic[T]):
    value: T
    polls: int
    seconds: float


def wait_for(
    fetch: Callable[[], T],
    done: Callable[[T], bool],
    *,
    until: Deadline,
    what: str,
    state_of: Callable[[T], str] = str,
    backoff: Backoff = Backoff(),
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = cancel.pause,
    label: Label | None = None,
    every: float = HEARTBEAT,
    sink: Sink | None = None,
    hint: Callable[[T], float | None] | None = None,
    notes: Callable[[T], str | None] | None = None,
    cancellable: bool = True,
) -> Waited[T]:
    """Call `fetch` until `done(value)`, by the deadline `until`; raise WaitTimeout naming `what` and the
    last state. `clock` is the clock of `until.at` (`time.monotonic`, a test's own clock in tests).

    `Retryable` errors from `fetch` are reported once per run of failures and polling continues;
    any other error propagates at once. Progress lines name `label` (the resource, its ID, its URN)
    when given, else `what`; a state that lasts is repeated at least every `every` seconds, with the
    time waited, so a silent log never means a stuck provider. `hint(value)` (or a transient error's
    Retry-After) is the platform's own advice on when to look again and replaces the computed pause.
    `notes(value)` is asked after each poll that does not end the wait: a text it returns (such as a
    job's newest log lines; it bounds itself) is said as a line of its own. Once the engine cancels
    (`cancel.requested()`), the wait raises `Cancelled` carrying the last value it fetched; a wait that is
    not `cancellable` (the short grace a create gives an answer it needs, after a cancel) sleeps on the clock.
    """
    start = clock()
    end = until.at
    timeout = max(0.0, end - start)  # what this wait has: its lines and its time-out say so
    say = Reporter(label.heading() if label else what, label.urn if label else None, timeout, sink)
    polls = 0
    last_state: str | None = None
    failing: Retryable | None = None
    said_at = start
    seen: list[T] = []
    pause = sleep if cancellable or sleep is not cancel.pause else time.sleep
    while True:
        if cancellable and cancel.requested():
            raise Cancelled(_cancelled(what, clock() - start, last_state), seen[-1] if seen else None, last_state)
        polls += 1
        advice: float | None = None
        try:
            with single_attempt(), deadline.scope(until, override=True):
                value = fetch()
        except Retryable as err:
            now = clock()
            if failing is None:
                say.line(f"{err}; polling again until the deadline", now - start)
                said_at = now
            elif now - said_at >= every:
                say.line("the platform still does not answer", now - start)
                said_at = now
            failing = err
            advice = err.retry_after
        else:
            now = clock()
            seen[:] = [value]
            finished = done(value)
            if finished and polls == 1:
                # Not a wait: the first look found it done. Saying so would cost an engine call per
                # poll-free step (most creates and deletes) and tell nobody anything.
                return Waited(value, polls, now - start)
            state = state_of(value)
            if failing is not None or state != last_state or now - said_at >= every:
                again = "the platform answers again: " if failing is not None else ""
                still = "still " if state == last_state and not again else ""
                say.line(f"{again}{still}{state}", now - start)
                said_at = now
            failing = None
            last_state = state
            note = notes(value) if notes is not None and not finished else None
            if note:
                say.line(note, clock() - start)
            if finished:
                return Waited(value, polls, clock() - start)
            advice = hint(value) if hint is not None else None
        remaining = end - clock()
        if remaining <= 0:
            raise WaitTimeout(_timed_out(what, timeout, last_state, failing, until.fix), seen[-1] if seen else None)
        # Wake up in time for the next heartbeat even when the backoff has grown past it.
        interval = backoff.pause(clock() - start, advice)
        pause(max(0.0, min(interval, remaining, said_at + every - clock())))
        if clock() >= end - _LAST_CALL:
            # No time is left for another call (the deadline would refuse it): say what was seen.
            raise WaitTimeout(_timed_out(what, timeout, last_state, failing, until.fix), seen[-1] if seen else None)


# A poll needs at least this long; a wait with less left ends instead of starting one.
_LAST_CALL = 0.05


def _cancelled(what: str, waited: float, state: str | None) -> str:
    seen = f"still {state}" if state is not None else "not looked at yet"
    return f"the update was cancelled while waiting for {what} ({seen} after {duration(waited)})"


def _timed_out(what: str, timeout: float, state: str | None, failing: Retryable | None, fix: str | None) -> str:
    hint = fix or "raise the timeout with customTimeouts or the resource's wait settings, or check the platform"
    if failing is None:
        return f"{what} was still {state} after {timeout:.0f}s; {hint}"
    seen = f"last seen {state}" if state is not None else "never seen"
    return f"{what} did not finish within {timeout:.0f}s ({seen}); the last error was: {failing}; {hint}"


def look_for(
    find: Callable[[], T | None],
    *,
    until: Deadline,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = cancel.pause,
) -> T | None:
    """Call `find` with growing pauses until the deadline `until` (a part of the operation's, with a
    budget of its own: `Deadline.within`), the last time at its end. Its requests run under the
    operation's deadline, which `until` never passes: the look at the end of the grace is one too.

    Used after a create whose outcome is unknown: the object may still appear. A cancel by the engine
    ends the look at its next pause, with what the last call found.
    """
    delay = 0.5
    while True:
        found = find()
        if found is not None or clock() >= until.at or cancel.requested():
            return found
        sleep(min(delay, max(0.0, until.at - clock())))
        delay = min(delay * 2, 5.0)
