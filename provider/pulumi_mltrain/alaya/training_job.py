"""`alaya.TrainingJob`: an Alaya NeW distributed training task, as the lifecycles run it.

Create is asynchronous: the POST answers a resultKey, the subscription result later yields the real
task ID (`resolve`), and only then is the ID recorded; the create sequence itself is
lifecycle/create.py's. Nothing changes in place (the API has no update call): a change of a field that
shapes the training replaces the task (a new run), `description` is only recorded, and fields marked
`local` change only the provider's behaviour. The declaration is `job_spec.py`; the task's wire shape
(its outputs, status, owner mark) is `tasks.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, ClassVar

from .. import cancel, deadline, registry
from .. import spec as specs
from ..cancel import Cancelled
from ..errors import ApiError, MltrainError, RemoteFailure, UnexpectedAnswer
from ..lifecycle import removal, takeover
from ..lifecycle.create import owned
from ..lifecycle.protocol import Busy, MarkedRun, Named, Outs, Sent, Stop
from ..ownership import Mark
from ..platform_calls import Failures, PlatformCalls, Props
from ..progress import Label, notice
from ..waiter import Backoff, wait_for
from . import contract, tasks
from .catalog import catalog_failures, job_costs, products
from .client import AlayaClient
from .job_spec import COST_OUTPUTS, TrainingJobOutputs, TrainingJobSpec
from .tasks import Task, mark, outputs, status, unmarked

__all__ = ["TrainingJobCalls", "TrainingJobOutputs", "TrainingJobSpec"]

# After a cancel, how long the subscription may still answer with the task ID (it usually takes a second).
RESOLVE_GRACE = 3.0
CREDENTIALS = ("mltrain:alayaApiKey",)


class TrainingJobCalls(PlatformCalls[TrainingJobSpec, TrainingJobOutputs, Task]):
    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "task"
    described: ClassVar[str] = "training task"
    platform: ClassVar[str] = tasks.PLATFORM
    runs: ClassVar[bool] = True
    derived_kept: ClassVar[tuple[str, ...]] = COST_OUTPUTS
    credential_keys: ClassVar[tuple[str, ...]] = CREDENTIALS
    spec_type = TrainingJobSpec
    output_type = TrainingJobOutputs
    pending_states: ClassVar[frozenset[str]] = contract.BEFORE_RUNNING
    result_backoff: ClassVar[Backoff] = Backoff(first=0.5, maximum=5.0)

    @property
    def client(self) -> AlayaClient:
        return self.context.client("alaya", AlayaClient)

    @classmethod
    def configured(cls, settings: Any) -> bool:
        return bool(settings.alaya_api_key)

    # ----- check time ----------------------------------------------------------------------------
    def check_remote(self, spec: TrainingJobSpec) -> Failures:
        if not self.settings.alaya_api_key:
            return []
        try:
            products(self.client)  # cached; a refused key fails the preview here
        except MltrainError as err:
            refused = self.refused_credentials(err)
            if refused is not None:
                return refused
        return catalog_failures(self.client, spec.product_code, spec.storage_mounts)

    def derived(self, spec: TrainingJobSpec) -> Props:
        """GPUs and cost from the (cached) product list, so previews and policies know them; nothing
        without credentials or when the list cannot be read."""
        if not self.settings.alaya_api_key or not spec.product_code:
            return {}
        try:
            return job_costs(products(self.client), spec.product_code, int(spec.worker_count or 0))
        except MltrainError as err:
            self.context.say(f"GPU and cost outputs skipped: {err}")
            return {}

    def last_state(self, olds: Props) -> str | None:
        """The task's status now, looked up by its name, when it is live (a replace would stop it)."""
        name = olds.get("name")
        if not isinstance(name, str) or not name:
            return None
        for row in self.client.find_tasks(name):
            if status(row) in contract.LIVE:
                return f"{status(row)} ({row.get('id')})"
        return None

    # ----- the task ------------------------------------------------------------------------------
    def get(self, object_id: str) -> Task:
        return self.client.task(object_id)

    def state_of(self, remote: Task) -> str:
        return status(remote)

    def stop(self, object_id: str) -> Stop:
        try:
            self.client.stop_task(object_id)
        except ApiError as err:
            if tasks.refused(err):
                return Stop.ENDED  # ended, paused or being deleted: nothing to stop
            raise
        return Stop.ASKED

    def delete(self, object_id: str) -> None:
        try:
            self.client.delete_task(object_id)
        except ApiError as err:
            if tasks.refused(err):
                raise Busy(str(err)) from None
            raise

    def live(self, state: str) -> bool:
        return state in contract.LIVE - {contract.PAUSED}

    def settled(self, state: str) -> bool:
        return state in tasks.DELETABLE

    def listed(self, object_id: str, name: str) -> bool:
        return any(str(r.get("id")) == object_id for r in self.client.find_tasks(name))

    def named(self, name: str) -> list[Named]:
        """Tasks of the name, read in detail (the listing carries no `env`, where the mark lives)."""
        details = [self.client.task(str(row.get("id"))) for row in self.client.find_tasks(name)]
        return [Named(str(d.get("id")), mark(d)) for d in details if status(d) != contract.DELETING]

    def read(self, object_id: str, spec: TrainingJobSpec) -> tuple[Props, Props | None] | None:
        detail = self.client.task(object_id)
        if status(detail) == contract.DELETING:
            return None
        return outputs(detail), unmarked(detail)

    def update(self, object_id: str, old: TrainingJobSpec, new: TrainingJobSpec, changed: list[str],
               owner: Mark | None) -> Props:
        """Only `record` and `local` fields reach an update (the rest replace): nothing to send, but
        say so, since the platform keeps its first value."""
        if "stopped" in changed and new.stopped:
            removal.stop_in_place(self, object_id, Label.of(self.kind, new, owner, object_id=object_id,
                                                            doing="stopping"))
            return outputs(self.client.task(object_id))
        if "stopped" in changed:
            notice(f"{self.kind} {new.name!r}: stopped=false recorded; task {object_id} is not started "
                   "again (to run the job again, change its replacement_trigger)", owner)
        recorded = [n for n, m in specs.field_metas(type(new)) if n in changed and m.on_change == "record"]
        if recorded:
            notice(f"{self.kind} {new.name!r}: {', '.join(recorded)} recorded in the state only: Alaya NeW "
                   f"has no update call, so task {object_id} keeps the value it was created with (no new run; "
                   "to run it again, use the replacement_trigger resource option)", owner)
        return {}

    # ----- its create ----------------------------------------------------------------------------
    def submit(self, spec: TrainingJobSpec, owner: Mark | None) -> Sent:
        body: dict[str, Any] = spec.wire()
        if owner is not None:
            body["env"] = {**body.get("env", {}), contract.OWNER_ENV: owner.text()}
        result_key = str(self.client.create_task(body))
        return Sent(pending=result_key, outputs={"result_key": result_key})

    def resolve(self, spec: TrainingJobSpec, owner: Mark | None, pending: str) -> str:
        """The task ID the subscription result yields. A cancel lets the subscription answer for
        RESOLVE_GRACE seconds more: with the ID, the task is recorded (unfinished); without it, the next
        `pulumi up` finds it by its mark and deletes it before it makes its own."""

        def wait(timeout: float, cancellable: bool = True) -> dict[str, Any]:
            return wait_for(
                lambda: self._subscription(pending, spec, owner),
                lambda r: str(r.get("status", "")).upper() != contract.SUB_PROCESSING,
                timeout=timeout, what=f"subscription {pending} of task {spec.name!r}",
                label=Label.of(self.kind, spec, owner, doing=f"subscription {pending}"),
                state_of=lambda r: str(r.get("status", "?")), backoff=self.result_backoff, cancellable=cancellable,
            ).value

        try:
            result = wait(deadline.left())
        except Cancelled as cancelled:
            try:
                result = wait(min(RESOLVE_GRACE, deadline.left()), cancellable=False)
            except MltrainError:
                raise MltrainError(
                    f"{cancelled}. No task ID came within {RESOLVE_GRACE:g}s more: the task, if Alaya NeW makes "
                    "it, carries this resource's owner mark; the next `pulumi up` deletes it before it makes its "
                    "own (`mltrain-runs abandoned` lists it meanwhile; set adopt_id to keep it)") from None
        if str(result.get("status", "")).upper() != contract.SUB_SUCCESS:
            raise RemoteFailure(f"Alaya NeW could not create the task: {result.get('message') or 'no reason given'} "
                                f"(subscription {pending} ended {result.get('status')})")
        task_id = str(result.get("trainingTaskId") or result.get("resourceId") or "")
        if not task_id:
            raise RemoteFailure(f"subscription {pending} succeeded without a trainingTaskId")
        return task_id

    def _subscription(self, result_key: str, spec: TrainingJobSpec, owner: Mark | None) -> dict[str, Any]:
        """The subscription result. One that cannot be read (no status, no data) is no proof of
        anything: the task is looked for by its owner mark instead, and recorded when it is there;
        until then the create waits on (its deadline ends the wait and removes what it made)."""
        try:
            return self.client.result(result_key)
        except UnexpectedAnswer as err:
            if owner is None or cancel.requested():
                raise
            mine = owned(self, spec.name, owner)
            if len(mine) == 1:
                notice(f"{err}; task {spec.name!r} found by its owner mark: {mine[0]}", owner)
                return {"status": contract.SUB_SUCCESS, "trainingTaskId": mine[0]}
            return {"status": contract.SUB_PROCESSING, "message": str(err)}

    def accept(self, object_id: str, spec: TrainingJobSpec) -> None:
        takeover.require_match(spec, self.noun, object_id, unmarked(self.client.task(object_id)))

    # ----- the run -------------------------------------------------------------------------------
    def goal(self, spec: TrainingJobSpec) -> tuple[frozenset[str], frozenset[str]] | None:
        target = contract.REACHED.get(spec.wait_for)
        return None if target is None else (target, contract.NEVER)

    def recorded(self, spec: TrainingJobSpec, remote: Task) -> Outs:
        return outputs(remote)

    def unread(self, object_id: str) -> Outs:
        return {"training_task_id": object_id, "status": "UNKNOWN"}

    def ended(self, spec: TrainingJobSpec, object_id: str, remote: Task) -> tuple[str, str]:
        return str(remote.get("reason") or "no reason"), ""

    def created_at(self, remote: Task) -> float | None:
        """The end of the second `createdTime` names (it has whole seconds): never cuts the limit short."""
        created = tasks.epoch(remote.get("createdTime"))
        return None if created is None else created + 1.0

    def has_started(self, remote: Task) -> bool:
        return bool(remote.get("startTime"))

    def pending_reason(self, remote: Task) -> str:
        return str(remote.get("reason") or "")

    def notes(self, spec: TrainingJobSpec, object_id: str) -> Callable[[Task], str | None]:
        """Said once per wait: Alaya NeW documents no log API, so no log lines can follow."""
        said: list[bool] = []

        def note(task: Task) -> str | None:
            if said or status(task) not in contract.LIVE:
                return None
            said.append(True)
            return "no log lines: Alaya NeW documents no log API (follow the task in its console)"

        return note

    def marked(self, recorded: Collection[str], keep: Callable[[str, Mark], bool], now: float) -> list[MarkedRun]:
        return tasks.marked(self.client, recorded, keep, now)


# `XProvider`, the class path the in-process tests name: the dynamic provider, built on first use.
__getattr__ = registry.provider_aliases(__name__)
