"""`modelarts.TrainingJob`: a Huawei Cloud ModelArts v2 training job.

Create is idempotent: the job's name is deterministic (project/stack/resource) and unique in the
project; a job of that name that carries this resource's owner mark but that no state records (the
one a replacement replaces, or one a killed run left) is deleted first (lifecycle/takeover.py), and a
create whose answer was lost is looked up by name before anything is sent again. Then it waits for the
chosen `wait_for` target. A run that fails first is held (lifecycle/record.py: its job ended, kept as
the record or deleted) and the error says why; a wait that runs out of time, or that the engine
cancels, records the job as unfinished and the next `pulumi up` goes on waiting for it.

Only `description` and `tags` change in place; every other remote field replaces the job (deleted
first: the name stays the same, and ModelArts refuses two jobs of one name). The declaration is
`job_spec.py`; the platform's primitives are `jobs.py`; the lifecycles are `lifecycle/`.

`wait_for="completed"` holds a provider thread for the whole training and is bounded by the create
deadline (`customTimeouts.create`, default 20 minutes). For long trainings keep the default
("accepted") and watch `phase` with `pulumi refresh`.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from .. import registry
from .. import spec as specs
from ..errors import MltrainError, RemoteFailure
from ..lifecycle import removal, resend, takeover
from ..lifecycle.protocol import Outs
from ..lifecycle.record import Recorder
from ..lifecycle.rollback import roll_back
from ..ownership import Mark, claim
from ..platform_calls import Failures
from ..progress import Label, notice
from ..runs import refuse_stopped_run
from . import contract
from .base import ModelArtsCalls, mark_in, owner_tags
from .catalog import catalog_failures, configured, flavors, job_costs
from .job_spec import COST_OUTPUTS, TrainingJobOutputs, TrainingJobSpec
from .jobs import Job, Jobs, name_of, phase

__all__ = ["TrainingJobCalls", "TrainingJobOutputs", "TrainingJobSpec"]


class TrainingJobCalls(ModelArtsCalls[TrainingJobSpec, TrainingJobOutputs]):
    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "training job"
    runs: ClassVar[bool] = True
    derived_kept: ClassVar[tuple[str, ...]] = COST_OUTPUTS
    spec_type = TrainingJobSpec
    output_type = TrainingJobOutputs
    recorded_once: ClassVar[tuple[str, ...]] = ("final_metrics", "success_criteria_met")

    def objects(self) -> Jobs:
        return Jobs(self.api())

    def check_remote(self, spec: Any) -> Failures:
        api, failures = self.catalogues()
        return failures if api is None else catalog_failures(api, flavor_id=spec.flavor_id, node_count=spec.node_count,
                                engine=(spec.engine_id, spec.engine_name, spec.engine_version),
                                algorithm_id=spec.algorithm_id)

    def derived(self, spec: Any) -> dict[str, Any]:
        """GPUs and billing code from the (cached) flavor list, so previews and policies know them;
        nothing without credentials or when the list cannot be read."""
        if not configured(self.settings) or not getattr(spec, "flavor_id", None):
            return {}
        try:
            return job_costs(flavors(self.api()), spec.flavor_id, int(spec.node_count or 1))
        except MltrainError as err:
            print(f"[mltrain] GPU outputs skipped: {err}", file=sys.stderr)
            return {}

    def last_state(self, olds: dict[str, Any]) -> str | None:
        """The job's phase now, looked up by its name, when it is live (Creating, Pending, Running)."""
        name = olds.get("name")
        if not isinstance(name, str) or not name:
            return None
        for job in self.api().find_jobs(name):
            if phase(job) in contract.TERMINABLE:
                return f"{phase(job)} ({(job.get('metadata') or {}).get('id')})"
        return None

    def _record(self, spec: TrainingJobSpec, job_id: str, owner: Mark | None, *, ours: bool) -> Outs:
        recorder = Recorder(self.kind, self.timeout(spec, "delete"), with_reason=True)
        return recorder.record(self.objects(), spec, job_id, owner, ours=ours)

    # ----- create --------------------------------------------------------------------------------
    def create(self, spec: Any, owner: Mark | None) -> tuple[str, dict[str, Any]]:
        """The POST, once no job of this name is left (`takeover.clear_own`). No owner annotation is sent:
        Huawei documents fixed annotation keys only, and the job detail does not return annotations;
        the mark goes to the job's tags right after (`_mark_job`). Names are unique, so a repeated POST
        of a job that did get created is refused (ModelArts.2751) rather than duplicated."""
        refuse_stopped_run(self.noun, spec)
        takeover.clear_own(self.objects(), spec.name, owner, Label.of(self.kind, spec, owner))
        body = spec.wire()
        body.pop("tags", None)  # the job tags API carries them (_mark_job)
        # No job of this name was left before the POST, so one that appears after an unanswered POST is
        # the one just sent, marked or not (its mark is written after).
        submitted = resend.submit(
            lambda: self.api().create_job(body), lambda sent: self._made(spec, owner, just_sent=sent),
            noun="job", name=spec.name, grace=self.settings.ambiguity_grace, owner=owner,
            duplicate=lambda err: err.code == contract.DUPLICATE_JOB_NAME)
        job = submitted.found if submitted.found is not None else submitted.sent
        assert job is not None
        job_id = str(job["metadata"]["id"])
        self._mark_job(spec, job_id, _tags_to_write(spec, owner, job.get("tags")))
        return job_id, self._record(spec, job_id, owner, ours=True)

    def _mark_job(self, spec: Any, job_id: str, tags: list[dict[str, str]]) -> None:
        """Write this resource's owner mark (where it is missing) and the user's tags: one job tags call.

        The mark lives in the job's tags because the job detail does not return annotations (api.md
        B.6 #8), and the tags API is a call of its own after the create. A job that cannot be marked
        is deleted: left unmarked under a name the user chose, no later run could tell it is ours."""
        if not tags:
            return
        try:
            self.api().tag_job(job_id, tags)
        except MltrainError as err:
            undone = roll_back(self.objects(), job_id, self.timeout(spec, "delete"))
            raise RemoteFailure(f"training job {spec.name!r} ({job_id}) was created, but writing its tags (the "
                                f"owner mark among them) failed: {err}. {undone}") from None

    def _made(self, spec: Any, owner: Mark | None, *, just_sent: bool) -> Job | None:
        """The job of this name after an unanswered POST (with its tags), once it is shown to be this
        create's: `just_sent`, it was sent by this create, so no mark is needed; else its mark decides
        (`ownership.claim`: a job of the name that is not ours stops the create)."""
        api = self.api()
        matches = api.find_jobs(spec.name)
        if not matches:
            return None
        job_id = str(matches[0]["metadata"]["id"])
        job = {**api.job(job_id), "tags": api.job_tags(job_id)}
        found = mark_in(job["tags"]) or mark_in((job.get("metadata") or {}).get("annotations"))
        if not (just_sent and found is None):
            claim("training job", job_id, spec.name, found, owner)
        return job

    def _reconcile(self, job_id: str, job: Job, spec: Any, *, how: str) -> None:
        """Accept a platform job for `spec`: a differing description is updated, anything else refused.
        `job` comes with its tags (`tags`)."""
        diffs = specs.differing(spec, specs.from_wire(type(spec), job, spec))
        fixable = diffs.pop("description", None)
        diffs.pop("tags", None)  # set by _tag after adoption
        if diffs:
            head = (f"cannot adopt training job {job_id}: it differs from the declared inputs" if how == "adopt"
                    else f"a training job named {name_of(job)!r} already exists ({job_id}) with other settings")
            raise MltrainError(head + ": " + "; ".join(diffs.values())
                               + ". Delete it, choose another name, or change the inputs to match")
        if fixable:
            self.api().update_job_description(job_id, spec.description or "")

    # ----- adopt / take over / read / update / delete ---------------------------------------------
    def take_over(self, object_id: str, spec: Any, owner: Mark | None) -> dict[str, Any]:
        tags = self.api().job_tags(object_id)
        self._reconcile(object_id, {**self.api().job(object_id), "tags": tags}, spec, how="adopt")
        self._mark_job(spec, object_id, _tags_to_write(spec, owner, tags))
        return self._record(spec, object_id, owner, ours=True)

    def adopt(self, object_id: str, spec: Any, owner: Mark | None) -> dict[str, Any]:
        tags = self.api().job_tags(object_id)
        self._reconcile(object_id, {**self.api().job(object_id), "tags": tags}, spec, how="adopt")
        # Marked only once it has reached its target: a job that fails first stays someone else's.
        judged = self._record(spec, object_id, owner, ours=False)
        # Taken over on purpose: the job's tags carry this resource's mark from now on.
        tags_now = _tags_to_write(spec, owner, tags)
        if tags_now:
            self.api().tag_job(object_id, tags_now)
        return {**judged, **self.objects().outputs(self.api().job(object_id))}

    def read(self, object_id: str, spec: Any) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        job = self.api().job(object_id)
        remote = {**job, "tags": self.api().job_tags(object_id)}
        return self.objects().outputs(job), remote

    def update(self, object_id: str, old: Any, new: Any, changed: list[str], owner: Mark | None) -> dict[str, Any]:
        if "description" in changed:
            self.api().update_job_description(object_id, new.description or "")
        if "tags" in changed:
            self._tag(object_id, new.tags, getattr(old, "tags", None))
        if "stopped" in changed and new.stopped:
            removal.stop_in_place(self.objects(), object_id,
                                  Label.of(self.kind, new, owner, object_id=object_id, doing="stopping"))
        elif "stopped" in changed:
            notice(f"{self.kind} {new.name!r}: stopped=false recorded; job {object_id} is not started "
                   "again (to run the job again, change its replacement_trigger)", owner)
        return self.objects().outputs(self.api().job(object_id))

    def _tag(self, job_id: str, tags: dict[str, str] | None, previous: dict[str, str] | None) -> None:
        """User tags through the job tags API, beside the owner mark (which is never removed here)."""
        gone = [{"key": k} for k in previous or {} if k not in (tags or {})]
        if gone:
            self.api().untag_job(job_id, gone)
        if tags:
            self.api().tag_job(job_id, [{"key": k, "value": v} for k, v in tags.items()])

    def delete(self, object_id: str, spec: Any) -> bool:
        return removal.remove(self.objects(), object_id, Label.of(self.kind, spec, object_id=object_id))


def _tags_to_write(spec: Any, owner: Mark | None, current: Any) -> list[dict[str, str]]:
    """The user's tags, and the owner mark where the job's `current` tags lack it."""
    mark = owner_tags(owner) if owner is not None and mark_in(current) != owner else []
    return mark + [{"key": k, "value": v} for k, v in (spec.tags or {}).items()]


# `TrainingJobProvider`, the class path states written by 0.1 name: the dynamic provider, built on first use.
__getattr__ = registry.provider_aliases(__name__)
