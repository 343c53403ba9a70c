"""What the training jobs of every platform do alike, written once: each platform's `TrainingJobCalls`
subclasses `JobCalls`, declares its node inputs and its states, and gives the primitives of its API.

- a preview checks the inputs against the platform's catalogues when it has credentials (a refused key is
  a failure naming it, an unreadable catalogue a skipped check, said: `PlatformCalls.catalogues_ready`),
  and derives the GPU and cost outputs from the node types' catalogue (`derived`), which a check of
  unchanged inputs keeps from the state instead (`derived_kept`);
- a stop applies in `live_states`, a replace would end a job in `occupied_states`, and a create's wait
  reaches its target in the states `reached` names for its `wait_for`, or never does from `never`; its
  messages name the job and its ID (`what`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from .errors import MltrainError
from .platform_calls import Failures, OutT, PlatformCalls, Props, RemoteT, SpecT


class JobCalls(PlatformCalls[SpecT, OutT, RemoteT]):
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
