"""`alaya.TrainingJob`: an Alaya NeW distributed training task, as the lifecycles run it.

Create is asynchronous: the POST answers a resultKey, the subscription result later yields the real
task ID (`resolve`), and only then is the ID recorded; the create sequence itself is
lifecycle/create.py's. Nothing changes in place (the API has no update call): a change of a field that
shapes the training replaces the task (a new run), `description` is only recorded, and fields marked
`local` change only the provider's behaviour. The declaration is `job_spec.py`; the task's wire shape
and the primitives that only read or call the platform are `tasks.py`; what every training job does
alike (the catalogue checks and derived outputs of a preview, the states, the forwards to `tasks.py`)
is `training_jobs.py`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..config import Settings
from ..lifecycle.protocol import Outs, Sent
from ..ownership import Mark
from ..platform_calls import Failures, Props
from ..training_jobs import JobCalls
from . import subscription, tasks
from .catalog import catalog_failures, job_costs, products
from .job_spec import TrainingJobOutputs, TrainingJobSpec
from .tasks import Task, outputs, status, unmarked
from .wire import contract
from .wire.client import AlayaClient

__all__ = ["TrainingJobCalls", "TrainingJobOutputs", "TrainingJobSpec"]

CREDENTIALS = ("mltrain:alayaApiKey",)


class TrainingJobCalls(JobCalls[TrainingJobSpec, TrainingJobOutputs, Task, AlayaClient]):
    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "task"
    described: ClassVar[str] = "training task"
    platform: ClassVar[str] = tasks.PLATFORM
    credential_keys: ClassVar[tuple[str, ...]] = CREDENTIALS
    spec_type = TrainingJobSpec
    output_type = TrainingJobOutputs
    node_type, nodes, costs = "product_code", "worker_count", job_costs
    pending_states: ClassVar[frozenset[str]] = contract.BEFORE_RUNNING
    live_states: ClassVar[frozenset[str]] = contract.LIVE - {contract.PAUSED}
    occupied_states: ClassVar[frozenset[str] | None] = contract.LIVE  # a paused task too
    reached, never = contract.REACHED, contract.NEVER
    api = tasks
    keeps_records: ClassVar[bool] = True

    @property
    def client(self) -> AlayaClient:
        return self.context.client("alaya", AlayaClient)

    @classmethod
    def configured(cls, settings: Settings) -> bool:
        return bool(settings.alaya_api_key)

    # ----- check time ----------------------------------------------------------------------------
    def node_types(self) -> list[dict[str, Any]]:
        return products(self.client)

    def catalogue_failures(self, spec: TrainingJobSpec) -> Failures:
        return catalog_failures(self.client, spec.product_code, spec.storage_mounts, say=self.context.say)

    # ----- the task ------------------------------------------------------------------------------
    def read(self, object_id: str, spec: TrainingJobSpec) -> tuple[Props, Props | None] | None:
        detail = self.client.task(object_id)
        if status(detail) == contract.DELETING:
            return None
        return outputs(detail), unmarked(detail)

    # ----- its create ----------------------------------------------------------------------------
    def submit(self, spec: TrainingJobSpec, owner: Mark | None) -> Sent:
        body: dict[str, Any] = spec.wire()
        body.pop("checkpoint", None)
        if spec.checkpoint is not None:  # Alaya NeW has no checkpoint field: the script is told (checkpoints.py)
            body["env"] = {**body.get("env", {}), **spec.checkpoint.env(self.context.resume)}
        if owner is not None:
            body["env"] = {**body.get("env", {}), contract.OWNER_ENV: owner.text()}
            if self.context.run_reason:
                body["env"][contract.RUN_REASON_ENV] = self.context.run_reason
        result_key = str(self.client.create_task(body))
        return Sent(pending=result_key, outputs={"result_key": result_key})

    def resolve(self, spec: TrainingJobSpec, owner: Mark | None, pending: str) -> str:
        return subscription.resolve(self.client, self, self.kind, spec, owner, pending)

    # ----- the run -------------------------------------------------------------------------------
    def recorded(self, spec: TrainingJobSpec, remote: Task) -> Outs:
        return outputs(remote)

    def unread(self, object_id: str) -> Outs:
        return {"training_task_id": object_id, "status": "UNKNOWN"}

