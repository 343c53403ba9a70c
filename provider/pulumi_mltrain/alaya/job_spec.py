"""The declaration of an Alaya NeW training task: its inputs (the fields of the create call, with their
checks) and its outputs. One declaration per field drives validation, diff, schema.json and docs."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, SerializationInfo, field_serializer, model_validator

from .. import checkpoints, pending, runs
from .. import spec as specs
from ..run_control import RunControl
from .models import NasCheckpoint, NasMount
from .wire import contract


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


class TrainingJobSpec(RunControl):
    """Inputs of an Alaya NeW distributed training task (the fields of the create call)."""

    absent_inputs: ClassVar[dict[str, str]] = {
        "success_criteria": "is not available on Alaya NeW training jobs: Alaya NeW has no metrics API to "
                            "check it against (metric gates are a ModelArts training job input)",
        "custom_metrics": "is not available on Alaya NeW training jobs: Alaya NeW documents no metrics API or "
                          "metric collection (custom metrics are a ModelArts training job input)"}

    name: str = specs.spec_field(
        description="Task name; when unset, the resource name plus a suffix unique to this stack and resource, "
        "chosen at the first create and kept through renames (aliases).",
        min_length=1, max_length=contract.NAME_MAX)
    product_code: str = specs.spec_field(
        description="Resource configuration (node spec) from the product list, e.g. PRD-TRAIN-1.",
        wire="productCode", min_length=1)
    worker_count: int = specs.spec_field(description="Number of nodes; 1 for a single machine.",
                                         wire="workerCount", ge=contract.WORKER_COUNT[0],
                                         le=contract.WORKER_COUNT[1])
    image: str = specs.spec_field(
        description="Container image, e.g. harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu.", min_length=1)
    create_type: Literal["DIRECT", "COPY", "TEMPLATE"] = specs.spec_field(
        "DIRECT", description="How the task is created; DIRECT for a normal create.", wire="createType")
    description: str | None = specs.spec_field(
        None, description="Task description. Alaya NeW has no update call: a change is recorded in the state "
        "and the task keeps the description it was created with (no new run).", wire="desc",
        max_length=contract.DESC_MAX, on_change="record")
    priority: int = specs.spec_field(3, description="1 (highest) to 3 (lowest, the default).",
                                     ge=contract.PRIORITY[0], le=contract.PRIORITY[1])
    training_type: Annotated[Literal["PRE_TRAINING", "HPC"], BeforeValidator(_upper)] | None = specs.spec_field(
        None, description="PRE_TRAINING or HPC (any case).", wire="trainingType")
    image_type: Literal["general", "application", "private"] | None = specs.spec_field(
        None, description="general, application or private; must match the image.", wire="imageType")
    training_framework: Annotated[
        Literal["pytorch", "deepspeed", "mpi", "tensorflow"], BeforeValidator(_lower)
    ] | None = specs.spec_field(
        None, description="pytorch, deepspeed, mpi or tensorflow (any case).",
        wire="trainingFramwork", also=("trainingFramework",))
    storage_mounts: list[NasMount] = specs.spec_field(
        default_factory=list, description="NAS directories to mount (e.g. StorageMount.mount outputs).",
        wire="storageConfigs")
    checkpoint: NasCheckpoint | None = specs.spec_field(
        None, description="Where the task's runs keep checkpoints: {path, resume?}, a directory under a writable "
        "storage_mounts entry. Alaya NeW has no checkpoint field: the task's env tells the script "
        f"{checkpoints.ENV_DIR} (the path), {checkpoints.ENV_RESUME} (true when this run resumes) and "
        f"{checkpoints.ENV_RESUMED_FROM} (the run it resumes). A new run of the resource resumes unless resume is "
        "false; a first run starts fresh. A change of path replaces the task; a change of resume is recorded.",
        wire="checkpoint", returned=False, recorded_keys=("resume",))
    env: dict[str, str] = specs.spec_field(
        default_factory=dict, description="Environment variables; wrap values in pulumi.Output.secret() "
        "to keep them encrypted in the state.", redact=True)
    enable_auto_retry: bool = specs.spec_field(
        False, description="Retry a failed task automatically; implied by max_retry_count.", wire="enableAutoRetry",
        implied_by="max_retry_count")
    max_retry_count: int | None = specs.spec_field(
        None, description="Retries when enable_auto_retry is on.", wire="maxRetryCount",
        ge=contract.MAX_RETRY_COUNT[0], le=contract.MAX_RETRY_COUNT[1])
    enable_timeout_cancel: bool = specs.spec_field(
        False, description="Cancel the task after timeout_hours; implied by timeout_hours.",
        wire="enableTimeoutCancel", implied_by="timeout_hours")
    timeout_hours: int | None = specs.spec_field(
        None, description="Hours before the task is cancelled when enable_timeout_cancel is on.",
        wire="timeoutHours", ge=contract.TIMEOUT_HOURS[0], le=contract.TIMEOUT_HOURS[1])
    start_command: str | None = specs.spec_field(
        None, description="Entry command; may be a multi-line shell script.", wire="startCommand")
    wait_for: Literal["created", "running", "completed"] = specs.spec_field(
        "created", description="What create waits for: the task ID (created), the RUNNING state (running), or "
        "the end of the training (completed: raise customTimeouts.create to match the training time). A task "
        "that fails or stops first fails the create, and its run is held (see on_failure).",
        on_change="local")
    max_pending_minutes: float | None = specs.spec_field(
        None, description=pending.description("QUEUED or STARTING"), on_change="local", gt=0,
        allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _implied_switches(cls, data: Any) -> Any:
        """`max_retry_count`/`timeout_hours` alone switch their feature on, as users expect."""
        if isinstance(data, dict):
            data = dict(data)
            for switch, value, wire in (("enable_auto_retry", "max_retry_count", "maxRetryCount"),
                                        ("enable_timeout_cancel", "timeout_hours", "timeoutHours")):
                given = data.get(value, data.get(wire))
                if given is not None and switch not in data and _camel(switch) not in data:
                    data[switch] = True
        return data

    @field_serializer("training_type")
    def _as_documented(self, value: str | None, info: SerializationInfo) -> str | None:
        """The wire (by alias) gets the seed field table's spelling; the state keeps the canonical one."""
        return contract.TRAINING_TYPES.get(value, value) if value and info.by_alias else value

    def cross_check(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self.max_retry_count is not None and not self.enable_auto_retry:
            out.append(("max_retry_count", "applies only when enable_auto_retry is true"))
        if self.timeout_hours is not None and not self.enable_timeout_cancel:
            out.append(("timeout_hours", "applies only when enable_timeout_cancel is true"))
        if self.create_type not in contract.CREATE_TYPES_SUPPORTED:
            out.append(("create_type", f"{self.create_type} cannot work: it copies a task or uses a template, "
                                       "and the create call has no field that names the source; use DIRECT"))
        if self.max_pending_minutes is not None and self.wait_for not in contract.REACHED:
            out.append(("max_pending_minutes", f"applies only while create waits for the task to run: "
                                               f"wait_for={self.wait_for!r} does not wait; set wait_for to "
                                               "'running' or 'completed', or unset max_pending_minutes"))
        if self.enable_timeout_cancel and self.timeout_hours is None:
            out.append(("timeout_hours", "is required when enable_timeout_cancel is true"))
        seen: dict[str, int] = {}
        for i, mount in enumerate(self.storage_mounts):
            path = mount.normalized_path()
            if path in seen:
                out.append((f"storage_mounts[{i}].mount_path",
                            f"{mount.mount_path} is already used by storage_mounts[{seen[path]}]"))
            seen.setdefault(path, i)
        if self.checkpoint is not None:
            holder = self.checkpoint.on(self.storage_mounts)
            if holder is None:
                out.append(("checkpoint.path", f"{self.checkpoint.path} is on none of storage_mounts: mount a NAS "
                                               "directory (read_only false) that holds it"))
            elif holder.read_only:
                out.append(("checkpoint.path", f"{self.checkpoint.path} is on the read-only mount "
                                               f"{holder.mount_path}: set read_only false on it, or use another"))
        for key in self.env:
            if not specs.ENV_NAME.match(key):
                out.append((f"env.{key}", "is not a valid environment variable name"))
            elif key == contract.OWNER_ENV:
                out.append((f"env.{key}", "is reserved: the provider keeps the task's owner mark there"))
            elif self.checkpoint is not None and key in CHECKPOINT_ENV:
                out.append((f"env.{key}", "is reserved with a checkpoint: the provider tells the script the "
                                          "checkpoint's path and whether it resumes there"))
            elif key == contract.RUN_REASON_ENV:
                out.append((f"env.{key}", "is reserved: the provider keeps the run's run_reason there"))
        return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


class TrainingJobOutputs(specs.Output):
    training_task_id: str | None = specs.output_field(
        description="The training task ID the platform assigned (the resource ID).", is_id=True)
    status: str | None = specs.output_field(description="Task status at the last create/refresh.",
                                            always=True)
    result_key: str | None = specs.output_field(description="Subscription result key of the create call.")
    created_time: str | None = specs.output_field(description="When the platform created the task.")
    start_time: str | None = specs.output_field(
        description="When the task started running, RFC 3339 in UTC (from the platform's Beijing time).")
    end_time: str | None = specs.output_field(
        description="When the task ended, RFC 3339 in UTC (from the platform's Beijing time).")
    duration_ms: int | None = specs.output_field(
        description="Running time in milliseconds: derived as end_time - start_time once both are known (Alaya "
        "NeW reports no duration).")
    reason: str | None = specs.output_field(description="The platform's reason for the status, if any.")
    gpus_per_node: int | None = specs.output_field(kept="derived",
        description="GPUs per node, from the product list's gpuCount; known at preview (unset without credentials).")
    gpu_count: int | None = specs.output_field(kept="derived",
        description="GPUs of the whole task (gpus_per_node x worker_count); known at preview.")
    cost_per_hour: float | None = specs.output_field(kept="derived",
        description="Estimated cost per hour: the product's price x worker_count, in the platform's currency "
        "(unset when the product's priceUnit is not per hour); known at preview.")
    run_reason: str | None = specs.output_field(description=runs.DESCRIPTION)
    resumed_from: str | None = specs.output_field(description=checkpoints.RESUMED_FROM_DESCRIPTION)


CHECKPOINT_ENV = (checkpoints.ENV_DIR, checkpoints.ENV_RESUME, checkpoints.ENV_RESUMED_FROM)
