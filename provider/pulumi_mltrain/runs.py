"""Why a training job's current run exists: its `run_reason` output.

A training job is a run: a change of a field that shapes the training replaces the job, which starts
a new run. `check` words why (its result is what a preview shows, with the GPUs and cost that the
catalogue gives), the create records it, and updates and refreshes keep it, so the state says why
the run it holds was started:

- `first run (16 GPUs, 160/h)`: the job's first create;
- `new run: changing image, start_command replaces the training task (16 GPUs, 160/h)`: a replace
  that the inputs ask for, named by its fields (the wording of `replace_running="refuse"` too);
- `new run: replaces the previous run of unchanged inputs (...)`: a replace the inputs do not show (a
  replacement_trigger, `--replace`, a failed job kept by `on_failure="keep"`);
- `adopted: ...`: a job taken over with `adopt_id`, not started here.

How `check` knows: the engine checks a resource against its stored inputs, asks `diff`, and when it
replaces the resource it checks the inputs once more without the stored ones (for their defaults),
and creates with what that second check returns. The first check, in the same provider process,
leaves the reason a replace would have, keyed by the URN and the checked inputs; the second one
takes it. A targeted
replace (`pulumi up --replace`) skips the second check: its create takes the reason instead.

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
from collections.abc import Iterable, Mapping
from typing import Any

from . import spec as specs
from .errors import MltrainError
from .ownership import PREVIEW_KEY, URN_KEY

RUN_REASON = "run_reason"
FIRST = "first run"
NEW = "new run:"  # every reason of a replace starts with it; with FIRST, the reasons that start a run
# Set only in a preview, on a training job whose step starts a run (a create or a replace): see above.
RUN_STARTS = "run_starts"
FORCED = (f"{NEW} replaces the previous run of unchanged inputs (a replacement_trigger, `pulumi up --replace` "
          "or a failed run kept by on_failure=\"keep\")")
DESCRIPTION = (
    "Why the current run exists: `first run`, `new run: changing <fields> replaces the job`, or a "
    "replacement_trigger, `--replace` or kept failure; with its GPUs and cost per hour where the catalogue "
    "gives them. A preview shows the run a change would start. Never drift.")

# (URN, checked inputs) -> the reason a replace of the resource would have, left by its check against
# the stored inputs for the check or the create of the replacement that follows in this provider process.
_IF_REPLACED: dict[tuple[str, str], str] = {}


def _key(urn: Any, spec: Any) -> tuple[str, str] | None:
    """The resource and its checked inputs (the second check chooses the same name from the URN)."""
    if not isinstance(urn, str) or not urn:
        return None
    return urn, json.dumps(spec.props(), sort_keys=True, default=str)


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
    """The `run_reason` of one resource type that runs (`PlatformCalls.runs`), which the handler keeps:
    at check, at create and at read."""

    def __init__(self, noun: str, spec_type: type[specs.Spec]) -> None:
        self.noun = noun
        self.spec_type = spec_type

    def at_check(self, spec: Any, olds: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
        """The reason a preview shows, from the checked `inputs` (with their derived outputs), and in a
        preview of the dynamic form RUN_STARTS when this check starts a run."""
        found = self._reason_at_check(spec, olds, inputs)
        starts = not olds or bool(specs.diff(self.spec_type, olds, spec.props())[1])
        if inputs.get(PREVIEW_KEY) and starts and starts_run(found.get(RUN_REASON)):
            found[RUN_STARTS] = True
        return found

    def _reason_at_check(self, spec: Any, olds: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
        key = _key(inputs.get(URN_KEY), spec)
        if not olds:
            replacing = _IF_REPLACED.pop(key, None) if key else None
            if replacing is not None:
                return {RUN_REASON: replacing}
            adopted = getattr(spec, "adopt_id", None)
            text = f"adopted: {self.noun} {adopted}, not started by this stack" if adopted else FIRST
            return {RUN_REASON: text + costs(inputs)}
        replaces = specs.diff(self.spec_type, olds, spec.props())[1]
        fresh = f"{NEW} {replaced_by(replaces, f'the {self.noun}')}" if replaces else FORCED
        if key:
            _IF_REPLACED[key] = fresh + costs(inputs)
        if replaces:
            return {RUN_REASON: fresh + costs(inputs)}
        kept = olds.get(RUN_REASON)
        return {RUN_REASON: kept} if isinstance(kept, str) else {}

    def guard(self, olds: dict[str, Any], spec: Any, replaces: list[str]) -> list[tuple[str, str]]:
        """At preview, the create that `refuse_stopped_run` refuses at `up`."""
        starts = not olds or bool(replaces)
        if starts and getattr(spec, "stopped", False) and not getattr(spec, "adopt_id", None):
            return [("stopped", f"is true, and this would create a {self.noun} (its first run, or one that "
                     "replaces the job): stopped=True stops one that exists; set stopped=False")]
        return []

    def recorded(self, spec: Any, props: dict[str, Any], replacing: bool) -> dict[str, Any]:
        """The reason recorded by a create (`replacing`: of a resource the state holds, checked against
        it: a targeted replace) or kept by a read (in its outputs and its inputs, as check gave it)."""
        reason = props.get(RUN_REASON)
        key = _key(props.get(URN_KEY), spec) if replacing else None
        if key:
            reason = _IF_REPLACED.pop(key, reason)
        return {RUN_REASON: reason} if isinstance(reason, str) else {}


def refuse_stopped_run(noun: str, spec: Any) -> None:
    """`stopped=True` stops a job that exists; a create starts a run (its first, or a new one)."""
    if getattr(spec, "stopped", False):
        raise MltrainError(
            f"stopped=True stops a {noun} that exists, and this create would start a run (the first, or "
            "one that replaces the job): set stopped=False for it")
