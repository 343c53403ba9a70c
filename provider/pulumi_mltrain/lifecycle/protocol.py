"""The primitives a platform supplies for one kind of object, so that the lifecycles can run it.

Each resource kind is one class of its platform (`platform_calls.PlatformCalls` declares it and gives
the defaults); the lifecycles see it through the parts they use: `Objects` (get, state, stop, delete,
the listing by name), `Creates` (send a create, resolve its answer to an ID, mark the object as the
resource's, accept an existing one) and `Runs` (what a create of a run waits for, records and says).
They are generic in the platform's answer type `R` (a JSON object as its client returns it) and the
resource's spec type `S`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, TypeVar

from ..errors import ApiError
from ..ownership import Mark
from ..waiter import Backoff

R = TypeVar("R")
S_contra = TypeVar("S_contra", contravariant=True)
# Outputs as the handler records them (JSON values).
Outs = dict[str, object]


class Stop(Enum):
    """A platform's answer to "stop this object"."""

    ENDED = "ended"  # nothing to stop: it has ended, or is in a state that no stop applies to
    ASKED = "asked"  # the stop was accepted, and the answer does not say the state: the next step may go on
    STOPPING = "stopping"  # the answer says it is stopping: wait until it has settled
    CHANGED = "changed"  # refused because its state changed meanwhile: read it, then wait


@dataclass(frozen=True)
class Named:
    """An object of a given name as a create's first look finds it: its ID and owner mark (None when it
    has none, or none the platform returns), and whether it is a kept run record (`lifecycle/records.py`),
    which no create ever takes over."""

    object_id: str
    mark: Mark | None
    record: bool = False


@dataclass(frozen=True)
class Kept:
    """A kept run record of one resource, as its platform lists it (`Keeps.records`)."""

    object_id: str
    name: str
    state: str
    created: float | None  # epoch seconds, when the platform says
    reason: str | None = None  # the run's run_reason, where the platform keeps it
    replaced_by: str | None = None  # the run that replaced it, where the platform keeps it


@dataclass(frozen=True)
class Sent:
    """A create's answer: the object's ID, or a token the platform resolves to it later (Alaya NeW's
    resultKey); and the outputs the answer gives (an algorithm's, or the token)."""

    object_id: str | None = None
    pending: str | None = None
    outputs: Outs = field(default_factory=dict)


class Busy(Exception):
    """The platform refused a delete in the object's current state (it is still running or stopping)."""


class Listing(Protocol):
    """The objects of a name: the second look before "not found" is believed (`removal.confirm_gone`), and
    the first look of a create (`takeover.clear_own`)."""

    @property
    def noun(self) -> str:
        """The object's name in messages ("task", "training job", "algorithm")."""
        ...

    def listed(self, object_id: str, name: str) -> bool:
        """Whether a listing by `name` still shows the object."""
        ...

    def named(self, name: str) -> list[Named]:
        """The objects named `name` that are not on their way out, with their owner marks."""
        ...


class Objects(Listing, Protocol[R]):
    """An object kind a lifecycle can stop, delete and watch go."""

    @property
    def platform(self) -> str:
        """The platform's name in messages ("Alaya NeW", "ModelArts")."""
        ...

    @property
    def poll(self) -> Backoff:
        """How waits on this kind poll."""
        ...

    @property
    def unique_names(self) -> bool:
        """Whether the platform refuses a name that any of its objects holds, a kept record's too."""
        ...

    def get(self, object_id: str) -> R:
        """The object now; raises NotFound when the platform says so."""
        ...

    def state_of(self, remote: R) -> str: ...

    def stop(self, object_id: str) -> Stop: ...

    def delete(self, object_id: str) -> None:
        """Ask for the delete; raises Busy when refused in the object's state, NotFound when gone."""
        ...

    def live(self, state: str) -> bool:
        """Whether a stop applies in `state` (it runs, or waits to)."""
        ...

    def settled(self, state: str) -> bool:
        """Whether a delete is accepted in `state`."""
        ...


class Creates(Objects[R], Protocol[S_contra, R]):
    """An object kind a create makes (`lifecycle/create.py`) and a take-over accepts."""

    def submit(self, spec: S_contra, owner: Mark | None) -> Sent:
        """Send the create (once: `resend` decides about sending it again)."""
        ...

    def resolve(self, spec: S_contra, owner: Mark | None, pending: str) -> str:
        """The ID a pending create's token yields, once the platform gives it."""
        ...

    def duplicate(self, err: ApiError) -> bool:
        """Whether the platform refused a create because an object of its name exists."""
        ...

    def mark(self, object_id: str, spec: S_contra, owner: Mark | None) -> None:
        """Make the object carry the owner mark (and what goes with it) where the create could not."""
        ...

    def accept(self, object_id: str, spec: S_contra) -> None:
        """Refuse to take over an existing object that differs from the declaration (what a platform
        may reconcile, it does)."""
        ...


class Runs(Objects[R], Protocol[S_contra, R]):
    """An object kind that runs: what a create waits for, records and reports (see `record.py`)."""

    @property
    def pending_states(self) -> frozenset[str]:
        """The states of a run that has not started yet (what `max_pending_minutes` bounds)."""
        ...

    def goal(self, spec: S_contra) -> tuple[frozenset[str], frozenset[str]] | None:
        """(states that reach the spec's `wait_for`, states from which it never will), or None: no wait."""
        ...

    def what(self, spec: S_contra, object_id: str) -> str:
        """The object in a wait's messages ("training job 'x' (id)")."""
        ...

    def recorded(self, spec: S_contra, remote: R) -> Outs:
        """The outputs recorded for the object as `remote` shows it."""
        ...

    def unread(self, object_id: str) -> Outs:
        """The outputs of an object that needs no wait and whose read failed: the ID is what matters."""
        ...

    def ended(self, spec: S_contra, object_id: str, remote: R) -> tuple[str, str]:
        """(why it ended before its target, details to add after what became of it)."""
        ...

    def gate(self, spec: S_contra, object_id: str, remote: R, recorded: Outs) -> tuple[Outs, str | None]:
        """Checks of a run that reached its target: (outputs to add, why it misses them or None)."""
        ...

    def created_at(self, remote: R) -> float | None:
        """When the platform created it (epoch seconds), if its answer says."""
        ...

    def has_started(self, remote: R) -> bool: ...

    def pending_reason(self, remote: R) -> str: ...

    def notes(self, spec: S_contra, object_id: str) -> Callable[[R], str | None] | None:
        """What a wait says between its state lines (log lines), if anything."""
        ...


class Keeps(Objects[R], Protocol):
    """A run kind whose ended runs stay on the platform as records (`lifecycle/records.py`)."""

    def owner_of(self, object_id: str) -> Mark | None:
        """The owner mark the object carries (None: it has none, or none the platform returns)."""
        ...

    def keep(self, object_id: str, owner: Mark, reason: str | None) -> None:
        """Mark the ended object as a kept record (where the platform can mark it after its create)."""
        ...

    def records(self, owner: Mark, name: str) -> list[Kept]:
        """The kept records carrying `owner`, among the objects of the names `name`'s runs have."""
        ...

    def replaced(self, object_id: str, by: str) -> None:
        """Note on the record `object_id` that the run `by` replaced it (where the platform can)."""
        ...


@dataclass(frozen=True)
class MarkedRun:
    """A job of the platform that carries an owner mark, as `abandoned.py` lists it."""

    object_id: str
    name: str | None
    mark: Mark
    state: str
    live: bool  # running or waiting to: what a stop applies to
    created: float | None  # epoch seconds, if the platform says
    cost_so_far: float | None  # None: the platform gives no price for it
    record: bool = False  # a kept run record (lifecycle/records.py): never abandoned
    # What `mltrain-runs history` shows (read only when `marked(..., full=True)` asks for it):
    reason: str | None = None  # the run's run_reason, where the platform keeps it
    replaced_by: str | None = None  # the run that replaced it, where the platform keeps it
    started: float | None = None  # epoch seconds
    ended: float | None = None
    gpus: int | None = None  # the GPUs it holds, from the catalogue (None: unknown)
    final_metrics: dict[str, float] | None = None
    logs: str | None = None  # where its logs are
    resumed_from: str | None = None  # the run whose checkpoint it started with (checkpoints.py)


class Marked(Protocol):
    """A platform's runs listed by owner mark, and stopped (`abandoned.py`, `mltrain-runs`)."""

    def marked(self, recorded: Collection[str], keep: Callable[[str, Mark], bool], now: float, *,
               full: bool = False) -> list[MarkedRun]:
        """Every marked job whose ID is not in `recorded` and that `keep(id, mark)` accepts (`full`: with
        what a history shows, which may cost a call or two per job)."""
        ...

    def stop(self, object_id: str) -> Stop: ...
