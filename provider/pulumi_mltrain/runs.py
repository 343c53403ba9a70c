"""Why a training job's current run exists: its `run_reason` output.

A training job is a run: a change of a field that shapes the training replaces the job, which starts
a new run. `check` words why (its result is what a preview shows, with the GPUs and cost that the
catalogue gives), the create records it, and updates and refreshes keep it, so the state says why
the run it holds was started:

- `first run (16 GPUs, 160/h)`: the job's first create;
- `new run: changing image, start_command replaces the training task (16 GPUs, 160/h)`: a replace
  that the inputs ask for, named by its fields (the wording of `replace_running="refuse"` too);
- `new run: replaces the previous run of unchanged inputs (...)`: a replace the inputs do not show (a
  replacement_trigger; a `pulumi up --replace` is checked without the stored inputs and records `first
  run`: docs/runs.md);
- `new run: changing algorithm_id replaces the training job (...)` too for a job the engine deletes first
  because a resource it depends on is replaced delete-first, from what its diff said (`Replacements`);
- `new run: attempt 2 of 3 after failed run tt-1 (...)` or `new run: run again after failed run tt-1
  (mltrain:rerunFailed) (...)`: a held failure replaced (handler.py);
- `adopted: ...`: a job taken over with `adopt_id`, not started here.

How `check` knows: the engine checks a resource against its stored inputs, asks `diff`, and when it
replaces the resource it checks the inputs once more without the stored ones (for their defaults),
and creates with what that second check returns. The first check, in the same provider process,
leaves what a replace would be (`Replacement`: its reason, and the attempt it would be) with its
handler, keyed by the URN and the checked inputs (but the name); the second one takes it, and so does the create of
a targeted replace (`pulumi up --replace`), which skips the second check.

It is no input: a diff never compares it (no false change, no drift), and a change that keeps the run
(a recorded description, an update in place) keeps its reason.

Since a kept reason still reads `first run` or `new run:`, the reason alone cannot tell a policy (which
is given no step) that *this* step starts the run. So a preview marks the steps that do with
`run_starts: true` (RUN_STARTS): in the dynamic form check adds it to a training job's checked inputs
when its program runs as a preview (ownership.PREVIEW_KEY) and the check starts a run (a create, or a
replace); the plugin adds it to the preview of a training job's create (a first run or a replacement),
never to the preview of an update. It never reaches a state (the update of `pulumi up` runs without
it), so a diff never sees it and a no-change or in-place preview never shows it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import spec as specs
from .errors import MltrainError
from .ownership import PREVIEW_KEY

RUN_REASON = "run_reason"
FIRST = "first run"
NEW = "new run:"  # every reason of a replace starts with it; with FIRST, the reasons that start a run
# Set only in a preview, on a training job whose step starts a run (a create or a replace): see above.
RUN_STARTS = "run_starts"
FORCED = f"{NEW} replaces the previous run of unchanged inputs (a replacement_trigger or `pulumi up --replace`)"
DESCRIPTION = (
    "Why the current run exists: `first run`, `new run: changing <fields> replaces the job`, a "
    "replacement_trigger or `--replace`, or a held failure run again; with its GPUs and cost per hour where the "
    "catalogue gives them. A preview shows the run a change would start. Never drift.")



@dataclass(frozen=True)
class Replacement:
    """What the check of a resource against its state says a replace of it would be: the new run's
    reason (None for a resource that is no run), and the attempt it would be (1: a new declaration)."""

    reason: str | None
    attempt: int = 1
    name: str | None = None  # the new run's own name, where the platform needs one (handler._run_name)
    fields: tuple[str, ...] = ()  # left by a diff: the fields whose change replaces it (see `Replacements`)


class Replacements:
    """What checks against the state leave for the check or create of a replacement that follows in
    this provider process (the engine gives those no stored inputs): one per handler, keyed by the URN
    and the checked inputs (the second check chooses the same name from the URN). An entry whose
    replace never comes stays until the process ends, which is when the engine's command does.

    A diff that replaces a resource leaves one too, under its URN alone (`leave_diffed`): the engine
    also replaces a resource delete-first when a resource it depends on is replaced delete-first (it
    diffs it against that resource's unknown outputs, deletes it, and checks it again without the stored
    inputs, whose values it cannot know), and that check has nothing else to go by."""

    def __init__(self) -> None:
        self._left: dict[tuple[str, str], Replacement] = {}
        self._diffed: dict[str, Replacement] = {}
        self._lock = threading.Lock()

    def leave(self, urn: Any, spec: Any, replacement: Replacement) -> None:
        key = _key(urn, spec)
        if key is not None:
            with self._lock:
                self._left[key] = replacement

    def leave_diffed(self, urn: Any, replacement: Replacement) -> None:
        if isinstance(urn, str) and urn:
            with self._lock:
                self._diffed[urn] = replacement

    def take(self, urn: Any, spec: Any) -> Replacement | None:
        """What a check against the state left for this replacement (and the diff's entry goes with it)."""
        key = _key(urn, spec)
        if key is None:
            return None
        with self._lock:
            found = self._left.pop(key, None)
            if found is not None:
                self._diffed.pop(key[0], None)
            return found

    def take_diffed(self, urn: Any) -> Replacement | None:
        """What a diff left for the resource of `urn`, when no check against the state left anything."""
        with self._lock:
            return self._diffed.pop(urn, None) if isinstance(urn, str) else None


def _key(urn: Any, spec: Any) -> tuple[str, str] | None:
    """The resource and its checked inputs but the name (the second check chooses the name from the URN,
    and a new run may get a name of its own: `Replacement.name`)."""
    if not isinstance(urn, str) or not urn:
        return None
    props = {k: v for k, v in spec.props().items() if k != "name"}
    return urn, json.dumps(props, sort_keys=True, default=str)


def starts_run(reason: Any) -> bool:
    """Whether a `run_reason` as check gives it starts a run (a first or a new one; not an adopted job).
    A change that keeps the run keeps the reason it was started with, so only a create's or a replace's
    reason says that *this* change starts one (plan.py, and the policy `new-run-budget`)."""
    return isinstance(reason, str) and (reason.startswith(FIRST) or reason.startswith(NEW))


def replaced_by(fields: Iterable[str], what: str) -> str:
    """The one wording of a replace: `changing image, start_command replaces <what>`."""
    return f"changing {', '.join(fields)} replaces {what}"


def costs(values: Mapping[str, Any]) -> str:
    """` (16 GPUs, 160/h)` from the derived outputs, or "" when the catalogue said nothing."""
    parts = []
    gpus, cost = values.get("gpu_count"), values.get("cost_per_hour")
    if isinstance(gpus, int | float) and not isinstance(gpus, bool):  # the engine's numbers are floats
        parts.append(f"{gpus:g} GPU" + ("" if gpus == 1 else "s"))
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        parts.append(f"{cost:g}/h")
    return f" ({', '.join(parts)})" if parts else ""


class RunReason:
    """The `run_reason` of one resource type that runs (`PlatformCalls.runs`): what check shows and a
    create records, and what a replace would give (`if_replaced`)."""

    def __init__(self, noun: str, spec_type: type[specs.Spec]) -> None:
        self.noun = noun
        self.spec_type = spec_type

    def at_check(self, spec: Any, olds: dict[str, Any], inputs: dict[str, Any],
                 replacing: Replacement | None, replaces: list[str], forced: str | None) -> dict[str, Any]:
        """The reason a preview shows, from the checked `inputs` (with their derived outputs), and in a
        preview of the dynamic form RUN_STARTS when this check starts a run. `replacing`: this is the check
        of a replacement (what the check against the state left); `replaces`: the fields whose change
        replaces it; `forced`: why a held failure is replaced although its inputs are the same."""
        found = self._reason_at_check(spec, olds, inputs, replacing, replaces, forced)
        starts = not olds or bool(replaces) or forced is not None
        if inputs.get(PREVIEW_KEY) and starts and starts_run(found.get(RUN_REASON)):
            found[RUN_STARTS] = True
        return found

    def if_replaced(self, spec: Any, inputs: dict[str, Any], replaces: list[str], forced: str | None) -> str:
        """The reason of the run a replace of this resource would start."""
        if replaces:
            fresh = f"{NEW} {replaced_by(replaces, f'the {self.noun}')}"
        elif forced is not None:
            fresh = f"{NEW} {forced}"
        else:
            fresh = FORCED
        return fresh + costs(inputs)

    def _reason_at_check(self, spec: Any, olds: dict[str, Any], inputs: dict[str, Any],
                         replacing: Replacement | None, replaces: list[str], forced: str | None) -> dict[str, Any]:
        if not olds:
            if replacing is not None and replacing.reason is not None:
                return {RUN_REASON: replacing.reason}
            adopted = getattr(spec, "adopt_id", None)
            text = f"adopted: {self.noun} {adopted}, not started by this stack" if adopted else FIRST
            return {RUN_REASON: text + costs(inputs)}
        if replaces or forced is not None:
            return {RUN_REASON: self.if_replaced(spec, inputs, replaces, forced)}
        kept = olds.get(RUN_REASON)
        return {RUN_REASON: kept} if isinstance(kept, str) else {}

    def guard(self, olds: dict[str, Any], spec: Any, replaces: list[str]) -> list[tuple[str, str]]:
        """At preview, the create that `refuse_stopped_run` refuses at `up`."""
        starts = not olds or bool(replaces)
        if starts and getattr(spec, "stopped", False) and not getattr(spec, "adopt_id", None):
            return [("stopped", f"is true, and this would create a {self.noun} (its first run, or one that "
                     "replaces the job): stopped=True stops one that exists; set stopped=False")]
        return []

    @staticmethod
    def recorded(props: dict[str, Any], replacing: Replacement | None = None) -> dict[str, Any]:
        """The reason recorded by a create (that of `replacing`, a targeted replace's, when given) or kept
        by a read (in its outputs and its inputs, as check gave it)."""
        reason = replacing.reason if replacing is not None and replacing.reason else props.get(RUN_REASON)
        return {RUN_REASON: reason} if isinstance(reason, str) else {}


def refuse_stopped_run(noun: str, spec: Any) -> None:
    """`stopped=True` stops a job that exists; a create starts a run (its first, or a new one)."""
    if getattr(spec, "stopped", False):
        raise MltrainError(
            f"stopped=True stops a {noun} that exists, and this create would start a run (the first, or "
            "one that replaces the job): set stopped=False for it")
