"""What the training jobs of every platform do alike, written once: each platform's `TrainingJobCalls`
subclasses `JobCalls`, declares its node inputs and its states, names its jobs module and gives the
primitives of its API that are its own.

- a preview checks the inputs against the platform's catalogues when it has credentials (a refused key is
  a failure naming it, an unreadable catalogue a skipped check, said: `PlatformCalls.catalogues_ready`),
  and derives the GPU and cost outputs from the node types' catalogue (`derived`), which a check of
  unchanged inputs keeps from the state instead (the outputs declared `kept="derived"`);
- a stop applies in `live_states`, a replace would end a job in `occupied_states`, and a create's wait
  reaches its target in the states `reached` names for its `wait_for`, or never does from `never`; its
  messages name the job and its ID (`what`);
- the primitives of the lifecycles that only read or call the platform (get, state, stop, delete, the
  look by name, take-over, why a run ended, its notes, records and marked runs) are functions of the
  platform's client and answers in its jobs module (`JobAPI`: alaya/tasks.py, modelarts/jobs.py), which
  the class names (`api = tasks`) and `JobCalls` forwards to the lifecycles.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import httpx

from . import transport
from .errors import MltrainError
from .lifecycle.protocol import Kept, MarkedRun, Named, Stop
from .ownership import Mark
from .platform_calls import Failures, OutT, PlatformCalls, Props, RemoteT, SpecT


class Client(Protocol):
    """A platform's client: its one HTTP client, whose answers tell the platform's clock."""

    @property
    def http(self) -> httpx.Client: ...


ClientT = TypeVar("ClientT", bound=Client)
ClientT_contra = TypeVar("ClientT_contra", contravariant=True)
SpecT_contra = TypeVar("SpecT_contra", contravariant=True)


class JobAPI(Protocol[ClientT_contra, SpecT_contra, RemoteT]):
    """The primitives a platform's jobs module gives as functions of its client and its answers
    (`lifecycle.protocol`), which `JobCalls` forwards once for every platform."""

    def get(self, api: ClientT_contra, object_id: str, /) -> RemoteT: ...

    def state_of(self, remote: RemoteT, /) -> str: ...

    def settled(self, state: str, /) -> bool: ...

    def listing(self, api: ClientT_contra, name: str, /) -> list[tuple[str, str]]: ...

    def stop(self, api: ClientT_contra, object_id: str, /) -> Stop: ...

    def delete(self, api: ClientT_contra, object_id: str, /) -> None: ...

    def named(self, api: ClientT_contra, name: str, /) -> list[Named]: ...

    def accept(self, api: ClientT_contra, object_id: str, spec: SpecT_contra, /) -> None: ...

    def ended(self, api: ClientT_contra, spec: SpecT_contra, object_id: str, remote: RemoteT, /) -> tuple[str, str]:
        ...

    def created_at(self, remote: RemoteT, /) -> float | None: ...

    def has_started(self, remote: RemoteT, /) -> bool: ...

    def reason(self, remote: RemoteT, /) -> str: ...  # the platform's words for why it pends or ended

    def notes(self, api: ClientT_contra, spec: SpecT_contra, object_id: str, /) -> Callable[[RemoteT], str | None]:
        ...

    def owner_of(self, api: ClientT_contra, object_id: str, /) -> Mark | None: ...

    def records(self, api: ClientT_contra, owner: Mark, name: str, /) -> list[Kept]: ...

    def marked(self, api: ClientT_contra, recorded: Collection[str], keep: Callable[[str, Mark], bool], now: float,
               /, *, full: bool = False) -> list[MarkedRun]: ...


class JobCalls(PlatformCalls[SpecT, OutT, RemoteT], Generic[SpecT, OutT, RemoteT, ClientT]):
    """A training job on its platform: a run (`PlatformCalls.runs`) on nodes of a catalogue's type."""

    runs: ClassVar[bool] = True
    node_type: ClassVar[str] = ""  # the input that fixes a node's GPUs (product_code, flavor_id)
    nodes: ClassVar[str] = ""  # the input of the number of nodes
    # The GPU and cost outputs of a node type and count, from the rows of the node types' catalogue.
    costs: ClassVar[Callable[[Sequence[dict[str, Any]], str, int], dict[str, Any]]]
    live_states: ClassVar[frozenset[str]] = frozenset()
    occupied_states: ClassVar[frozenset[str] | None] = None  # None: the live ones
    reached: ClassVar[Mapping[str, frozenset[str]]] = {}  # by `wait_for`; none: no wait
    never: ClassVar[frozenset[str]] = frozenset()
    api: JobAPI[ClientT, SpecT, RemoteT]  # the platform's jobs module

    @property
    def client(self) -> ClientT:
        """The platform's client of this operation's account."""
        raise NotImplementedError

    def node_types(self) -> list[dict[str, Any]]:
        """The rows of the platform's catalogue of node types (products, flavors), cached."""
        raise NotImplementedError

    def catalogue_failures(self, spec: SpecT) -> Failures:
        """Field-named failures of the inputs against the catalogues, which the preview could read."""
        return []

    def check_remote(self, spec: SpecT) -> Failures:
        ready = self.catalogues_ready(self.node_types)
        return self.catalogue_failures(spec) if ready is None else ready

    def derived(self, spec: SpecT) -> Props:
        """GPUs and cost from the (cached) node types' catalogue, so previews and policies know them;
        nothing without credentials or when the catalogue cannot be read."""
        node_type = getattr(spec, self.node_type, None)
        if not self.configured(self.settings) or not node_type:
            return {}
        try:
            return dict(type(self).costs(self.node_types(), str(node_type), int(getattr(spec, self.nodes, 0) or 1)))
        except MltrainError as err:
            self.context.say(f"GPU and cost outputs skipped: {err}")
            return {}

    # ----- the primitives of the platform's jobs module (`api`), given the client --------------------
    def get(self, object_id: str) -> RemoteT:
        return self.api.get(self.client, object_id)

    def state_of(self, remote: RemoteT) -> str:
        return self.api.state_of(remote)

    def settled(self, state: str) -> bool:
        return self.api.settled(state)

    def listing(self, name: str) -> list[tuple[str, str]]:
        return self.api.listing(self.client, name)

    def stop(self, object_id: str) -> Stop:
        return self.api.stop(self.client, object_id)

    def delete(self, object_id: str) -> None:
        self.api.delete(self.client, object_id)

    def named(self, name: str) -> list[Named]:
        return self.api.named(self.client, name)

    def accept(self, object_id: str, spec: SpecT) -> None:
        self.api.accept(self.client, object_id, spec)

    def ended(self, spec: SpecT, object_id: str, remote: RemoteT) -> tuple[str, str]:
        return self.api.ended(self.client, spec, object_id, remote)

    def created_at(self, remote: RemoteT) -> float | None:
        """On this machine's clock: the platform's create time less the skew its answers showed, so a
        clock that is off does not move `max_pending_minutes`."""
        at = self.api.created_at(remote)
        return None if at is None else at - transport.skew(self.client.http)

    def has_started(self, remote: RemoteT) -> bool:
        return self.api.has_started(remote)

    def pending_reason(self, remote: RemoteT) -> str:
        return self.api.reason(remote)

    def notes(self, spec: SpecT, object_id: str) -> Callable[[RemoteT], str | None]:
        return self.api.notes(self.client, spec, object_id)

    def owner_of(self, object_id: str) -> Mark | None:
        return self.api.owner_of(self.client, object_id)

    def records(self, owner: Mark, name: str) -> list[Kept]:
        return self.api.records(self.client, owner, name)

    def marked(self, recorded: Collection[str], keep: Callable[[str, Mark], bool], now: float, *,
               full: bool = False) -> list[MarkedRun]:
        return self.api.marked(self.client, recorded, keep, now, full=full)

    def live(self, state: str) -> bool:
        return state in self.live_states

    def occupied(self, state: str) -> bool:
        return state in (self.live_states if self.occupied_states is None else self.occupied_states)

    def what(self, spec: SpecT, object_id: str) -> str:
        """The job in a wait's messages: its name and ID ("training job 'sft' (j-1)")."""
        return f"{self.noun} {getattr(spec, 'name', '')!r} ({object_id})"

    def goal(self, spec: SpecT) -> tuple[frozenset[str], frozenset[str]] | None:
        target = self.reached.get(str(getattr(spec, "wait_for", "")))
        return None if target is None else (target, self.never)
