"""`alaya.TrainingJob`: an Alaya NeW distributed training task.

Create is asynchronous: the POST answers a resultKey, the subscription result later yields the
real task ID, and only then is the ID recorded. Nothing can be changed in place (the API has no
update call), so every change of a field that shapes the training replaces the task (a new run);
`description` is only recorded (`record`), and fields marked `local` change only the provider's
behaviour. The declaration is `job_spec.py`; the platform's primitives are `tasks.py`; the
lifecycles (resend, record after wait, roll-back, removal) are `lifecycle/`.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from .. import cancel, deadline, registry
from .. import spec as specs
from ..cancel import Cancelled
from ..errors import MltrainError, RemoteFailure, UnexpectedAnswer
from ..lifecycle import removal, resend, takeover
from ..lifecycle.protocol import Outs
from ..lifecycle.record import Recorder
from ..ownership import Mark, owns
from ..progress import Label, notice
from ..runs import refuse_stopped_run
from ..waiter import Backoff, wait_for
from . import contract
from .base import AlayaCalls
from .catalog import catalog_failures, job_costs, products
from .job_spec import COST_OUTPUTS, TrainingJobOutputs, TrainingJobSpec
from .tasks import Task, Tasks, mark, outputs, status, unmarked

__all__ = ["TrainingJobCalls", "TrainingJobOutputs", "TrainingJobSpec"]

# After a cancel, how long the subscription may still answer with the task ID (it usually takes a second).
RESOLVE_GRACE = 3.0


class TrainingJobCalls(AlayaCalls[TrainingJobSpec, TrainingJobOutputs]):
    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "training task"
    runs: ClassVar[bool] = True
    derived_kept: ClassVar[tuple[str, ...]] = COST_OUTPUTS
    spec_type = TrainingJobSpec
    output_type = TrainingJobOutputs
    result_backoff: ClassVar[Backoff] = Backoff(first=0.5, maximum=5.0)

    def objects(self) -> Tasks:
        return Tasks(self.api())

    def check_remote(self, spec: Any) -> list[tuple[str, str]]:
        if not self.settings.alaya_api_key:
            return []
        refused = self.probe_credentials()
        if refused is not None:
            return refused
        return catalog_failures(self.api(), spec.product_code, spec.storage_mounts)

    def derived(self, spec: Any) -> dict[str, Any]:
        """GPUs and cost from the (cached) product list, so previews and policies know them; nothing
        without credentials or when the list cannot be read."""
        if not self.settings.alaya_api_key or not getattr(spec, "product_code", None):
            return {}
        try:
            return job_costs(products(self.api()), spec.product_code, int(spec.worker_count or 0))
        except MltrainError as err:
            print(f"[mltrain] GPU and cost outputs skipped: {err}", file=sys.stderr)
            return {}

    def last_state(self, olds: dict[str, Any]) -> str | None:
        """The task's status now, looked up by its name, when it is live (a replace would stop it)."""
        name = olds.get("name")
        if not isinstance(name, str) or not name:
            return None
        for row in self.api().find_tasks(name):
            if status(row) in contract.LIVE:
                return f"{status(row)} ({row.get('id')})"
        return None

    # ----- create --------------------------------------------------------------------------------
    def create(self, spec: Any, owner: Mark | None) -> tuple[str, dict[str, Any]]:
        refuse_stopped_run(self.noun, spec)
        takeover.clear_own(self.objects(), spec.name, owner, Label.of(self.kind, spec, owner))
        body: dict[str, Any] = spec.wire()
        if owner is not None:
            body["env"] = {**body.get("env", {}), contract.OWNER_ENV: owner.text()}
        submitted = resend.submit(lambda: self.api().create_task(body), lambda _: self._made(spec, owner),
                                  noun="task", name=spec.name, grace=self.settings.ambiguity_grace, owner=owner)
        if submitted.found is not None:
            return submitted.found, self._record(spec, submitted.found, owner, ours=True)
        result_key = str(submitted.sent)
        task_id = self._resolve(spec, owner, result_key)
        if submitted.attempts > 1:
            self._remove_duplicates(spec, owner, task_id)
        return task_id, {**self._record(spec, task_id, owner, ours=True), "result_key": result_key}

    def _resolve(self, spec: Any, owner: Mark | None, result_key: str) -> str:
        """The task ID the subscription result yields; a failed or unreadable one removes what it made.
        A cancel lets the subscription answer for RESOLVE_GRACE seconds more: with the ID, the task is
        recorded (unfinished); without it, it is left to the next `pulumi up`, which finds it by its mark and
        deletes it before it makes its own."""

        def wait(timeout: float, cancellable: bool = True) -> dict[str, Any]:
            return wait_for(
                lambda: self._subscription(result_key, spec, owner),
                lambda r: str(r.get("status", "")).upper() != contract.SUB_PROCESSING,
                timeout=timeout, what=f"subscription {result_key} of task {spec.name!r}",
                label=Label.of(self.kind, spec, owner, doing=f"subscription {result_key}"),
                state_of=lambda r: str(r.get("status", "?")), backoff=self.result_backoff,
                cancellable=cancellable,
            ).value

        try:
            try:
                result = wait(deadline.left())
            except Cancelled as cancelled:
                try:
                    result = wait(min(RESOLVE_GRACE, deadline.left()), cancellable=False)
                except MltrainError:
                    raise MltrainError(
                        f"{cancelled}. No task ID came within {RESOLVE_GRACE:g}s more: the task, if Alaya NeW "
                        f"makes it, carries this resource's owner mark; the next `pulumi up` deletes it before it "
                        "makes its own (`mltrain-runs abandoned` lists it meanwhile; set adopt_id to keep it)"
                    ) from None
        except MltrainError as err:
            if cancel.requested():
                raise
            raise MltrainError(f"{err}. {self._clean_up_unrecorded(spec, owner)}") from None
        if str(result.get("status", "")).upper() != contract.SUB_SUCCESS:
            raise RemoteFailure(
                f"Alaya NeW could not create the task: {result.get('message') or 'no reason given'} "
                f"(subscription {result_key} ended {result.get('status')}); {self._clean_up_unrecorded(spec, owner)}"
            )
        task_id = str(result.get("trainingTaskId") or result.get("resourceId") or "")
        if not task_id:
            raise RemoteFailure(f"subscription {result_key} succeeded without a trainingTaskId; "
                                f"{self._clean_up_unrecorded(spec, owner)}")
        return task_id

    def _subscription(self, result_key: str, spec: Any, owner: Mark | None) -> dict[str, Any]:
        """The subscription result. One that cannot be read (no status, no data) is no proof of
        anything: the task is looked for by its owner mark instead, and recorded when it is there;
        until then the create waits on (its deadline ends the wait and removes what it made)."""
        try:
            return self.api().result(result_key)
        except UnexpectedAnswer as err:
            if owner is None:
                raise
            mine = self._ours(spec, owner)
            if len(mine) == 1:
                notice(f"{err}; task {spec.name!r} found by its owner mark: {mine[0].get('id')}", owner)
                return {"status": contract.SUB_SUCCESS, "trainingTaskId": str(mine[0].get("id"))}
            return {"status": contract.SUB_PROCESSING, "message": str(err)}

    def _ours(self, spec: Any, owner: Mark | None) -> list[Task]:
        """Tasks of this name that are this resource's (`ownership.owns`; never anyone else's)."""
        if owner is None:
            return []
        details = [self.api().task(str(row.get("id"))) for row in self.api().find_tasks(spec.name)]
        return [d for d in details if owns(owner, mark(d), spec.name) and status(d) != contract.DELETING]

    def _clean_up_unrecorded(self, spec: Any, owner: Mark | None) -> str:
        """The create was accepted but its task ID cannot be recorded: remove our task if it exists,
        so that the platform and the state agree; otherwise say what the next run does with it."""
        budget = deadline.Deadline.after(self.timeout(spec, "delete"), f"cleaning up after task {spec.name!r}")
        try:
            with deadline.scope(budget, override=True):
                found = [str(t.get("id")) for t in self._ours(spec, owner)]
                for task_id in found:
                    removal.remove(self.objects(), task_id)
        except MltrainError as err:
            return (f"Could not check for the task it may have created ({err}); the next `pulumi up` finds "
                    f"the task named {spec.name!r} that carries this resource's mark and deletes it before it "
                    "makes its own, so none is left unrecorded")
        if found:
            return f"The task the request had created ({', '.join(found)}) was deleted, so nothing is left behind"
        return (f"no task was created yet; if one named {spec.name!r} appears later, the next `pulumi up` "
                "deletes it (it carries this resource's mark) before it makes its own")

    def _remove_duplicates(self, spec: Any, owner: Mark | None, task_id: str) -> None:
        """After a resend, a late first request may have made a second task of ours: remove it."""
        for task in self._ours(spec, owner):
            other = str(task.get("id"))
            if other != task_id:
                notice(f"removing {other}, a duplicate of {task_id} from the unanswered first request", owner)
                removal.remove(self.objects(), other)

    def _made(self, spec: Any, owner: Mark | None) -> str | None:
        """The ID of the task this create made (its answer was lost): the create removed every task of
        its mark before it sent anything (`takeover.clear_own`), so one that carries it now is its own."""
        mine = self._ours(spec, owner)
        return str(mine[0].get("id")) if mine else None

    def _record(self, spec: TrainingJobSpec, task_id: str, owner: Mark | None, *, ours: bool) -> Outs:
        recorder = Recorder(self.kind, self.timeout(spec, "delete"), with_reason=True)
        return recorder.record(self.objects(), spec, task_id, owner, ours=ours)

    def update(self, object_id: str, old: Any, new: Any, changed: list[str], owner: Mark | None) -> dict[str, Any]:
        """Only `record` and `local` fields reach an update (the rest replace): nothing to send, but
        say so, since the platform keeps its first value."""
        if "stopped" in changed and new.stopped:
            removal.stop_in_place(self.objects(), object_id,
                                  Label.of(self.kind, new, owner, object_id=object_id, doing="stopping"))
            return outputs(self.api().task(object_id))
        if "stopped" in changed:
            notice(f"{self.kind} {new.name!r}: stopped=false recorded; task {object_id} is not started "
                   "again (to run the job again, change its replacement_trigger)", owner)
        recorded = [n for n, m in specs.field_metas(type(new)) if n in changed and m.on_change == "record"]
        if recorded:
            notice(f"{self.kind} {new.name!r}: {', '.join(recorded)} recorded in the state only: Alaya NeW "
                   f"has no update call, so task {object_id} keeps the value it was created with (no new run; "
                   "to run it again, use the replacement_trigger resource option)", owner)
        return {}

    # ----- adopt / read / delete -----------------------------------------------------------------
    def adopt(self, object_id: str, spec: Any, owner: Mark | None) -> dict[str, Any]:
        takeover.require_match(spec, self.noun, object_id, unmarked(self.api().task(object_id)))
        return self._record(spec, object_id, owner, ours=False)

    def take_over(self, object_id: str, spec: Any, owner: Mark | None) -> dict[str, Any]:
        takeover.require_match(spec, self.noun, object_id, unmarked(self.api().task(object_id)))
        return self._record(spec, object_id, owner, ours=True)

    def read(self, object_id: str, spec: Any) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        detail = self.api().task(object_id)
        if status(detail) == contract.DELETING:
            return None
        return outputs(detail), unmarked(detail)

    def delete(self, object_id: str, spec: Any) -> bool:
        return removal.remove(self.objects(), object_id, Label.of(self.kind, spec, object_id=object_id))


# `TrainingJobProvider`, the class path states written by 0.1 name: the dynamic provider, built on first use.
__getattr__ = registry.provider_aliases(__name__)
