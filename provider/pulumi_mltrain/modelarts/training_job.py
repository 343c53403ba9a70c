"""`modelarts.TrainingJob`: a Huawei Cloud ModelArts v2 training job.

Create is idempotent: the job's name is deterministic (project/stack/resource) and unique in the
project, so the provider first looks for a job of that name and adopts it when it matches; a
create whose answer was lost is looked up by name before anything is sent again. Then it waits for
the chosen `wait_for` target. A job that fails first is terminated and deleted (nothing is left
behind) and the error says why; a wait that runs out of time leaves the job alone and says how it
is adopted (the next `pulumi up` does it by name; `adopt_id` does it explicitly).

Only `description` changes in place (PUT); every other remote field replaces the job (deleted
first: the name stays the same, and ModelArts refuses two jobs of one name).

`wait_for="completed"` blocks one of the dynamic provider's four RPC threads for the whole training
and is bounded by the create deadline (`customTimeouts.create`, default 20 minutes); the Pulumi
engine also gives up on a queued RPC after 30 minutes. For long trainings keep the default
("accepted") and watch `phase` with `pulumi refresh`.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from .. import pending, runs, transport
from .. import spec as specs
from ..answers import from_epoch_ms
from ..errors import AmbiguousOutcome, ApiError, MltrainError, NotFound, RemoteFailure
from ..handler import CREATE_ATTEMPTS, ManagedSpec
from ..ownership import Mark, claim
from ..progress import Label, notice
from ..resource import MltrainProvider
from ..runs import RunReason
from ..transport import remaining
from ..waiter import Backoff, look_for, wait_for
from . import contract
from .base import ModelArtsHandler, mark_in, owner_tags
from .catalog import catalog_failures, configured, flavors, job_costs, metrics_summary
from .client import ModelArtsClient
from .lookups import failure_tail
from .models import (
    NAME_RE,
    AnnotationFlag,
    DataInput,
    JobParameter,
    Notification,
    ObjectId,
    ObsChannel,
    ObsPath,
    RequiredAffinity,
    RetryCount,
    SuccessCriterion,
    TaskExit,
    UserTags,
    Volume,
    code_problems,
    duplicate_names,
    engine_problems,
    key_pair_problems,
    tag_problems,
    volume_problems,
)

WaitFor = Literal["accepted", "running", "completed"]
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_ENVIRONMENTS = contract.MAX_ENVIRONMENTS
# Log lines in the progress of a wait: at most LOG_LINES new lines (each cut to LOG_WIDTH characters)
# of the job's first task, looked up at most every LOG_EVERY seconds per wait.
LOG_LINES, LOG_WIDTH, LOG_EVERY = 3, 200, 10.0
# How long a success_criteria check looks for metrics that are not ready yet (ModelArts.2777) after the job
# Completed, at most (never past the create deadline).
METRICS_GRACE = 60.0
_INLINE = ("code_dir", "boot_file", "command", "engine_id", "engine_name", "engine_version", "image_url")


class TrainingJobSpec(ManagedSpec):
    """Inputs of a ModelArts training job: the create body of POST /v2/{project_id}/training-jobs."""

    wire_constants: ClassVar[dict[str, Any]] = {"kind": contract.JOB_KIND}

    name: str = specs.spec_field(
        description="Job name (unique in the project); when unset, the resource name plus a suffix unique to "
        "this stack and resource, chosen at the first create and kept through renames (aliases).",
        wire="metadata.name", pattern=NAME_RE.pattern)
    description: str | None = specs.spec_field(
        None, description="Job description; the only field that changes in place.",
        wire="metadata.description", on_change="update",
        max_length=contract.MAX_DESCRIPTION)
    workspace_id: str | None = specs.spec_field(
        None, description="Workspace ID; ModelArts uses the default workspace \"0\" when unset.",
        wire="metadata.workspace_id")
    algorithm_id: ObjectId | None = specs.spec_field(
        None, description="Algorithm to run (e.g. an Algorithm's algorithm_id); or give inline code instead.",
        wire="algorithm.id")
    code_dir: ObsPath | None = specs.spec_field(
        None, description="Inline code: OBS directory of the code (obs://bucket/dir/ or /bucket/dir/).",
        wire="algorithm.code_dir")
    boot_file: ObsPath | None = specs.spec_field(
        None, description="Inline code: OBS path of the boot file, inside code_dir.", wire="algorithm.boot_file")
    command: str | None = specs.spec_field(
        None, description="Inline code: start command (required with a custom image_url and no code_dir).",
        wire="algorithm.command")
    engine_id: str | None = specs.spec_field(
        None, description="Inline code: preset engine by ID (see get_engines()).",
        wire="algorithm.engine.engine_id")
    engine_name: str | None = specs.spec_field(
        None, description="Inline code: preset engine name, e.g. PyTorch (with engine_version).",
        wire="algorithm.engine.engine_name")
    engine_version: str | None = specs.spec_field(
        None, description="Inline code: preset engine version, e.g. "
        "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64.",
        wire="algorithm.engine.engine_version")
    image_url: str | None = specs.spec_field(
        None, description="Inline code: custom image (SWR path) instead of a preset engine.",
        wire="algorithm.engine.image_url")
    parameters: list[JobParameter] = specs.spec_field(
        default_factory=list, description="Hyperparameters [{name, value}]; they override the algorithm's defaults.",
        wire="algorithm.parameters", keyed_by="name")
    inputs: list[DataInput] = specs.spec_field(
        default_factory=list, description="Input data channels [{name, obs_url | dataset {id, version_id}, "
        "local_dir?}]. ModelArts' job detail does not return them (Huawei's Terraform provider documents this): "
        "drift is read only from an answer that carries them; otherwise the state keeps what was sent.",
        wire="algorithm.inputs", returned=False)
    outputs: list[ObsChannel] = specs.spec_field(
        default_factory=list, description="Output data channels [{name, obs_url, local_dir?}].",
        wire="algorithm.outputs")
    environments: dict[str, str] | None = specs.spec_field(
        None, description="Environment variables (at most 100); wrap values in pulumi.Output.secret() to keep "
        "them encrypted in the state.", wire="algorithm.environments", secret=True)
    flavor_id: str = specs.spec_field(
        description="Resource flavor, e.g. modelarts.vm.cpu.8u (see get_flavors()).",
        wire="spec.resource.flavor_id", min_length=1)
    node_count: int = specs.spec_field(
        1, description="Number of nodes (at most the flavor's max_num).", wire="spec.resource.node_count", ge=1)
    pool_id: str | None = specs.spec_field(
        None, description="Dedicated resource pool ID; the public pool when unset.", wire="spec.resource.pool_id")
    log_export_path: ObsPath | None = specs.spec_field(
        None, description="OBS directory the job's logs are exported to.", wire="spec.log_export_path.obs_url")
    auto_stop_hours: int | None = specs.spec_field(
        None, description="Stop the job after this many hours.", wire="spec.auto_stop.duration",
        wire_with={"time_unit": "HOURS"}, ge=1, le=24 * 30)
    volumes: list[Volume] | None = specs.spec_field(
        None, description="Storage mounts [{nfs: {nfs_server_path, local_path, read_only?}} | {obs: {obs_url, "
        "local_path, read_only?}}]: NFS/SFS Turbo shares or OBS directories, read-only unless read_only is "
        "false; local paths absolute and distinct.", wire="spec.volumes")
    retry_count: RetryCount | None = specs.spec_field(
        None, description="Automatic restarts after a fault (fault tolerance), 1-128; none when unset. Sent as a "
        "job annotation, which ModelArts' job detail does not return (Huawei's Terraform provider documents "
        "this): the state keeps the value sent, and no drift is read for it.",
        wire=f"metadata.annotations.{contract.RETRY_ANNOTATION}", ge=1, le=128, returned=False)
    priority: int | None = specs.spec_field(
        None, description="Scheduling priority in a dedicated pool: 1 (low) to 3 (high).",
        wire="spec.schedule_policy.priority", ge=1, le=3)
    preemptible: bool | None = specs.spec_field(
        None, description="Whether higher-priority jobs may preempt this one (dedicated pool only; set retry_count "
        "or unconditional_retry so that a preempted job starts again).", wire="spec.schedule_policy.preemptible")
    required_affinity: RequiredAffinity | None = specs.spec_field(
        None, description="Hard placement of the tasks in a dedicated pool {affinity_type: cabinet | hyperinstance "
        "| networkTopology, affinity_group_size?, job_level?, affinity_group_level?}.",
        wire="spec.schedule_policy.required_affinity")
    notification: Notification | None = specs.spec_field(
        None, description="SMN topic told of the job's events {topic_urn, events: [JobStarted | JobCompleted | "
        "JobFailed | JobTerminated | JobRestarted | JobHanged | JobPreempted]}.", wire="spec.notification")
    ssh_key_pair_names: list[str] | None = specs.spec_field(
        None, description="ECS key pair names whose keys may SSH into the running job's tasks (to debug it).",
        wire="endpoints.ssh.key_pair_names")
    unconditional_retry: AnnotationFlag | None = specs.spec_field(
        None, description="Restart the job after any fault, not only after the faults ModelArts recognises. Sent "
        "as a job annotation, which the job detail does not return: the state keeps the value sent, and no drift "
        "is read for it.",
        wire=f"metadata.annotations.{contract.UNCONDITIONAL_RETRY_ANNOTATION}", returned=False)
    hang_retry: AnnotationFlag | None = specs.spec_field(
        None, description="Restart the job when ModelArts finds it hanging (no progress). Sent as a job "
        "annotation, which the job detail does not return: the state keeps the value sent, and no drift is read "
        "for it.",
        wire=f"metadata.annotations.{contract.HANG_RETRY_ANNOTATION}", returned=False)
    tags: UserTags | None = specs.spec_field(
        None, description="User tags {key: value} (job tags API; at most 20); changed in place. The default "
        "tags (mltrain:defaultTags) are merged in, this resource's own winning on the same key: the checked "
        "inputs and outputs hold the merged map. The provider's owner mark lives beside them and never shows "
        "here; tags added on the platform under other keys are left alone.", wire="tags", on_change="update")
    replace_running: Literal["allow", "refuse"] = specs.spec_field(
        "allow", description="refuse: a preview that would replace (delete and recreate) this job while it is "
        "Creating, Pending or Running fails, naming the fields that force it; allow (the default) replaces.",
        on_change="local")
    wait_for: WaitFor = specs.spec_field(
        "accepted", description="What create waits for: accepted (past Creating, the default: seconds), running, "
        "or completed (training finished; raise customTimeouts.create to match the training time).",
        on_change="local")
    stopped: bool = specs.spec_field(
        False, description="true stops the job in place (ModelArts' terminate action) and waits until it has "
        "stopped, keeping its ID, record and logs; a job that has ended is left as it is. A stopped job is not "
        "started again: false only records it (to run the job again, change its replacement_trigger). A create "
        "(a first or new run) needs false.", on_change="local")
    on_failure: Literal["delete", "keep"] = specs.spec_field(
        "delete", description="A job that fails or is stopped during the create's wait: delete (the default) "
        "terminates and deletes it; keep leaves it on the platform and in the state with its status and reason, "
        "so its logs stay readable (get_training_job_logs), and `pulumi up` still fails; the next `pulumi up` "
        "replaces it.", on_change="local")
    max_pending_minutes: float | None = specs.spec_field(
        None, description=pending.description("Creating or Pending"), on_change="local", gt=0,
        allow_inf_nan=False)
    success_criteria: list[SuccessCriterion] | None = specs.spec_field(
        None, description="Metric gates, with wait_for=\"completed\" only: [{metric, op, value}], e.g. "
        "[{metric: gpuUtil, op: \">=\", value: 50}]. Once the job has Completed, each is compared with the "
        "final value of its metric: the last sample with data (not -1) of the job's first task (status.tasks[0], "
        "as metrics_summary), read from ModelArts' metrics API; other tasks are not read. A metric without "
        "data misses. A miss ends the create like a failed run (on_failure decides: delete, or keep with the "
        "reason), naming the metric, the value seen and the threshold; final_metrics and "
        "success_criteria_met record what was read. Only the six metrics the API reports are supported "
        "(custom metrics a job may declare are not read). Changing it is recorded only: a finished run is "
        "not judged again.", on_change="local")

    def as_declared(self) -> TrainingJobSpec:
        """ModelArts reports the code and engine of a job's algorithm in the job (the algorithm brings
        them), and a preset engine by ID, name and version (name and version are kept)."""
        if self.algorithm_id:
            return self.model_copy(update=dict.fromkeys(_INLINE))
        if self.engine_id and self.engine_name and self.engine_version:
            return self.model_copy(update={"engine_id": None})
        return self

    def cross_check(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self.success_criteria and self.wait_for != "completed":
            out.append(("success_criteria", f"is checked against the final metrics of a completed job: "
                                            f"wait_for={self.wait_for!r} does not wait for the job to complete; "
                                            "set wait_for to 'completed', or unset success_criteria"))
        if self.max_pending_minutes is not None and self.wait_for not in ("running", "completed"):
            out.append(("max_pending_minutes", f"applies only while create waits for the job to run: "
                                               f"wait_for={self.wait_for!r} does not wait for it; set wait_for "
                                               "to 'running' or 'completed', or unset max_pending_minutes"))
        inline = [f for f in _INLINE if getattr(self, f)]
        if self.algorithm_id:
            out += [(f, "cannot be combined with algorithm_id: the algorithm brings its own code and engine")
                    for f in inline]
        elif not inline:
            out.append(("algorithm_id", "is required, or inline code: code_dir + boot_file with an engine, "
                                        "or image_url with a command"))
        else:
            out += engine_problems(self.engine_id, self.engine_name, self.engine_version, self.image_url)
            out += code_problems(self.code_dir, self.boot_file)
            if self.image_url and not self.code_dir and not self.command:
                out.append(("command", "is required with a custom image_url when there is no code_dir"))
            if (self.engine_id or self.engine_name) and not self.code_dir:
                out.append(("code_dir", "is required with a preset engine (with boot_file)"))
        out += duplicate_names({"inputs": self.inputs, "outputs": self.outputs})
        out += duplicate_names({"parameters": self.parameters})
        out += volume_problems(self.volumes) + tag_problems(self.tags)
        out += key_pair_problems(self.ssh_key_pair_names)
        if not self.pool_id:
            # ModelArts schedules by priority, preemption and affinity only inside a dedicated pool.
            out += [(f, "needs a dedicated pool: set pool_id") for f in ("preemptible", "required_affinity")
                    if getattr(self, f)]
        envs = self.environments or {}
        if len(envs) > MAX_ENVIRONMENTS:
            out.append(("environments", f"has {len(envs)} variables; ModelArts allows at most {MAX_ENVIRONMENTS}"))
        out += [(f"environments.{k}", "is not a valid environment variable name") for k in envs
                if not _ENV_NAME.match(k)]
        return out


class TrainingJobOutputs(specs.Output):
    job_id: str | None = specs.output_field(description="The training job ID ModelArts assigned (the resource ID).",
                                            is_id=True)
    phase: str | None = specs.output_field(
        description="Phase at the last create/update/refresh: Creating, Pending, Running, Completed, Failed, "
        "Abnormal, Terminating or Terminated.", always=True)
    secondary_phase: str | None = specs.output_field(description="ModelArts' detailed phase (informational).")
    duration_ms: int | None = specs.output_field(description="Running time in milliseconds (status.duration).")
    start_time: str | None = specs.output_field(
        description="When the job started running, RFC 3339 in UTC (from status.start_time; unset before).")
    end_time: str | None = specs.output_field(
        description="When a finished job stopped running, RFC 3339 in UTC: derived as start_time + duration_ms "
        "(ModelArts reports no end time); unset while the job has not ended.")
    task_statuses: list[TaskExit] | None = specs.output_field(
        description="Each ended task's exit code and message [{task, exit_code, message}] (status.task_statuses).")
    tasks: list[str] | None = specs.output_field(description="Task names, e.g. [worker-0].")
    metrics_summary: dict[str, float] | None = specs.output_field(
        description="Latest sample with data of each metric of the first task, e.g. {cpuUsage: 35.1}.")
    final_metrics: dict[str, float] | None = specs.output_field(
        description="With success_criteria: the final values the gate read once the job Completed (the last "
        "sample with data of each metric of the first task), e.g. {gpuUtil: 87.5}; kept through refreshes.")
    success_criteria_met: bool | None = specs.output_field(
        description="With success_criteria: whether every criterion held when the job Completed (false on a "
        "job kept by on_failure=\"keep\"); unset without success_criteria.")
    create_time: int | None = specs.output_field(description="Creation time, epoch milliseconds.")
    reason: str | None = specs.output_field(description="Why the job failed or stopped, when it did.")
    gpus_per_node: int | None = specs.output_field(
        description="GPUs per node, from the flavor's flavor_info.gpu (0 for CPU flavors); known at preview "
        "(unset without credentials).")
    gpu_count: int | None = specs.output_field(
        description="GPUs of the whole job (gpus_per_node x node_count); known at preview.")
    billing_code: str | None = specs.output_field(
        description="The flavor's billing code; known at preview. ModelArts gives no prices (the flavor list has "
        "none), so a ModelArts job has no cost_per_hour: mltrain-plan and the policy new-run-budget count its "
        "GPU-hours and say its price is unknown.")
    run_reason: str | None = specs.output_field(description=runs.DESCRIPTION)


COST_OUTPUTS = ("gpus_per_node", "gpu_count", "billing_code")




class TrainingJobHandler(RunReason, ModelArtsHandler):
    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "training job"
    spec_type: ClassVar[type[ManagedSpec]] = TrainingJobSpec
    output_type: ClassVar[type[specs.Output]] = TrainingJobOutputs
    poll: ClassVar[Backoff] = Backoff(first=0.5, maximum=10.0)
    wait_backoff: ClassVar[Backoff] = poll

    def _catalog_failures(self, api: ModelArtsClient, spec: Any) -> list[tuple[str, str]]:
        return catalog_failures(api, flavor_id=spec.flavor_id, node_count=spec.node_count,
                                engine=(spec.engine_id, spec.engine_name, spec.engine_version),
                                algorithm_id=spec.algorithm_id)

    def _derived(self, spec: Any) -> dict[str, Any]:
        """GPUs and billing code from the (cached) flavor list, so previews and policies know them;
        nothing without credentials or when the list cannot be read."""
        if not configured(self.settings) or not getattr(spec, "flavor_id", None):
            return {}
        try:
            return job_costs(flavors(self.api()), spec.flavor_id, int(spec.node_count or 1))
        except MltrainError as err:
            print(f"[mltrain] GPU outputs skipped: {err}", file=sys.stderr)
            return {}

    def _derived_at_check(self, spec: Any, olds: dict[str, Any] | None) -> dict[str, Any]:
        if olds is not None:
            return {k: olds[k] for k in COST_OUTPUTS if k in olds}
        return self._derived(spec)

    def _last_state(self, olds: dict[str, Any]) -> str | None:
        """The job's phase now, looked up by its name, when it is live (Creating, Pending, Running)."""
        name = olds.get("name")
        if not isinstance(name, str) or not name:
            return None
        for job in self.api().find_jobs(name):
            phase = _phase(job)
            if phase in contract.TERMINABLE:
                return f"{phase} ({(job.get('metadata') or {}).get('id')})"
        return None

    # ----- create --------------------------------------------------------------------------------
    def _create(self, spec: Any, owner: Mark | None, deadline: float) -> tuple[str, dict[str, Any]]:
        self._refuse_stopped_run(spec)
        job = self._existing(spec, owner)
        if job is None:
            job = self._submit(spec, owner, deadline)
        job_id = str(job["metadata"]["id"])
        self._mark_job(spec, job_id, _tags_to_write(spec, owner, job.get("tags")))
        return job_id, self._record_after_wait(spec, job_id, deadline, owner, ours=True)

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
            raise RemoteFailure(f"training job {spec.name!r} ({job_id}) was created, but writing its tags (the "
                                f"owner mark among them) failed: {err}. {self._roll_back(spec, job_id)}") from None

    def _submit(self, spec: Any, owner: Mark | None, deadline: float) -> dict[str, Any]:
        """POST the job. A lost answer is looked up by name first; names are unique, so a repeated
        POST of a job that did get created is refused (ModelArts.2751) rather than duplicated.

        No owner annotation is sent: Huawei documents fixed annotation keys only, and the job detail
        does not return annotations; the mark goes to the job's tags right after (`_mark_job`)."""
        api = self.api()
        body = spec.wire()
        body.pop("tags", None)  # the job tags API carries them (_mark_job)
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                return api.create_job(body)
            except AmbiguousOutcome as err:
                # No job of this name existed before the POST (`_create` looked), so one that appears
                # now is the one just sent, marked or not (its mark is written after the answer).
                found = look_for(lambda: self._existing(spec, owner, just_sent=True),
                                 within=self.settings.ambiguity_grace, deadline=deadline)
                if found is not None:
                    return found
                if attempt == CREATE_ATTEMPTS:
                    raise MltrainError(
                        f"{err}. No job named {spec.name!r} appeared within {self.settings.ambiguity_grace:.0f}s. "
                        "Run `pulumi up` again: the provider looks the job up by name before creating, "
                        "so no duplicate is made"
                    ) from None
                notice(f"job {spec.name!r} not found after an unanswered create; sending it again "
                       "(a duplicate would be refused: job names are unique)", owner)
            except ApiError as err:
                if err.code == contract.DUPLICATE_JOB_NAME:
                    found = self._existing(spec, owner, just_sent=attempt > 1)
                    if found is not None:
                        return found
                raise
        raise AssertionError("unreachable")

    def _existing(self, spec: Any, owner: Mark | None, *, just_sent: bool = False) -> dict[str, Any] | None:
        """This resource's own job from an interrupted run: adopt it; a job of the name that is not ours
        stops the create (see ownership.claim). The job comes with its tags (`tags`).

        The mark is read from the job's tags; a job made by 0.1.x kept it in its annotations, which
        only a detail that returns them shows. `just_sent`: the job was sent by this create, whose
        answer was lost, so no mark is needed."""
        api = self.api()
        matches = api.find_jobs(spec.name)
        if not matches:
            return None
        job_id = str(matches[0]["metadata"]["id"])
        job = {**api.job(job_id), "tags": api.job_tags(job_id)}
        mark = mark_in(job["tags"]) or _legacy_mark(job)
        if not (just_sent and mark is None):
            claim("training job", job_id, spec.name, mark, owner)
        self.refuse_take_over_in_replace(job_id)
        self._reconcile(job_id, job, spec, how="already exists")
        notice(f"job {spec.name!r} already exists as {job_id} ({_phase(job)}): adopting it", owner)
        return job

    def _reconcile(self, job_id: str, job: dict[str, Any], spec: Any, *, how: str) -> None:
        """Accept a platform job for `spec`: a differing description is updated, anything else refused.
        `job` comes with its tags (`tags`), or they are read here."""
        if "tags" not in job:
            job = {**job, "tags": self.api().job_tags(job_id)}
        diffs = specs.differing(spec, specs.from_wire(type(spec), job, spec))
        fixable = diffs.pop("description", None)
        diffs.pop("tags", None)  # set by _tag after adoption
        if diffs:
            head = (f"cannot adopt training job {job_id}: it differs from the declared inputs" if how == "adopt"
                    else f"a training job named {_name(job)!r} already exists ({job_id}) with other settings")
            raise MltrainError(head + ": " + "; ".join(diffs.values())
                               + ". Delete it, choose another name, or change the inputs to match")
        if fixable:
            self.api().update_job_description(job_id, spec.description or "")

    # ----- record after wait (see Handler._record_after_wait) -------------------------------------
    def _goal(self, spec: Any) -> tuple[frozenset[str], frozenset[str]] | None:
        return contract.REACHED[spec.wait_for], contract.FAILURES

    def _fetch(self, object_id: str) -> dict[str, Any]:
        return self.api().job(object_id)

    def _state_of(self, remote: dict[str, Any]) -> str:
        return _phase(remote)

    def _what(self, spec: Any, object_id: str) -> str:
        return f"training job {spec.name!r} ({object_id})"

    def _recorded(self, spec: Any, remote: dict[str, Any]) -> dict[str, Any]:
        # A job that has only just been accepted or started has no metrics yet (one sample a
        # minute): the read costs a call per create and says nothing; refresh reads them.
        return self._outputs(remote, metrics=spec.wait_for == "completed")

    recorded_once: ClassVar[tuple[str, ...]] = ("final_metrics", "success_criteria_met")

    def _gate(self, spec: Any, object_id: str, remote: dict[str, Any], recorded: dict[str, Any],
              deadline: float) -> tuple[dict[str, Any], str | None]:
        """success_criteria against the final metrics of the first task: the latest sample with data of
        each metric (the read `_recorded` made, else one looked for within METRICS_GRACE)."""
        criteria: list[SuccessCriterion] = getattr(spec, "success_criteria", None) or []
        if not criteria:
            return {}, None
        tasks = [str(t) for t in (remote.get("status") or {}).get("tasks") or []]
        seen: dict[str, float] = dict(recorded.get("metrics_summary") or {})
        problem = "every sample is -1"
        if not tasks:
            problem = "the job reports no task"
        elif not seen:
            try:
                samples = look_for(lambda: self.api().metrics(object_id, tasks[0]), within=METRICS_GRACE,
                                   deadline=deadline)
            except MltrainError as err:
                samples, problem = None, f"its metrics could not be read: {err}"
            else:
                if samples is None:
                    problem = f"ModelArts had no metrics ready within {METRICS_GRACE:.0f}s"
            seen = metrics_summary(samples)
        misses = [f"{c.metric} has no data ({problem}); the criterion is {c.words()}" if c.metric not in seen
                  else f"{c.metric} was {seen[c.metric]:g}, the criterion is {c.words()}"
                  for c in criteria if c.metric not in seen or not c.holds(seen[c.metric])]
        outs: dict[str, Any] = {"final_metrics": seen or None, "success_criteria_met": not misses}
        if seen:
            outs["metrics_summary"] = seen
        if not misses:
            return outs, None
        task = f" of task {tasks[0]}" if tasks else ""
        return outs, f"Completed but missed its success_criteria (final metrics{task}): " + "; ".join(misses)

    def _ended(self, spec: Any, object_id: str, remote: dict[str, Any]) -> tuple[str, str]:
        logs = f"; logs were exported to obs:/{spec.log_export_path}" if spec.log_export_path else ""
        tasks = [str(t) for t in (remote.get("status") or {}).get("tasks") or []]
        return (_reason(remote) or "no reason given") + logs, failure_tail(self.api(), object_id, tasks)

    pending_states: ClassVar[frozenset[str]] = contract.BEFORE_RUNNING

    def _created_at(self, remote: dict[str, Any]) -> float | None:
        created = (remote.get("metadata") or {}).get("create_time")
        return created / 1000 if isinstance(created, int) and not isinstance(created, bool) and created > 0 else None

    def _has_started(self, remote: dict[str, Any]) -> bool:
        return bool(from_epoch_ms((remote.get("status") or {}).get("start_time")))

    def _pending_reason(self, remote: dict[str, Any]) -> str:
        return _reason(remote)

    def _notes(self, spec: Any, object_id: str) -> Callable[[dict[str, Any]], str | None]:
        """The newest log lines of the job's first task while it runs: at most LOG_LINES lines not said
        before, looked up at most every LOG_EVERY seconds (one log call), so a long wait shows the
        training's progress, not just its phase. A log that cannot be read is skipped."""
        said: list[str] = []
        next_look = [0.0]

        def note(job: dict[str, Any]) -> str | None:
            tasks = [str(t) for t in (job.get("status") or {}).get("tasks") or []]
            if _phase(job) != contract.RUNNING or not tasks or time.monotonic() < next_look[0]:
                return None
            next_look[0] = time.monotonic() + LOG_EVERY
            try:
                text = self.api().log_preview(object_id, tasks[0]) or ""
            except MltrainError:
                return None
            lines = [line.strip()[:LOG_WIDTH] for line in text.splitlines() if line.strip()][-LOG_LINES:]
            new = [line for line in lines if line not in said]
            said[:] = lines
            return f"log of {tasks[0]}: " + " | ".join(new) if new else None

        return note

    def _kept(self, spec: Any, object_id: str) -> str:
        return (f"Job {object_id} was NOT deleted and is not lost: it carries this resource's owner mark, so the "
                f"next `pulumi up` finds it and adopts it without creating a duplicate, and waits for it again. "
                f"To adopt it explicitly, set adopt_id=\"{object_id}\"; to give up on it, run `pulumi up` after "
                f"removing the resource and delete job {object_id} in ModelArts")

    def _roll_back(self, spec: Any, job_id: str) -> str:
        """Delete a job whose create fails, under a budget of its own; say what became of it."""
        try:
            cleanup_deadline = self._deadline(spec, "delete")
            with transport.operation_deadline(cleanup_deadline, f"deleting failed job {job_id}", override=True):
                self._remove(job_id, cleanup_deadline)
        except MltrainError as cleanup:
            return (f"Deleting it failed too ({cleanup}); delete job {job_id} in ModelArts (or run `pulumi up` "
                    "again, which finds it by its owner mark, adopts it and retries)")
        return "It was deleted so nothing is left behind; fix the cause and run `pulumi up` again"

    # ----- adopt / take over / read / update / delete ---------------------------------------------
    def _take_over(self, object_id: str, spec: Any, owner: Mark | None, deadline: float) -> dict[str, Any]:
        tags = self.api().job_tags(object_id)
        self._reconcile(object_id, {**self.api().job(object_id), "tags": tags}, spec, how="adopt")
        self._mark_job(spec, object_id, _tags_to_write(spec, owner, tags))
        return self._record_after_wait(spec, object_id, deadline, owner, ours=True)

    def _adopt(self, object_id: str, spec: Any, owner: Mark | None, deadline: float) -> dict[str, Any]:
        tags = self.api().job_tags(object_id)
        self._reconcile(object_id, {**self.api().job(object_id), "tags": tags}, spec, how="adopt")
        # Marked only once it has reached its target: a job that fails first stays someone else's.
        judged = self._record_after_wait(spec, object_id, deadline, owner, ours=False)
        # Taken over on purpose: the job's tags carry this resource's mark from now on.
        tags_now = _tags_to_write(spec, owner, tags)
        if tags_now:
            self.api().tag_job(object_id, tags_now)
        return {**judged, **self._outputs(self.api().job(object_id))}

    def _read(self, object_id: str, spec: Any) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        job = self.api().job(object_id)
        return {**self.derived(spec), **self._outputs(job)}, {**job, "tags": self.api().job_tags(object_id)}

    def _listed(self, object_id: str, spec: Any) -> bool:
        name = getattr(spec, "name", None)
        if not name:
            return False
        return any(str((j.get("metadata") or {}).get("id")) == object_id for j in self.api().find_jobs(name))

    def _update(self, object_id: str, old: Any, new: Any, changed: list[str], owner: Mark | None,
                deadline: float) -> dict[str, Any]:
        if "description" in changed:
            self.api().update_job_description(object_id, new.description or "")
        if "tags" in changed:
            self._tag(object_id, new.tags, getattr(old, "tags", None))
        if "stopped" in changed and new.stopped:
            stopping = self._terminate(object_id)
            if stopping is not None:
                self._settle_stop(object_id, deadline, Label.of(self.kind, new, owner, object_id=object_id,
                                                                doing="stopping"), look_first=not stopping)
        elif "stopped" in changed:
            notice(f"{self.kind} {new.name!r}: stopped=false recorded; job {object_id} is not started "
                   "again (to run the job again, change its replacement_trigger)", owner)
        return self._outputs(self.api().job(object_id))

    def _tag(self, job_id: str, tags: dict[str, str] | None, previous: dict[str, str] | None) -> None:
        """User tags through the job tags API, beside the owner mark (which is never removed here)."""
        gone = [{"key": k} for k in previous or {} if k not in (tags or {})]
        if gone:
            self.api().untag_job(job_id, gone)
        if tags:
            self.api().tag_job(job_id, [{"key": k, "value": v} for k, v in tags.items()])

    def _delete(self, object_id: str, spec: Any, deadline: float) -> bool:
        return self._remove(object_id, deadline, Label.of(self.kind, spec, object_id=object_id))

    def _remove(self, job_id: str, deadline: float, label: Label | None = None) -> bool:
        """Terminate, DELETE, and wait until ModelArts no longer knows the job.

        A job that has ended takes three calls: its terminate is refused (ModelArts.2796: not in
        Creating, Pending or Running), then DELETE and one read. A live job's terminate answers the job
        Terminating: that wait (job reads) runs before the DELETE, since the documents do not say
        whether a job may be deleted while it terminates; so does a terminate refused because the
        status changed meanwhile (2878), and a DELETE refused in the job's status (409). No ownership
        check is needed here: the ID comes from this resource's state (or its own create).

        True once ModelArts accepted the DELETE and then answered its own not-found (2775): the
        DELETE proves that the ID and the endpoint address this job, so that answer needs no listing.
        A not-found before the DELETE was accepted returns False: the caller asks a listing first.
        """
        api = self.api()
        stopping = label and Label(label.kind, label.name, job_id, label.urn, "stopping")
        try:
            stopping_now = self._terminate(job_id)
            if stopping_now is not None:
                self._settle_stop(job_id, deadline, stopping, look_first=not stopping_now)
            try:
                api.delete_job(job_id)
            except ApiError as err:
                if type(err) is not ApiError or err.http_status != 409:
                    raise
                self._settle_stop(job_id, deadline, stopping, look_first=True)
                api.delete_job(job_id)
        except NotFound:
            return False

        def gone() -> str:
            try:
                return _phase(api.job(job_id))
            except NotFound:
                return "deleted"

        wait_for(gone, lambda s: s == "deleted", timeout=remaining(deadline),
                 what=f"deleting training job {job_id}", backoff=self.poll,
                 label=label and Label(label.kind, label.name, job_id, label.urn, "deleting"))
        return True

    def _terminate(self, job_id: str) -> bool | None:
        """Ask ModelArts to stop the job: None when there is nothing to stop or wait for, True when its
        answer says it is stopping, False when the status changed meanwhile (the job must be read)."""
        try:
            answer = self.api().terminate_job(job_id)
        except ApiError as err:
            if err.code == contract.CANNOT_TERMINATE:
                return None  # not in Creating, Pending or Running: nothing to stop
            if err.code == contract.STATUS_CHANGED:
                return False
            raise
        return None if answer is not None and _phase(answer) in contract.SETTLED else True

    def _settle_stop(self, job_id: str, deadline: float, label: Label | None, *, look_first: bool) -> None:
        """Wait until the job has stopped; with `look_first`, read it first and terminate it once
        more if it is live (a terminate or DELETE was refused because its status changed)."""
        api = self.api()
        busy = contract.TERMINABLE | {contract.TERMINATING}
        if look_first and _phase(api.job(job_id)) in contract.TERMINABLE:
            try:
                api.terminate_job(job_id)
            except ApiError as err:
                if err.code not in (contract.CANNOT_TERMINATE, contract.STATUS_CHANGED):
                    raise
        wait_for(lambda: api.job(job_id), lambda j: _phase(j) not in busy,
                 timeout=remaining(deadline), what=f"stopping training job {job_id}", state_of=_phase,
                 backoff=self.poll, label=label)

    # ----- outputs -------------------------------------------------------------------------------
    def _outputs(self, job: dict[str, Any], *, metrics: bool = True) -> dict[str, Any]:
        status = job.get("status") or {}
        metadata = job.get("metadata") or {}
        job_id = str(metadata.get("id"))
        phase = _phase(job)
        tasks = [str(t) for t in status.get("tasks") or []]
        out: dict[str, Any] = {
            "job_id": job_id,
            "phase": phase,
            "secondary_phase": status.get("secondary_phase"),
            "duration_ms": status.get("duration"),
            **_run_times(status, phase),
            "task_statuses": [{"task": str(row.get("task") or ""), "exit_code": row.get("exit_code"),
                               "message": row.get("message") or None}
                              for row in status.get("task_statuses") or [] if isinstance(row, dict)] or None,
            "tasks": tasks,
            "create_time": metadata.get("create_time"),
            "reason": (_reason(job) or None) if phase in contract.FAILURES else None,
            "metrics_summary": None,
        }
        if metrics and tasks and phase != contract.CREATING:
            # Extras: a refresh must not fail because logs or metrics are not there (yet).
            try:
                out["metrics_summary"] = metrics_summary(self.api().metrics(job_id, tasks[0])) or None
            except MltrainError as err:
                print(f"[mltrain] job {job_id}: logs/metrics not available: {err}", file=sys.stderr)
        return out


def _run_times(status: dict[str, Any], phase: str) -> dict[str, str | None]:
    """start_time from ModelArts' epoch milliseconds (0 before the job starts); end_time derived from it
    and the duration once the job has ended, since ModelArts reports no end time."""
    raw, duration = status.get("start_time"), status.get("duration")
    start = from_epoch_ms(raw)
    end = None
    if phase in contract.SETTLED and start is not None and isinstance(raw, int) and isinstance(duration, int):
        end = from_epoch_ms(raw + duration)
    return {"start_time": start, "end_time": end}


def _tags_to_write(spec: Any, owner: Mark | None, current: Any) -> list[dict[str, str]]:
    """The user's tags, and the owner mark where the job's `current` tags lack it."""
    mark = owner_tags(owner) if owner is not None and mark_in(current) != owner else []
    return mark + [{"key": k, "value": v} for k, v in (spec.tags or {}).items()]


def _legacy_mark(job: dict[str, Any]) -> Mark | None:
    """The mark 0.1.x wrote in a job's annotations, where an answer returns them."""
    return mark_in((job.get("metadata") or {}).get("annotations"))


def _phase(job: dict[str, Any]) -> str:
    return str((job.get("status") or {}).get("phase") or "Unknown")


def _name(job: dict[str, Any]) -> str:
    return str((job.get("metadata") or {}).get("name") or "")


def _reason(job: dict[str, Any]) -> str:
    """The platform's words for why a job stopped: task messages, else the status reason."""
    status = job.get("status") or {}
    messages = []
    for row in status.get("task_statuses") or []:
        if isinstance(row, dict) and row.get("message"):
            code, message = row.get("exit_code"), str(row["message"])
            suffix = f" (exit code {code})" if code not in (None, 0) and f"code {code}" not in message else ""
            messages.append(f"{row.get('task', 'task')}: {message}{suffix}")
    if messages:
        return "; ".join(dict.fromkeys(messages))
    reason = status.get("reason") or ""
    secondary = status.get("secondary_phase")
    if not reason and secondary and secondary != status.get("phase"):
        reason = f"secondary phase {secondary}"
    return str(reason)


class TrainingJobProvider(MltrainProvider[TrainingJobHandler]):
    """The dynamic provider (the registry's target, named by existing states)."""

    handler_type = TrainingJobHandler
