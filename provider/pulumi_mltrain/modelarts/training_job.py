"""`modelarts.TrainingJob`: a Huawei Cloud ModelArts v2 training job, as the lifecycles run it.

The POST answers with the job; the owner mark goes to the job's tags right after (`mark`), because
Huawei documents fixed annotation keys only and the job detail returns no annotations. Names are unique,
so a repeated POST of a job that did get created is refused (ModelArts.2751) rather than duplicated.
Only `description` and `tags` change in place; every other remote field replaces the job (deleted
first: ModelArts refuses two jobs of one name). The declaration is `job_spec.py`; the primitives that
only read or call the platform are `jobs.py`, its tags `tags.py`; what every training job does alike is
`training_jobs.py`. `wait_for="completed"` holds a provider thread for the whole training, bounded by
the create deadline (`customTimeouts.create`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..checkpoints import RESUMED_FROM
from ..errors import ApiError
from ..lifecycle.protocol import Outs, Sent
from ..ownership import Mark
from ..platform_calls import Failures, Props
from ..training_jobs import JobCalls
from ..waiter import Backoff
from . import catalog, jobs, tags
from .catalog import catalog_failures, flavors, job_costs
from .job_spec import TrainingJobOutputs, TrainingJobSpec
from .jobs import Job
from .wire import contract
from .wire.client import ModelArtsClient

__all__ = ["TrainingJobCalls", "TrainingJobOutputs", "TrainingJobSpec"]


class TrainingJobCalls(JobCalls[TrainingJobSpec, TrainingJobOutputs, Job, ModelArtsClient]):
    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "training job"
    platform: ClassVar[str] = tags.PLATFORM
    credential_keys: ClassVar[tuple[str, ...]] = tags.CREDENTIALS
    spec_type = TrainingJobSpec
    output_type = TrainingJobOutputs
    poll: ClassVar[Backoff] = Backoff(first=0.5, maximum=10.0)
    node_type, nodes, costs = "flavor_id", "node_count", job_costs
    pending_states: ClassVar[frozenset[str]] = contract.BEFORE_RUNNING
    live_states: ClassVar[frozenset[str]] = contract.TERMINABLE
    reached, never = contract.REACHED, contract.FAILURES
    api = jobs
    configured = staticmethod(catalog.configured)
    unique_names: ClassVar[bool] = True  # ModelArts.2751 refuses a name any job holds, ended ones too
    keeps_records: ClassVar[bool] = True

    with_defaults = tags.with_default_tags
    drift = staticmethod(tags.own_tags_drift)

    @property
    def client(self) -> ModelArtsClient:
        return tags.client(self)

    # ----- check time ----------------------------------------------------------------------------
    def node_types(self) -> list[dict[str, Any]]:
        return flavors(self.client)  # a refused IAM login or token fails the preview here

    def catalogue_failures(self, spec: TrainingJobSpec) -> Failures:
        return catalog_failures(self.client, flavor_id=spec.flavor_id, node_count=spec.node_count,
                                engine=(spec.engine_id, spec.engine_name, spec.engine_version),
                                algorithm_id=spec.algorithm_id, say=self.context.say)

    # ----- the job -------------------------------------------------------------------------------
    def read(self, object_id: str, spec: TrainingJobSpec) -> tuple[Props, Props | None] | None:
        job = self.client.job(object_id)
        remote = jobs.without_checkpoint({**job, "tags": self.client.job_tags(object_id)}, spec)
        return self.recorded(spec, job, metrics=True), remote

    def update(self, object_id: str, old: TrainingJobSpec, new: TrainingJobSpec, changed: list[str],
               owner: Mark | None) -> Props:
        if "description" in changed:
            self.client.update_job_description(object_id, new.description or "")
        if "tags" in changed:
            gone = [{"key": k} for k in old.tags or {} if k not in (new.tags or {})]
            if gone:  # the owner mark is never removed here
                self.client.untag_job(object_id, gone)
            if new.tags:
                self.client.tag_job(object_id, [{"key": k, "value": v} for k, v in new.tags.items()])
        return self.recorded(new, self.client.job(object_id), metrics=True)

    # ----- its create ----------------------------------------------------------------------------
    def submit(self, spec: TrainingJobSpec, owner: Mark | None) -> Sent:
        body = jobs.with_checkpoint(spec.wire(), spec, prefetch=self.context.resume.resuming)
        body.pop("tags", None)  # the job tags API carries them (`mark`)
        return Sent(object_id=str(self.client.create_job(body)["metadata"]["id"]))

    def duplicate(self, err: ApiError) -> bool:
        return err.code == contract.DUPLICATE_JOB_NAME

    def mark(self, object_id: str, spec: TrainingJobSpec, owner: Mark | None) -> None:
        """The owner mark, the run it resumes from (for the run history) and the user's tags: one call."""
        written = tags.owner_tags(owner) if owner is not None else []
        previous = self.context.resume.outputs().get(RESUMED_FROM)
        if owner is not None and previous:
            written.append({"key": contract.RESUMED_FROM_TAG, "value": previous})
        written += [{"key": k, "value": v} for k, v in (spec.tags or {}).items()]
        if written:
            self.client.tag_job(object_id, written)

    # ----- the run -------------------------------------------------------------------------------
    def recorded(self, spec: TrainingJobSpec, remote: Job, metrics: bool = False) -> Outs:
        # A job that has only just been accepted or started has no metrics yet (one sample a minute): a
        # create's read costs a call and says nothing unless it waited for the end; refresh reads them.
        return jobs.outputs(self.client, remote, metrics=metrics or spec.wait_for == "completed",
                            fine_tune=bool(spec.train_type), say=self.context.say)

    def gate(self, spec: TrainingJobSpec, object_id: str, remote: Job, recorded: Outs) -> tuple[Outs, str | None]:
        return jobs.gate(self.client, spec, object_id, remote, recorded)

    # ----- kept run records (lifecycle/records.py) ---------------------------------------------------
    def keep(self, object_id: str, owner: Mark, reason: str | None) -> None:
        jobs.keep(self.client, object_id, reason)

    def replaced(self, object_id: str, by: str) -> None:
        self.client.tag_job(object_id, [{"key": contract.RECORD_REPLACED_BY, "value": by}])
