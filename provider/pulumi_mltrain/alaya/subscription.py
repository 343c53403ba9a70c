"""Alaya NeW's asynchronous create: the POST answers a resultKey, and the subscription result later
yields the real task ID. Nothing is recorded before that ID is known."""

from __future__ import annotations

from typing import Any

from .. import cancel, deadline
from ..cancel import Cancelled
from ..errors import MltrainError, RemoteFailure, UnexpectedAnswer
from ..lifecycle.create import owned
from ..lifecycle.protocol import Listing
from ..ownership import Mark
from ..progress import Label, notice
from ..waiter import Backoff, wait_for
from .job_spec import TrainingJobSpec
from .wire import contract
from .wire.client import AlayaClient

# After a cancel, how long the subscription may still answer with the task ID (it usually takes a second).
RESOLVE_GRACE = 3.0
BACKOFF = Backoff(first=0.5, maximum=5.0)


def resolve(api: AlayaClient, tasks: Listing, kind: str, spec: TrainingJobSpec, owner: Mark | None,
            pending: str) -> str:
    """The task ID the subscription result yields. A cancel lets the subscription answer for
    RESOLVE_GRACE seconds more: with the ID, the task is recorded (unfinished); without it, the next
    `pulumi up` finds it by its mark and deletes it before it makes its own."""

    def wait(until: deadline.Deadline, cancellable: bool = True) -> dict[str, Any]:
        return wait_for(
            lambda: _result(api, tasks, pending, spec, owner),
            lambda r: str(r.get("status", "")).upper() != contract.SUB_PROCESSING,
            until=until, what=f"subscription {pending} of task {spec.name!r}",
            label=Label.of(kind, spec, owner, doing=f"subscription {pending}"),
            state_of=lambda r: str(r.get("status", "?")), backoff=BACKOFF, cancellable=cancellable,
        ).value

    operation = deadline.operation()
    try:
        result = wait(operation)
    except Cancelled as cancelled:
        grace = operation.within(RESOLVE_GRACE)
        try:
            result = wait(grace, cancellable=False)
        except MltrainError:
            raise MltrainError(
                f"{cancelled}. No task ID came within {grace.seconds:.0f}s more: the task, if Alaya NeW makes "
                "it, carries this resource's owner mark; the next `pulumi up` deletes it before it makes its "
                "own (`mltrain-runs abandoned` lists it meanwhile; set adopt_id to keep it)") from None
    if str(result.get("status", "")).upper() != contract.SUB_SUCCESS:
        raise RemoteFailure(f"Alaya NeW could not create the task: {result.get('message') or 'no reason given'} "
                            f"(subscription {pending} ended {result.get('status')})")
    task_id = str(result.get("trainingTaskId") or result.get("resourceId") or "")
    if not task_id:
        raise RemoteFailure(f"subscription {pending} succeeded without a trainingTaskId")
    return task_id


def _result(api: AlayaClient, tasks: Listing, result_key: str, spec: TrainingJobSpec,
            owner: Mark | None) -> dict[str, Any]:
    """The subscription result. One that cannot be read (no status, no data) is no proof of
    anything: the task is looked for by its owner mark instead, and recorded when it is there;
    until then the create waits on (its deadline ends the wait and removes what it made)."""
    try:
        return api.result(result_key)
    except UnexpectedAnswer as err:
        if owner is None or cancel.requested():
            raise
        mine = owned(tasks, spec.name, owner)
        if len(mine) == 1:
            notice(f"{err}; task {spec.name!r} found by its owner mark: {mine[0]}", owner)
            return {"status": contract.SUB_SUCCESS, "trainingTaskId": mine[0]}
        return {"status": contract.SUB_PROCESSING, "message": str(err)}
