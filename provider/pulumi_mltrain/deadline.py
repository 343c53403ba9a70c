"""The one deadline of an operation: made once from its timeout, held in one contextvar.

A create, read, update or delete opens a `Deadline` from its timeout (the `timeouts` input, else the
engine's, else the resource's default) and enters it with `scope`. Every request (`transport`), every
retry and every wait (`waiter`) reads what is left of the current one with `left()`: nothing takes a
deadline as an argument, so no two clocks can disagree. A clean-up that must run after its operation
ran out of time (the roll-back of a failed create) gets a budget of its own with `scope(...,
override=True)`; a nested scope otherwise keeps the earlier end. A contextvar, so each provider RPC
thread (and each asyncio task) has its own.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    """When an operation must be done (`time.monotonic()` seconds) and what it is, for messages."""

    at: float
    what: str
    seconds: float  # the whole budget, for messages

    @classmethod
    def after(cls, seconds: float, what: str) -> Deadline:
        return cls(time.monotonic() + seconds, what, max(0.0, seconds))

    def left(self) -> float:
        """Seconds left, never below 0."""
        return max(0.0, self.at - time.monotonic())


_CURRENT: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("mltrain_deadline", default=None)


def current() -> Deadline | None:
    """The deadline of the operation being served, if any (program-time calls have none)."""
    return _CURRENT.get()


def left() -> float:
    """Seconds left of the current operation (never below 0); an operation always has a deadline."""
    found = _CURRENT.get()
    if found is None:
        raise RuntimeError("no operation deadline is set (enter deadline.scope first)")
    return found.left()


@contextmanager
def scope(deadline: Deadline, *, override: bool = False) -> Iterator[Deadline]:
    """Make `deadline` the current one inside the block. A nested block keeps the earlier end unless
    `override` (a clean-up's own budget)."""
    outer = _CURRENT.get()
    keep = outer is not None and outer.at <= deadline.at and not override
    chosen = outer if keep and outer is not None else deadline
    token = _CURRENT.set(chosen)
    try:
        yield chosen
    finally:
        _CURRENT.reset(token)
