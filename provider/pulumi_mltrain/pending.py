"""`max_pending_minutes`: how long a training job may wait to run while `up` waits for it.

A job is pending while the platform has not yet run it: queued for resources or being set up (Alaya
NeW: QUEUED, STARTING; ModelArts: Creating, Pending). The pending period is counted from the job's own
create time as the platform reports it, against the platform's clock (`JobCalls.created_at` takes
off the skew its answers' `Date` headers show), so a resumed wait after an interrupted or timed-out `up`
counts from the real start, not from the new wait, and a machine whose clock is off does not move the
limit; when the answer has no create time (or one ahead of the platform's clock), from when the wait
began. Once the job has run (the platform
reports a start time, or the wait saw it past pending), the limit no longer applies: a job that is
queued again by its own retries is not failed for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .progress import duration
from .waiter import Backoff

FIELD = "max_pending_minutes"
# A poll ahead of the limit comes this long after it, so that it sees the limit passed.
_PAST = 0.05


@dataclass
class PendingLimit:
    """The limit of one wait: `over()` is asked at each poll, `hint()` paces the poll that passes it."""

    minutes: float
    states: frozenset[str]
    backoff: Backoff = field(default_factory=Backoff)
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    began: float = field(init=False)
    queued: float = field(init=False, default=0.0)
    started: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.began = self.clock()

    @property
    def seconds(self) -> float:
        return self.minutes * 60.0

    def over(self, state: str, created_at: float | None, has_started: bool) -> bool:
        """Whether the job, now in `state`, has been pending past the limit. `created_at`: the platform's
        create time (epoch seconds) if its answer gives it; `has_started`: the answer shows it has run."""
        if has_started or state not in self.states:
            self.started = True
        if self.started:
            return False
        waited = self.clock() - self.began
        since = self.wall() - created_at if created_at is not None else 0.0
        self.queued = max(waited, since)
        return self.queued > self.seconds

    def hint(self) -> float | None:
        """The pause before the next poll when the limit comes before the one the backoff would give."""
        if self.started:
            return None
        left = self.seconds - self.queued
        if left < self.backoff.pause(self.clock() - self.began):
            return max(0.0, left) + _PAST
        return None

    def words(self, state: str) -> str:
        """What the error says: the state, the time pending and the limit."""
        return (f"still {state} after {duration(self.queued)} pending (since its create), past "
                f"{FIELD}={self.minutes:g} ({duration(self.seconds)})")


def description(pending: str) -> str:
    """The field's description; `pending` names the platform's pending states."""
    return (f"Minutes the job may stay pending ({pending}) while create waits for running or completed; past "
            "them its run fails and is held as a failed run's is: the job is stopped and kept as the record "
            "(on_failure keep, the default) or deleted (delete), and the error gives the time pending and the "
            "platform's reason. Fractions are allowed (0.5 is 30 "
            "seconds). Counted from the job's create time on the platform, so a resumed wait after an interrupted "
            "run counts from the real start; once the job has run, it no longer applies. Needs wait_for running "
            "or completed; the create deadline (customTimeouts.create) still bounds the whole wait. Changing it "
            "never replaces or updates the job.")
