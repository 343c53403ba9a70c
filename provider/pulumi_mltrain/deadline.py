"""The one deadline of an operation: made once from its timeout, held in one contextvar.

Every operation of a handler (check, diff, read, import, create, update, delete, and the look for a
failed create's object) opens a `Deadline` from its timeout (the `timeouts` input, else the engine's,
else the resource's default; a check, diff or read, which neither Pulumi nor the inputs time, from the
resource's fixed budget) and enters it with `scope`. Every request (`transport`) and every retry reads
what is left of the current one; every wait and look-up (`waiter`) takes it, or a part of it with a
smaller budget of its own (`Deadline.within`: the grace of an unanswered create or of a metrics read,
the subscription's answer after a cancel); a wait holds its deadline current while it polls, so that
its requests end with it. A clean-up that must run after its
operation ran out of time (the roll-back of a failed create) gets a budget of its own from the
operation's deadline (`Deadline.clean_up`), entered with `scope(..., override=True)`; a nested scope
otherwise keeps the earlier end. A contextvar, so each provider RPC thread (and each asyncio task) has
its own.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    """When an operation must be done (`time.monotonic()` seconds) and what it is, for messages.

    `fix` says what to do once it has run out, for a deadline that customTimeouts do not set (None:
    raise the operation's timeout); `cleanup` is the budget of a clean-up after the operation (None:
    as much as the operation had)."""

    at: float
    what: str
    seconds: float  # the whole budget, for messages
    fix: str | None = None
    cleanup: float | None = None

    @classmethod
    def after(cls, seconds: float, what: str, *, fix: str | None = None, cleanup: float | None = None,
              start: float | None = None) -> Deadline:
        """A deadline `seconds` from now (or from `start`, on the same clock)."""
        begun = time.monotonic() if start is None else start
        return cls(begun + seconds, what, max(0.0, seconds), fix, cleanup)

    def left(self) -> float:
        """Seconds left, never below 0."""
        return max(0.0, self.at - time.monotonic())

    def within(self, seconds: float, what: str | None = None) -> Deadline:
        """A part of this operation with a smaller budget of its own: it ends `seconds` from now, or with
        this deadline when that comes first. Its `seconds` is what it really has, for messages."""
        now = time.monotonic()
        at = min(self.at, now + max(0.0, seconds))
        return Deadline(at, what or self.what, max(0.0, at - now), self.fix, self.cleanup)

    def clean_up(self, what: str, seconds: float | None = None) -> Deadline:
        """The deadline of a clean-up after this operation (the roll-back of a failed create, the stop of a
        pending run, the look after a wait that ran out): a budget of its own that starts now, since this
        deadline may have passed already; the operation's clean-up budget, or `seconds` when smaller.
        Enter it with `scope(..., override=True)`."""
        whole = self.seconds if self.cleanup is None else self.cleanup
        budget = whole if seconds is None else min(seconds, whole)
        return Deadline.after(budget, what, fix=self.fix, cleanup=self.cleanup)


_CURRENT: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("mltrain_deadline", default=None)


def current() -> Deadline | None:
    """The deadline of the operation being served, if any (program-time calls have none)."""
    return _CURRENT.get()


def operation() -> Deadline:
    """The deadline of the operation being served; an operation always has one."""
    found = _CURRENT.get()
    if found is None:
        raise RuntimeError("no operation deadline is set (enter deadline.scope first)")
    return found


def left() -> float:
    """Seconds left of the current operation (never below 0); an operation always has a deadline."""
    return operation().left()


@contextmanager
def scope(deadline: Deadline, *, override: bool = False) -> Iterator[Deadline]:
    """Make `deadline` the current one inside the block. A nested block keeps the earlier end unless
    `override` (a clean-up's own budget, or a wait's part of its operation)."""
    outer = _CURRENT.get()
    keep = outer is not None and outer.at <= deadline.at and not override
    chosen = outer if keep and outer is not None else deadline
    token = _CURRENT.set(chosen)
    try:
        yield chosen
    finally:
        _CURRENT.reset(token)
