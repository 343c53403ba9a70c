"""Record after wait: an ID is recorded only when its object reached what the user asked for.

Every path that records a run ends here: a fresh create, the take-over of this resource's own object
from an interrupted or timed-out run, `adopt_id`, `pulumi import` and the plugin's partially created
resource. An object that ends first (fails, stops, is deleted) or cannot be read is an error; when it
is `ours` (this resource created it) it is rolled back, so that the platform and the state agree, and
an adopted one is left as it is (it is not ours to delete). A run still pending past its
`max_pending_minutes` is the same error (see pending.py), with the time pending and the platform's
reason; so is a run that reached its target and misses its gate (a training job's success_criteria).
`on_failure="keep"` keeps our own failed run instead, recorded with its status and reason. A wait that
runs out of time says so and leaves the object for the next `pulumi up`, which waits again.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from .. import deadline
from ..errors import MltrainError, NotFound, RemoteFailure, WaitTimeout
from ..ownership import Mark
from ..pending import PendingLimit
from ..progress import Label
from ..waiter import wait_for
from .protocol import Outs, R, Runs
from .rollback import roll_back


class RunSpec(Protocol):
    """What the lifecycle reads of a run's inputs."""

    @property
    def name(self) -> str: ...

    @property
    def wait_for(self) -> str: ...

    @property
    def max_pending_minutes(self) -> float | None: ...

    @property
    def on_failure(self) -> str: ...


S = TypeVar("S", bound=RunSpec)


class KeptFailure(RemoteFailure):
    """A run of this resource's own that ended before its `wait_for`, kept by `on_failure="keep"`."""

    def __init__(self, message: str, object_id: str, outs: Outs) -> None:
        super().__init__(message)
        self.object_id, self.outs = object_id, outs


class Recorder:
    """Record after wait for one resource kind: `runs` is its platform, `kind` its name in messages,
    `rollback_seconds` the budget of a roll-back, `with_reason` whether its outputs have a `reason`."""

    def __init__(self, kind: str, rollback_seconds: float, *, with_reason: bool) -> None:
        self.kind, self.rollback_seconds, self.with_reason = kind, rollback_seconds, with_reason

    def record(self, runs: Runs[S, R], spec: S, object_id: str, owner: Mark | None, *,
               ours: bool) -> Outs:
        """The outputs to record for `object_id` once it has reached `spec.wait_for`."""
        goal = runs.goal(spec)
        if goal is None:
            try:
                return runs.recorded(spec, runs.get(object_id))
            except MltrainError:
                if not ours:
                    raise
                return runs.unread(object_id)
        reached, never = goal
        what = runs.what(spec, object_id)
        minutes = spec.max_pending_minutes
        pending = PendingLimit(minutes, runs.pending_states, runs.poll) if minutes else None

        def done(remote: R) -> bool:
            state = runs.state_of(remote)
            if state in reached or state in never:
                return True
            return pending is not None and pending.over(state, runs.created_at(remote), runs.has_started(remote))

        try:
            final = wait_for(
                lambda: runs.get(object_id), done, timeout=deadline.left(), what=what, state_of=runs.state_of,
                backoff=runs.poll, label=Label.of(self.kind, spec, owner, object_id=object_id),
                notes=runs.notes(spec, object_id),
                hint=(lambda _: pending.hint()) if pending is not None else None,
            ).value
        except WaitTimeout as err:
            kept = runs.kept(object_id) if ours else (
                f"{runs.noun.capitalize()} {object_id} was adopted, not created here: it was left as it is and "
                f"nothing was recorded; the next `pulumi up` waits for it again")
            raise WaitTimeout(f"{err}. {kept}") from None
        except NotFound:
            raise RemoteFailure(f"{what} disappeared while waiting for it to be {spec.wait_for}"
                                + (f". {self.roll_back(runs, object_id)}" if ours else "")) from None
        except MltrainError as err:
            raise RemoteFailure(f"waiting for {what} failed: {err}. {self.undo(runs, object_id, ours)}") from None
        state = runs.state_of(final)
        outs: Outs = {}
        recorded: Outs | None = None
        if state in reached:
            recorded = runs.recorded(spec, final)
            outs, missed = runs.gate(spec, object_id, final, recorded)
            if missed is None:
                return {**recorded, **outs}
            head, kept, tail = f"{what} {missed}", "", ""
            if self.with_reason:
                outs["reason"] = missed
        elif state in never:
            why, tail = runs.ended(spec, object_id, final)
            head, kept = f"{what} ended {state} before it was {spec.wait_for}: {why}", ""
        else:  # pending past max_pending_minutes (`done` ends the wait on nothing else)
            assert pending is not None
            reason = runs.pending_reason(final) or "the platform gives no reason"
            why, tail = f"{pending.words(state)}: {reason}", ""
            head, kept = f"{what} was {why}", f" as it is, still {state} (it may yet start),"
            if self.with_reason:
                outs["reason"] = why
        if ours and spec.on_failure == "keep":
            raise KeptFailure(
                f"{head}. It was kept (on_failure=\"keep\"){kept} and is recorded with its status and reason: the "
                f"next `pulumi up` replaces it and `pulumi destroy` deletes it{tail}", object_id,
                {**(recorded if recorded is not None else runs.recorded(spec, final)), **outs})
        raise RemoteFailure(f"{head}. {self.undo(runs, object_id, ours)}{tail}")

    def roll_back(self, runs: Runs[S, R], object_id: str) -> str:
        return roll_back(runs, object_id, self.rollback_seconds)

    def undo(self, runs: Runs[S, R], object_id: str, ours: bool) -> str:
        if ours:
            return self.roll_back(runs, object_id)
        return (f"It was adopted, not created by this resource, so it was not deleted and nothing was "
                f"recorded; delete {runs.noun} {object_id} yourself or adopt another")
