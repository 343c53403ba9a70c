"""Record after wait: an ID is recorded only when its object reached what the user asked for.

Every path that records a run ends here: a fresh create, `adopt_id`, `pulumi import`, and the resume of
an unfinished create (its wait cancelled or out of time) or of the plugin's partially created resource.
Three outcomes besides success:

- Unfinished: the engine cancelled the wait (`cancel.py`), or it ran out of time. The object is recorded
  as it was last seen (`Unfinished`), and the next `pulumi up` goes on waiting for it: no second create.
- Held: our own run ended before its target (failed, stopped), stayed pending past its
  `max_pending_minutes` (pending.py), or reached it and missed its gate (a training job's
  success_criteria). Its job is made to have ended (a pending one is stopped), then kept on the platform as
  the run's record (`on_failure="keep"`) or deleted (`"delete"`), and the failure is held in the state
  (`Held`): no later `pulumi up` starts the same run again unless asked (see handler.py).
- An adopted object that fails is left as it is (it is not ours) and nothing is recorded; one of ours
  that disappears or cannot be read while waited for is rolled back, so the platform and the state agree.

"""

from __future__ import annotations

from typing import Protocol, TypeVar

from .. import deadline
from ..cancel import Cancelled
from ..errors import MltrainError, NotFound, RemoteFailure, WaitTimeout
from ..ownership import Mark
from ..pending import PendingLimit
from ..progress import Label
from ..waiter import wait_for
from .protocol import Outs, R, Runs
from .removal import stop_in_place
from .rollback import RolledBack, roll_back


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


class Held(RemoteFailure):
    """A run of this resource's own that failed (see the module), its job ended; recorded with the failure.
    `removed`: its job was deleted (`on_failure="delete"`); `failure` is what happened, in a sentence or two;
    `details` what follows it (a job's last log lines and events), on lines of its own."""

    def __init__(self, failure: str, object_id: str, outs: Outs, *, removed: bool, details: str = "") -> None:
        super().__init__(failure + details)
        self.failure, self.object_id, self.outs, self.removed, self.details = failure, object_id, outs, removed, details


class Unfinished(MltrainError):
    """A wait the engine cancelled after its object came to exist: recorded with `outs` as last seen."""

    def __init__(self, message: str, object_id: str, outs: Outs) -> None:
        super().__init__(message)
        self.object_id, self.outs = object_id, outs


# How long the one read of an object whose wait was cancelled before its first look may take.
LOOK_AFTER_CANCEL = 2.0


class Recorder:
    """Record after wait for one resource kind: `runs` is its platform, `kind` its name in messages,
    `with_reason` whether its outputs have a `reason`. It runs inside its operation's deadline, which
    bounds the wait and gives a roll-back its budget (`Deadline.clean_up`)."""

    def __init__(self, kind: str, *, with_reason: bool) -> None:
        self.kind, self.with_reason = kind, with_reason

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
                lambda: runs.get(object_id), done, until=deadline.operation(), what=what, state_of=runs.state_of,
                backoff=runs.poll, label=Label.of(self.kind, spec, owner, object_id=object_id),
                notes=runs.notes(spec, object_id),
                hint=(lambda _: pending.hint()) if pending is not None else None,
            ).value
        except (Cancelled, WaitTimeout) as err:
            raise self.unfinished(runs, spec, object_id, err) from None
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
            head, tail, live = f"{what} {missed}", "", False
            if self.with_reason:
                outs["reason"] = missed
        elif state in never:
            why, tail = runs.ended(spec, object_id, final)
            head, live = f"{what} ended {state} before it was {spec.wait_for}: {why}", False
        else:  # pending past max_pending_minutes (`done` ends the wait on nothing else)
            assert pending is not None
            reason = runs.pending_reason(final) or "the platform gives no reason"
            why, tail, live = f"{pending.words(state)}: {reason}", "", True
            head = f"{what} was {why}"
            if self.with_reason:
                outs["reason"] = why
        if not ours:
            raise RemoteFailure(f"{head}. {self.undo(runs, object_id, ours)}{tail}")
        recorded = recorded if recorded is not None else runs.recorded(spec, final)
        raise self.hold(runs, spec, object_id, head, recorded, outs, live=live, owner=owner, details=tail)

    def hold(self, runs: Runs[S, R], spec: S, object_id: str, failure: str, recorded: Outs, judged: Outs, *,
             live: bool, owner: Mark | None, details: str = "") -> Held:
        """Our own failed run, its job ended: kept as the run's record, or deleted (`on_failure`).
        `recorded`: its outputs as last read; `judged`: what the failure adds (its reason, a gate's)."""
        if spec.on_failure == "delete":
            undone = self.roll_back(runs, object_id)
            if not undone.removed:  # held all the same: its job stays, recorded, and destroy deletes it
                failure = f"{failure}. Deleting its job failed ({undone.error})"
            return Held(failure, object_id, {**recorded, **judged}, removed=undone.removed, details=details)
        if live:  # still pending: stopped, so that it never starts and holds no GPU
            budget = deadline.operation().clean_up(f"stopping pending {runs.noun} {object_id}")
            try:
                with deadline.scope(budget, override=True):
                    stop_in_place(runs, object_id, Label.of(self.kind, spec, owner, object_id=object_id,
                                                            doing="stopping"))
                    recorded = runs.recorded(spec, runs.get(object_id))
            except MltrainError as err:
                failure = f"{failure}. Stopping it failed ({err}); stop {runs.noun} {object_id} yourself"
            else:
                failure = f"{failure}. It was stopped"
        return Held(failure, object_id, {**recorded, **judged}, removed=False, details=details)

    def unfinished(self, runs: Runs[S, R], spec: S, object_id: str, err: Cancelled | WaitTimeout) -> Unfinished:
        """The object of a wait that was cancelled or ran out of time, as the wait last saw it (else one
        quick read, else its ID): recorded, and the next `pulumi up` goes on waiting for it."""
        remote: R | None = err.value  # type: ignore[assignment]  # what this wait's fetch returned
        if remote is None:
            op, what = deadline.operation(), f"reading {object_id}"
            # After a cancel, a part of what the operation has left; after a time-out, a clean-up's own.
            look = op.clean_up(what, LOOK_AFTER_CANCEL) if isinstance(err, WaitTimeout) else op.within(
                LOOK_AFTER_CANCEL, what)
            try:
                with deadline.scope(look, override=True):
                    remote = runs.get(object_id)
            except MltrainError:
                remote = None
        outs = runs.recorded(spec, remote) if remote is not None else runs.unread(object_id)
        state = runs.state_of(remote) if remote is not None else "in an unknown state"
        return Unfinished(
            f"{err}. {runs.what(spec, object_id).capitalize()} was left {state} and is recorded as unfinished: "
            f"the next `pulumi up` goes on waiting for it to be {spec.wait_for} (no second create), and "
            "`pulumi destroy` removes it from the stack and keeps its job as a record (keep_runs)", object_id, outs)

    def roll_back(self, runs: Runs[S, R], object_id: str) -> RolledBack:
        return roll_back(runs, object_id, deadline.operation())

    def undo(self, runs: Runs[S, R], object_id: str, ours: bool) -> str:
        if ours:
            return str(self.roll_back(runs, object_id))
        return (f"It was adopted, not created by this resource, so it was not deleted and nothing was "
                f"recorded; delete {runs.noun} {object_id} yourself or adopt another")
