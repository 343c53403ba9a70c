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

from ..errors import MltrainError
from ..lifecycle import takeover
from ..lifecycle.protocol import Kept, MarkedRun, Named, Outs, Sent, Stop
from ..ownership import Mark
from ..platform_calls import Failures, PlatformCalls, Props
from . import contract, subscription, tasks
from .catalog import catalog_failures, job_costs, products
from .client import AlayaClient
from .job_spec import COST_OUTPUTS, TrainingJobOutputs, TrainingJobSpec
from .tasks import Task, outputs, status, unmarked

__all__ = ["TrainingJobCalls", "TrainingJobOutputs", "TrainingJobSpec"]

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
    keeps_records: ClassVar[bool] = True

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
        return catalog_failures(self.client, spec.product_code, spec.storage_mounts, say=self.context.say)

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

    # ----- the task ------------------------------------------------------------------------------
    def get(self, object_id: str) -> Task:
        return self.client.task(object_id)

    def state_of(self, remote: Task) -> str:
        return status(remote)

    def stop(self, object_id: str) -> Stop:
        return tasks.stop(self.client, object_id)

    def delete(self, object_id: str) -> None:
        tasks.delete(self.client, object_id)

    def live(self, state: str) -> bool:
        return state in contract.LIVE - {contract.PAUSED}

    def occupied(self, state: str) -> bool:
        return state in contract.LIVE  # a paused task too

    def settled(self, state: str) -> bool:
        return state in tasks.DELETABLE

    def listing(self, name: str) -> list[tuple[str, str]]:
        return [(str(row.get("id")), status(row)) for row in self.client.find_tasks(name)]

    def named(self, name: str) -> list[Named]:
        return tasks.named(self.client, name)

    def read(self, object_id: str, spec: TrainingJobSpec) -> tuple[Props, Props | None] | None:
        detail = self.client.task(object_id)
        if status(detail) == contract.DELETING:
            return None
        return outputs(detail), unmarked(detail)

    # ----- its create ----------------------------------------------------------------------------
    def submit(self, spec: TrainingJobSpec, owner: Mark | None) -> Sent:
        body: dict[str, Any] = spec.wire()
        if owner is not None:
            body["env"] = {**body.get("env", {}), contract.OWNER_ENV: owner.text()}
            if self.context.run_reason:
                body["env"][contract.RUN_REASON_ENV] = self.context.run_reason
        result_key = str(self.client.create_task(body))
        return Sent(pending=result_key, outputs={"result_key": result_key})

    def resolve(self, spec: TrainingJobSpec, owner: Mark | None, pending: str) -> str:
        return subscription.resolve(self.client, self, self.kind, spec, owner, pending)

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
        return tasks.no_log_note()

    def marked(self, recorded: Collection[str], keep: Callable[[str, Mark], bool], now: float, *,
               full: bool = False) -> list[MarkedRun]:
        return tasks.marked(self.client, recorded, keep, now, full=full)

    # ----- kept run records (lifecycle/records.py): an ended task with the mark is the record ----------
    def owner_of(self, object_id: str) -> Mark | None:
        return tasks.mark(self.client.task(object_id))

    def records(self, owner: Mark, name: str) -> list[Kept]:
        return tasks.records(self.client, owner, name)
