"""The declaration of a ModelArts training job: its inputs (the create body of POST
/v2/{project_id}/training-jobs, with their checks) and its outputs. One declaration per field drives
validation, diff, schema.json and docs."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from .. import checkpoints, pending, runs
from .. import spec as specs
from ..run_control import RunControl
from .models import (
    NAME_RE,
    AnnotationFlag,
    AssetModel,
    CustomMetrics,
    DataInput,
    FtJobConfig,
    JobParameter,
    Notification,
    ObjectId,
    ObsChannel,
    ObsCheckpoint,
    ObsPath,
    OutputModel,
    RequiredAffinity,
    RetryCount,
    SuccessCriterion,
    TaskExit,
    UserTags,
    Volume,
    code_problems,
    duplicate_names,
    fine_tune_problems,
    key_pair_problems,
    tag_problems,
    volume_problems,
)
from .wire import contract

WaitFor = Literal["accepted", "running", "completed"]
INLINE = ("code_dir", "boot_file", "command", "engine_id", "engine_name", "engine_version", "image_url")


class TrainingJobSpec(RunControl):
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
    checkpoint: ObsCheckpoint | None = specs.spec_field(
        None, description="Where the job's runs keep checkpoints: {obs_url, name?, local_dir?, resume?}, an OBS "
        "output channel (algorithm.outputs, default name checkpoint_url). A new run of the resource (a "
        "replacement_trigger, a change of inputs, a held failure run again) sends it with predownload "
        "(prefetch_to_local), so the job starts with the previous run's checkpoints in local_dir, unless resume "
        "is false; a first run starts fresh. A change of the channel replaces the job; a change of resume is "
        "recorded.", wire="checkpoint", returned=False, recorded_keys=("resume",))
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
    custom_metrics: list[CustomMetrics] | None = specs.spec_field(
        None, description="The job's own metric collection (2026), each [{exec: {command: [...]}} | {http_get: "
        "{path, port}}]: ModelArts runs the command, or reads the path and port, in the job's container and "
        "reports the metrics (Prometheus text format, e.g. loss) into AOM; success_criteria may then name them.",
        wire="spec.custom_metrics")
    train_type: contract.TrainType | None = specs.spec_field(
        None, description="Makes the job a fine-tune job (2026): SFT (full fine-tuning), PRETRAIN, LORA, DPO or "
        "RFT. The job detail does not return it (Huawei's Terraform provider documents this): the state keeps "
        "the value sent, and no drift is read for it.", wire="train_type", returned=False)
    ftjob_config: FtJobConfig | None = specs.spec_field(
        None, description="Fine-tune settings, with train_type: {model_type?, ft_train_type?, train_output_path?, "
        "checkpoint_id?, task_env?: [{env_name, value?, ...}], checkpoint_config?: {checkpoint_id?, "
        "save_checkpoints_max?, skipped_steps?, restore_training?}}. Not returned by the job detail: the state "
        "keeps the value sent.", wire="ftjob_config", returned=False)
    base_asset_id: str | None = specs.spec_field(
        None, description="The model asset a fine-tune job starts from (spec.asset_id); with it, the job needs "
        "no algorithm or code of its own. Not returned by the job detail: the state keeps the value sent.",
        wire="spec.asset_id", returned=False, min_length=1)
    output_model: OutputModel | None = specs.spec_field(
        None, description="Where the job saves the model it trains: {obs_path, local_path?} (spec.output_model). "
        "Not returned by the job detail: the state keeps the value sent.", wire="spec.output_model",
        returned=False)
    asset_model: AssetModel | None = specs.spec_field(
        None, description="Publishes a fine-tune job's trained model (output_model) as a model asset once the job "
        "has completed: {name, version, type, code?, desc?, series?} (spec.asset_model); model_id and "
        "model_asset_id then name it. Not returned by the job detail: the state keeps the value sent.",
        wire="spec.asset_model", returned=False)
    wait_for: WaitFor = specs.spec_field(
        "accepted", description="What create waits for: accepted (past Creating, the default: seconds), running, "
        "or completed (training finished; raise customTimeouts.create to match the training time).",
        on_change="local")
    max_pending_minutes: float | None = specs.spec_field(
        None, description=pending.description("Creating or Pending"), on_change="local", gt=0,
        allow_inf_nan=False)
    success_criteria: list[SuccessCriterion] | None = specs.spec_field(
        None, description="Metric gates, with wait_for=\"completed\" only: [{metric, op, value}], e.g. "
        "[{metric: gpuUtil, op: \">=\", value: 50}] or, with custom_metrics, [{metric: loss, op: \"<=\", value: "
        "0.5}]. Once the job has Completed, each is compared with the final value of its metric: for the six "
        "metrics of ModelArts' metrics API (cpuUsage, memUsage, gpuUtil, gpuMemUsage, npuUtil, npuMemUsage) the "
        "last sample with data (not -1) of the job's first task (status.tasks[0], as metrics_summary); for a "
        "custom metric the last sample AOM holds of the job's series (any task). A metric without data misses. "
        "A miss ends the create like a failed run (its run is held; on_failure decides what becomes of its job), "
        "naming the metric, the value seen and the threshold; final_metrics and success_criteria_met record what "
        "was read. Changing it is recorded only: a finished run is not judged again.", on_change="local")

    def as_declared(self) -> TrainingJobSpec:
        """ModelArts reports the code and engine of a job's algorithm in the job (the algorithm brings
        them), and a preset engine by ID, name and version (name and version are kept)."""
        if self.algorithm_id:
            return self.model_copy(update=dict.fromkeys(INLINE))
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
        if not self.custom_metrics:
            out += [(f"success_criteria[{i}].metric",
                     f"{c.metric} is not a metric of ModelArts' metrics API ({', '.join(contract.METRICS)}); a "
                     "custom metric needs custom_metrics (exec or http_get), so that ModelArts collects it into AOM")
                    for i, c in enumerate(self.success_criteria or []) if c.custom]
        out += fine_tune_problems(self.train_type, self.ftjob_config, self.output_model, self.asset_model,
                                  self.base_asset_id)
        inline = [f for f in INLINE if getattr(self, f)]
        if self.algorithm_id:
            out += [(f, "cannot be combined with algorithm_id: the algorithm brings its own code and engine")
                    for f in inline]
        elif inline:
            out += code_problems(self)
        elif not (self.train_type and self.base_asset_id):  # a fine-tune of a model asset brings its own code
            out.append(("algorithm_id", "is required, or inline code: code_dir + boot_file with an engine, "
                                        "or image_url with a command"))
        out += duplicate_names({"inputs": self.inputs, "outputs": self.outputs})
        if self.checkpoint is not None:
            taken = [f"{field}[{i}]" for field in ("inputs", "outputs")
                     for i, channel in enumerate(getattr(self, field)) if channel.name == self.checkpoint.name]
            out += [("checkpoint.name", f"{self.checkpoint.name} is already used by {where}: a checkpoint is a "
                                        "channel of its own") for where in taken]
        out += duplicate_names({"parameters": self.parameters})
        out += volume_problems(self.volumes) + tag_problems(self.tags)
        out += key_pair_problems(self.ssh_key_pair_names)
        if not self.pool_id:
            # ModelArts schedules by priority, preemption and affinity only inside a dedicated pool.
            out += [(f, "needs a dedicated pool: set pool_id") for f in ("preemptible", "required_affinity")
                    if getattr(self, f)]
        envs = self.environments or {}
        if len(envs) > contract.MAX_ENVIRONMENTS:
            out.append(("environments", f"has {len(envs)} variables; ModelArts allows at most "
                                        f"{contract.MAX_ENVIRONMENTS}"))
        out += [(f"environments.{k}", "is not a valid environment variable name") for k in envs
                if not specs.ENV_NAME.match(k)]
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
    final_metrics: dict[str, float] | None = specs.output_field(kept="once",
        description="With success_criteria: the final values the gate read once the job Completed (the last "
        "sample with data of each metric of the first task), e.g. {gpuUtil: 87.5}; kept through refreshes.")
    success_criteria_met: bool | None = specs.output_field(kept="once",
        description="With success_criteria: whether every criterion held when the job Completed (false on a "
        "job kept by on_failure=\"keep\"); unset without success_criteria.")
    model_id: str | None = specs.output_field(kept="once",
        description="With train_type: the ID of the model the job trained (its final artifact, read from the job's "
        "fine-tune artifacts once it has Completed); kept through refreshes.")
    model_asset_id: str | None = specs.output_field(kept="once",
        description="With asset_model: the ID of the model asset the trained model was published as, once ModelArts "
        "reports it (the job's fine-tune artifacts); kept through refreshes.")
    create_time: int | None = specs.output_field(description="Creation time, epoch milliseconds.")
    reason: str | None = specs.output_field(description="Why the job failed or stopped, when it did.")
    gpus_per_node: int | None = specs.output_field(kept="derived",
        description="GPUs per node, from the flavor's flavor_info.gpu (0 for CPU flavors); known at preview "
        "(unset without credentials).")
    gpu_count: int | None = specs.output_field(kept="derived",
        description="GPUs of the whole job (gpus_per_node x node_count); known at preview.")
    billing_code: str | None = specs.output_field(kept="derived",
        description="The flavor's billing code; known at preview. ModelArts gives no prices (the flavor list has "
        "none), so a ModelArts job has no cost_per_hour: mltrain-plan and the policy new-run-budget count its "
        "GPU-hours and say its price is unknown.")
    run_reason: str | None = specs.output_field(description=runs.DESCRIPTION)
    resumed_from: str | None = specs.output_field(description=checkpoints.RESUMED_FROM_DESCRIPTION)
