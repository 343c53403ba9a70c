"""Idempotent create: a create whose answer is lost is looked for before it is ever sent again.

The platform's answer to a create can be lost (a cut connection, a 5xx after the request went out):
the object may or may not exist. `submit` then looks for it by its name and owner mark for the
`ambiguityGrace` seconds; only if it does not appear is the request sent again (CREATE_ATTEMPTS in
all), and a platform that refuses a duplicate name gets the object looked up instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from .. import cancel
from ..deadline import Deadline
from ..errors import AmbiguousOutcome, ApiError, MltrainError
from ..ownership import Mark
from ..progress import notice
from ..waiter import look_for

# How many times a create may be sent when its answers are lost and the object never shows up.
CREATE_ATTEMPTS = 3

Sent = TypeVar("Sent")
Found = TypeVar("Found")


@dataclass(frozen=True)
class Submitted(Generic[Sent, Found]):
    """The platform's answer to the create (`sent`), or the object found instead (`found`)."""

    sent: Sent | None
    found: Found | None
    attempts: int  # the requests sent; more than one: a late first one may have made a duplicate


def submit(send: Callable[[], Sent], look: Callable[[bool], Found | None], *, noun: str, name: str,
           grace: float, operation: Deadline, owner: Mark | None,
           duplicate: Callable[[ApiError], bool] | None = None) -> Submitted[Sent, Found]:
    """Send the create. `look(just_sent)` finds this resource's own object by name (`just_sent`: a
    request of this create may have made it, so a missing mark is no refusal), for `grace` seconds of
    the create's deadline `operation`; `duplicate(err)` says whether a refusal means an object of this
    name exists."""
    for attempt in range(1, CREATE_ATTEMPTS + 1):
        try:
            return Submitted(send(), None, attempt)
        except AmbiguousOutcome as err:
            began = time.monotonic()
            within = operation.within(grace, f"looking for {noun} {name!r} after an unanswered create")
            found = look_for(lambda: look(True), until=within)
            if found is not None:
                return Submitted(None, found, attempt)
            looked = time.monotonic() - began
            if cancel.requested():  # never sent again once cancelled: it may exist, and nothing would record a second
                raise MltrainError(
                    f"{err}. The operation was cancelled {looked:.0f}s into the look for {noun} {name!r}, before it "
                    f"appeared, so the create was not sent again. If the platform made it, the next `pulumi up` "
                    f"finds it by name and deletes it before it makes its own (`mltrain-runs abandoned` lists it "
                    "meanwhile)") from None
            if attempt == CREATE_ATTEMPTS:
                raise MltrainError(
                    f"{err}. No {noun} named {name!r} appeared within {looked:.0f}s. Run `pulumi up` again: the "
                    f"provider looks for its own {noun} by name and owner mark before creating, so no duplicate "
                    "is made") from None
            notice(f"{noun} {name!r} not found {looked:.0f}s after an unanswered create; sending it again", owner)
        except ApiError as err:
            if duplicate is not None and duplicate(err):
                found = look(attempt > 1)
                if found is not None:
                    return Submitted(None, found, attempt)
            raise
    raise AssertionError("unreachable")
