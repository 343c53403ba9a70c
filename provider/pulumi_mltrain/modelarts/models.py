"""Nested input types of ModelArts resources: OBS data channels, parameters, resource requirements.

Aliases are the wire names; dotted ones (`remote.obs.obs_url`) are nested on the wire by
`Spec.wire()` and read back by `spec.from_wire`, so each shape is declared once, here.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializationInfo,
    field_validator,
    model_validator,
)

from .. import checkpoints, config
from ..spec import ENV_NAME
from .wire import contract

if TYPE_CHECKING:
    from .algorithm import AlgorithmSpec
    from .job_spec import TrainingJobSpec

NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _absolute(value: str | None) -> str | None:
    if value is not None and not value.startswith("/"):
        raise ValueError("must be an absolute path (start with /)")
    return value


AbsolutePath = Annotated[str, AfterValidator(_absolute)]  # a path inside the container
_OBS_SCHEME = "obs://"


def obs_path(value: Any) -> Any:
    """OBS locations as ModelArts v2 takes them: `/bucket/path`; `obs://bucket/path` is converted."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    text = "/" + text.removeprefix(_OBS_SCHEME) if text.startswith(_OBS_SCHEME) else text
    if not text.startswith("/"):
        raise ValueError("must be an OBS location: obs://bucket/path/ or /bucket/path/")
    parts = text.split("/")
    if not parts[1]:
        raise ValueError("must name an OBS bucket: obs://bucket/path/ or /bucket/path/")
    if ".." in parts:
        raise ValueError("must not contain '..'")
    return text


_NOT_IN_ID = re.compile(r"[/?#%\\\s\x00-\x1f\x7f]")


def object_id(value: str) -> str:
    """IDs go into request paths (`.../algorithms/{id}`), checked before: nothing that leaves the path segment."""
    if value in (".", "..") or _NOT_IN_ID.search(value):
        raise ValueError("must be an ID as ModelArts gives it, without '/', '?', '#', '%', '\\', spaces or "
                         "control characters")
    return value


def _text(value: Any) -> Any:
    """Parameter values travel as strings (booleans as True and False); numbers arrive from Pulumi as
    floats (1 -> 1.0 -> "1")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value) if isinstance(value, int | float) else value


ObsPath = Annotated[str, BeforeValidator(obs_path)]
ParamValue = Annotated[str, BeforeValidator(_text)]
ObjectId = Annotated[str, AfterValidator(object_id)]


class _Nested(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True, frozen=True)


class ObsChannel(_Nested):
    """A ModelArts data channel backed by OBS: an input the job reads, or an output it writes.

    The job sees the data at `local_dir` (ModelArts picks /home/ma-user/modelarts/inputs/<name>_0
    when it is not given) and gets the local path as the hyperparameter named `name`.
    """

    name: str = Field(description="Channel name, e.g. data_url or train_url (an algorithm's declared name).",
                      pattern=NAME_RE.pattern)
    obs_url: ObsPath = Field(alias="remote.obs.obs_url",
                             description="OBS location: obs://bucket/path/ or /bucket/path/.")
    local_dir: AbsolutePath | None = Field(None, description="Path inside the container; ModelArts chooses one "
                                           "if unset.")


class ObsCheckpoint(_Nested):
    """Where a job's runs keep their checkpoints: an OBS output channel, sent with predownload
    (`prefetch_to_local`) when a new run resumes, so the job starts with the previous run's files in
    `local_dir` (Huawei's "Resumable Training" guide). The script saves its checkpoints there and reloads
    the latest one it finds."""

    name: str = Field("checkpoint_url", description="Output channel name: the script gets the local path as "
                      "the hyperparameter of this name (default checkpoint_url).", pattern=NAME_RE.pattern)
    obs_url: ObsPath = Field(description="OBS directory of the checkpoints: obs://bucket/path/ or /bucket/path/.")
    local_dir: AbsolutePath | None = Field(None, description="Path inside the container; ModelArts chooses one "
                                           "if unset.")
    resume: bool = Field(True, description=checkpoints.RESUME_DESCRIPTION)

    def channel(self, prefetch: bool) -> dict[str, Any]:
        """The output channel of the create body (algorithm.outputs[])."""
        local = {"local_dir": self.local_dir} if self.local_dir else {}
        return {"name": self.name, "remote": {"obs": {"obs_url": self.obs_url}}, "prefetch_to_local": prefetch, **local}


class JobParameter(_Nested):
    """A hyperparameter passed to the training code (`--name=value`)."""

    name: str = Field(description="Parameter name.", pattern=NAME_RE.pattern)
    value: ParamValue = Field(description="Value (sent as a string; numbers and booleans are converted).")


class ParameterConstraint(_Nested):
    type: Literal["String", "Integer", "Float", "Boolean"] | None = Field(None, description="Value type.")
    editable: bool | None = Field(None, description="Whether a job may change the value.")
    required: bool | None = Field(None, description="Whether a job must give a value.")
    sensitive: bool | None = Field(None, description="Whether the value is hidden in the console.")
    valid_type: str | None = Field(None, description="None, Range or Enum.")
    valid_range: list[str] | None = Field(None, description="Bounds or allowed values, as strings.")


class AlgorithmParameter(_Nested):
    """A hyperparameter an algorithm declares, with its default value and constraint."""

    name: str = Field(description="Parameter name.", pattern=NAME_RE.pattern)
    value: ParamValue | None = Field(None, description="Default value.")
    description: str | None = Field(None, description="What the parameter does.")
    constraint: ParameterConstraint | None = Field(None, description="Type and allowed values.")


class ChannelDeclaration(_Nested):
    """An input or output channel an algorithm declares; jobs bind it to an OBS location."""

    name: str = Field(description="Channel name, e.g. data_url.", pattern=NAME_RE.pattern)
    description: str | None = Field(None, description="What the channel carries.")


class ResourceRequirement(_Nested):
    """A constraint on the resources jobs of an algorithm may use, e.g. flavor_type in [GPU]."""

    key: Literal["flavor_type", "device_distributed_mode", "host_distributed_mode"] = Field(
        description="flavor_type, device_distributed_mode or host_distributed_mode.")
    values: list[str] = Field(min_length=1, description="Allowed values, e.g. [\"CPU\", \"GPU\"].")
    operator: Literal["in"] = Field("in", description="Always `in`.")


MetricOp = Literal["<", "<=", ">", ">=", "=="]
_OPS: dict[str, Callable[[float, float], bool]] = {"<": operator.lt, "<=": operator.le, ">": operator.gt,
                                                   ">=": operator.ge, "==": operator.eq}


_CUSTOM_METRIC = re.compile(contract.CUSTOM_METRIC_NAME)


def _metric_name(value: str) -> str:
    if value in contract.METRICS or _CUSTOM_METRIC.match(value):
        return value
    raise ValueError(f"{value!r} is neither a metric of ModelArts' metrics API ({', '.join(contract.METRICS)}) "
                     "nor a custom metric's name (letters, digits, _ and :, not starting with a digit)")


class SuccessCriterion(_Nested):
    """A metric gate: the job's final value of `metric` must satisfy `op value` (e.g. gpuUtil >= 50, or a
    custom metric such as loss <= 0.5)."""

    metric: Annotated[str, AfterValidator(_metric_name)] = Field(
        description="A metric of ModelArts' metrics API (cpuUsage, memUsage, gpuUtil, gpuMemUsage, npuUtil, "
        "npuMemUsage), or the name of a custom metric the job's custom_metrics collection reports into AOM "
        "(e.g. loss).")
    op: MetricOp = Field(description="Comparison of the final value with `value`: <, <=, >, >= or ==.")
    value: float = Field(description="Threshold, in the metric's own unit as the API reports it.",
                         allow_inf_nan=False)

    @property
    def custom(self) -> bool:
        """Whether the metric is one of the job's own (read from AOM), not of the metrics API."""
        return self.metric not in contract.METRICS

    def holds(self, seen: float) -> bool:
        return _OPS[self.op](seen, self.value)

    def words(self) -> str:
        return f"{self.metric} {self.op} {self.value:g}"


# ----- custom metrics, fine-tune jobs and their model (2026 fields) -------------------------------------
# Shapes: Huawei's Terraform provider (huaweicloud_modelarts_training_job: docs/resources/
# modelarts_training_job.md and its build functions) and Huawei's Python SDK (huaweicloudsdkmodelarts v1
# models CustomMetrics, ModelExec, HttpGet, OutputModel/ObsModel, AssetModel, MasJobConfig, TaskEnv, EnvVar,
# CheckpointConf).
def obs_uri(value: Any) -> Any:
    """An OBS location as the model output takes it (Huawei's example: "obs://example/path"): /bucket/path
    is converted to obs://bucket/path."""
    text = obs_path(value)
    return "obs:/" + text if isinstance(text, str) else text


ObsUri = Annotated[str, BeforeValidator(obs_uri)]


class MetricsExec(_Nested):
    """`exec`: a command ModelArts runs in the job's container to collect its metrics (Prometheus text)."""

    command: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1, description="The command and its arguments, e.g. [\"python\", \"/home/ma-user/metrics.py\"].")


class MetricsHttpGet(_Nested):
    """`http_get`: a path and port of the job's container that serve its metrics (Prometheus text)."""

    path: str = Field(description="URL path, e.g. /metrics.", pattern=r"^/")
    port: int = Field(ge=1, le=65535, description="Port, 1-65535.")


class CustomMetrics(_Nested):
    """One custom metric collection of the job (`spec.custom_metrics[]`): exactly one of exec or http_get.
    ModelArts reports what it collects into AOM, where success_criteria read it."""

    exec: MetricsExec | None = Field(None, description="Collect with a command: {command: [...]}.")
    http_get: MetricsHttpGet | None = Field(None, description="Collect over HTTP: {path, port}.")

    @model_validator(mode="after")
    def _one_way(self) -> CustomMetrics:
        if (self.exec is None) == (self.http_get is None):
            raise ValueError("give exactly one of exec or http_get")
        return self


class OutputModel(_Nested):
    """`spec.output_model`: where the job saves the model it trains (OBS)."""

    obs_path: ObsUri = Field(alias="obs.obs_path",
                             description="OBS directory of the trained model: obs://bucket/path/ (or /bucket/path/).")
    local_path: AbsolutePath | None = Field(None, alias="obs.local_path",
                                            description="Path inside the container the model is written to.")


class AssetModel(_Nested):
    """`spec.asset_model`: the model asset a fine-tune job's trained model is published as."""

    name: str = Field(min_length=1, max_length=64, description="Asset (model) name.")
    version: str = Field(min_length=1, max_length=64, description="Version of the published model, e.g. 1.0.0.")
    type: str = Field(min_length=1, description="Model type, as the asset center names it.")
    code: str | None = Field(None, description="Model code.")
    desc: str | None = Field(None, max_length=256, description="Description.")
    series: str | None = Field(None, description="Model series (brand).")


class FtEnv(_Nested):
    """An environment variable of a fine-tune job (`ftjob_config.task_env.envs[]`)."""

    env_name: str = Field(description="Variable name.", pattern=ENV_NAME.pattern)
    value: str | None = Field(None, description="Value.")
    env_type: str | None = Field(None, description="Value type, as ModelArts names it.")
    label: str | None = Field(None, description="Label shown in the console.")
    des: str | None = Field(None, description="Description.")
    modifiable: bool | None = Field(None, description="Whether the value may be changed.")
    displayable: bool | None = Field(None, description="Whether the console shows it.")
    used_steps: list[str] | None = Field(None, description="Steps of the job that use it.")


class CheckpointConfig(_Nested):
    """`ftjob_config.checkpoint_config`: the checkpoints of a fine-tune job."""

    checkpoint_id: str | None = Field(None, description="Checkpoint to start from (with restore_training 1).")
    save_checkpoints_max: int | None = Field(None, ge=-1, description="Checkpoints kept: 0 none, -1 no limit.")
    skipped_steps: int | None = Field(None, ge=0, description="Steps to skip when resuming; 0 skips none.")
    restore_training: int | None = Field(None, ge=0, le=1,
                                         description="1 resumes training from the checkpoint, 0 does not.")


class FtJobConfig(_Nested):
    """`ftjob_config`: the fine-tune settings of a job with a train_type."""

    model_type: str | None = Field(None, description="Type of the model being fine-tuned.")
    ft_train_type: str | None = Field(None, description="The model's training type, as ModelArts names it.")
    train_output_path: str | None = Field(None, description="Output path of the training.")
    checkpoint_id: str | None = Field(None, description="Checkpoint the job starts from.")
    task_env: list[FtEnv] | None = Field(None, alias="task_env.envs",
                                         description="Environment variables of the fine-tune job [{env_name, "
                                         "value, ...}].")
    checkpoint_config: CheckpointConfig | None = Field(
        None, description="Checkpoints: {checkpoint_id?, save_checkpoints_max?, skipped_steps?, restore_training?}.")


def fine_tune_problems(train_type: str | None, ftjob_config: FtJobConfig | None, output_model: OutputModel | None,
                       asset_model: AssetModel | None, base_asset_id: str | None) -> list[tuple[str, str]]:
    """What a fine-tune job's fields need of each other (ModelArts documents them for fine-tune jobs)."""
    out: list[tuple[str, str]] = []
    kinds = ", ".join(contract.TRAIN_TYPES[:-1]) + " or " + contract.TRAIN_TYPES[-1]
    if not train_type:
        out += [(field, f"applies to fine-tune jobs only: set train_type ({kinds})")
                for field, value in (("ftjob_config", ftjob_config), ("asset_model", asset_model),
                                     ("base_asset_id", base_asset_id)) if value]
    if asset_model and not output_model:
        out.append(("asset_model", "publishes the model the job saves: set output_model (its OBS path)"))
    if ftjob_config is not None:
        checkpoint = ftjob_config.checkpoint_config
        if checkpoint and checkpoint.restore_training == 1 and not (checkpoint.checkpoint_id
                                                                    or ftjob_config.checkpoint_id):
            out.append(("ftjob_config.checkpoint_config.restore_training",
                        "1 resumes from a checkpoint: set checkpoint_config.checkpoint_id (or checkpoint_id)"))
        seen: dict[str, int] = {}
        for i, env in enumerate(ftjob_config.task_env or []):
            if env.env_name in seen:
                out.append((f"ftjob_config.task_env[{i}].env_name",
                            f"{env.env_name} is already set by task_env[{seen[env.env_name]}]"))
            seen.setdefault(env.env_name, i)
    return out


# ----- rules shared by Algorithm and TrainingJob ----------------------------------------------------
def code_problems(spec: AlgorithmSpec | TrainingJobSpec) -> list[tuple[str, str]]:
    """The inline code of an algorithm or a job: exactly one engine form (engine_id, engine_name +
    engine_version, or a custom image_url); code_dir and boot_file together, the boot file inside the
    code directory; a command for a custom image without code_dir, and code_dir for a preset engine."""
    engine_id, engine_name, engine_version = spec.engine_id, spec.engine_name, spec.engine_version
    code_dir, boot_file = spec.code_dir, spec.boot_file
    forms = [n for n, v in (("engine_id", engine_id), ("engine_name", engine_name or engine_version),
                            ("image_url", spec.image_url)) if v]
    out: list[tuple[str, str]] = []
    if not forms:
        out.append(("engine_id", "an engine is required: engine_id, engine_name + engine_version, or image_url"))
    elif len(forms) > 1:
        out.append((forms[1], f"give only one engine form: engine_id, engine_name + engine_version, or "
                              f"image_url (already given: {forms[0]})"))
    if engine_name and not engine_version:
        out.append(("engine_version", "is required with engine_name (see modelarts.get_engines())"))
    if engine_version and not engine_name:
        out.append(("engine_name", "is required with engine_version"))
    if code_dir and not boot_file:
        out.append(("boot_file", "is required with code_dir"))
    elif boot_file and not code_dir:
        out.append(("code_dir", "is required with boot_file"))
    elif code_dir and boot_file and not boot_file.startswith(code_dir.rstrip("/") + "/"):
        out.append(("boot_file", f"must be inside code_dir {code_dir}"))
    if spec.image_url and not code_dir and not spec.command:
        out.append(("command", "is required with a custom image_url when there is no code_dir"))
    if (engine_id or engine_name) and not code_dir:
        out.append(("code_dir", "is required with a preset engine (with boot_file)"))
    return out


def duplicate_names(groups: dict[str, list[Any]], key: str = "name") -> list[tuple[str, str]]:
    """Items whose `key` (their name) repeats one seen before, across all the given lists."""
    seen: dict[str, str] = {}
    out: list[tuple[str, str]] = []
    for field, items in groups.items():
        for i, item in enumerate(items):
            where, value = f"{field}[{i}]", getattr(item, key)
            if value in seen:
                out.append((f"{where}.{key}", f"{value} is already used by {seen[value]}"))
            seen.setdefault(value, where)
    return out


# ----- tags, volumes, datasets, retries (issue 12, item 5) ---------------------------------------------
_OWNER_KEYS = (contract.OWNER_STACK, contract.OWNER_URN)


def _tags_in(value: Any) -> Any:
    """User tags: a map; the platform's list of {key, value} is read back without the owner mark."""
    if isinstance(value, list):
        return {str(t.get("key")): str(t.get("value", "")) for t in value
                if isinstance(t, dict) and t.get("key") not in _OWNER_KEYS}
    return value


def _on_wire(convert: Callable[[Any], Any]) -> PlainSerializer:
    """A value the wire (serialized by alias) spells otherwise, `convert`ed there; the state keeps it as it is."""

    def serialize(value: Any, info: SerializationInfo) -> Any:
        return convert(value) if info.by_alias else value

    return PlainSerializer(serialize)


# Tags are [{key, value}] on the wire and a map in the state; annotation values are strings on the wire
# ("fault-tolerance/job-retry-num": "3"), switches among them "true" or "false".
UserTags = Annotated[dict[str, str], BeforeValidator(_tags_in),
                     _on_wire(lambda tags: [{"key": k, "value": v} for k, v in tags.items()])]
RetryCount = Annotated[int, _on_wire(str)]
AnnotationFlag = Annotated[bool, _on_wire(lambda on: "true" if on else "false")]


def tag_problems(tags: dict[str, str] | None) -> list[tuple[str, str]]:
    """Keys the owner mark uses are the provider's; ModelArts takes at most 20 tags of 1-128 characters."""
    out: list[tuple[str, str]] = []
    for key, value in (tags or {}).items():
        if key in _OWNER_KEYS:
            out.append((f"tags.{key}", "is reserved for the provider's owner mark; choose another key"))
        elif not 1 <= len(key) <= 128 or len(value) > 255:
            out.append((f"tags.{key}", "keys must be 1-128 characters and values at most 255"))
    if len(tags or {}) > config.MAX_TAGS:
        out.append(("tags", f"has {len(tags or {})} tags; ModelArts allows at most {config.MAX_TAGS}"))
    return out


class NfsMount(_Nested):
    nfs_server_path: str = Field(description="NFS or SFS Turbo export, e.g. 192.168.0.10:/share.", min_length=1)
    local_path: str = Field(description="Absolute path inside the container.")
    read_only: bool = Field(True, description="Mounted read-only unless set to false.")


class ObsMount(_Nested):
    obs_url: ObsPath = Field(description="OBS location: obs://bucket/path/ or /bucket/path/.")
    local_path: str = Field(description="Absolute path inside the container.")
    read_only: bool = Field(True, description="Mounted read-only unless set to false.")


class Volume(_Nested):
    """One storage mount of a job (`spec.volumes[]`): exactly one of nfs (NFS/SFS Turbo) or obs."""

    nfs: NfsMount | None = Field(None, description="NFS or SFS Turbo share.")
    obs: ObsMount | None = Field(None, description="OBS directory (parallel file system bucket).")


def volume_problems(volumes: list[Volume] | None) -> list[tuple[str, str]]:
    """At preview: one kind per mount, absolute local paths, no two mounts at one path."""
    out: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for i, volume in enumerate(volumes or []):
        where = f"volumes[{i}]"
        mount = volume.nfs or volume.obs
        if mount is None or (volume.nfs and volume.obs):
            out.append((where, "needs exactly one of nfs or obs"))
            continue
        path = mount.local_path.rstrip("/") or "/"
        kind = "nfs" if volume.nfs else "obs"
        if not path.startswith("/") or ".." in path.split("/"):
            out.append((f"{where}.{kind}.local_path", "must be an absolute path (start with /, no '..')"))
        elif path in seen:
            out.append((f"{where}.{kind}.local_path", f"{path} is already mounted by volumes[{seen[path]}]"))
        seen.setdefault(path, i)
    return out


class DatasetRef(_Nested):
    id: str = Field(description="ModelArts dataset ID.", min_length=1)
    version_id: str = Field(description="Dataset version ID.", min_length=1)


class DataInput(_Nested):
    """An input channel backed by OBS or by a ModelArts dataset version (exactly one)."""

    # Programs written when `inputs` took ObsChannel items still pass them (same keys, a subset).
    accepts_also: ClassVar[tuple[type[BaseModel], ...]] = (ObsChannel,)

    name: str = Field(description="Channel name, e.g. data_url (an algorithm's declared name).",
                      pattern=NAME_RE.pattern)
    obs_url: ObsPath | None = Field(None, alias="remote.obs.obs_url",
                                    description="OBS location: obs://bucket/path/ or /bucket/path/.")
    dataset: DatasetRef | None = Field(None, alias="remote.dataset",
                                       description="A dataset version {id, version_id} instead of OBS.")
    local_dir: AbsolutePath | None = Field(None, description="Path inside the container; ModelArts chooses one "
                                           "if unset.")

    @model_validator(mode="after")
    def _one_source(self) -> DataInput:
        if (self.obs_url is None) == (self.dataset is None):
            raise ValueError("give exactly one of obs_url or dataset")
        return self


# ----- scheduling, notification and access (issue 24, item 4) ------------------------------------------
# The training events an SMN topic can be told of, as Huawei documents `spec.notification.events`.
NOTIFICATION_EVENTS = ("JobStarted", "JobCompleted", "JobFailed", "JobTerminated", "JobRestarted", "JobHanged",
                       "JobPreempted")
# urn:smn:<region>:<project_id>:<topic name>, as SMN gives a topic's URN.
TOPIC_URN_RE = re.compile(r"^urn:smn:[a-z0-9-]+:[A-Za-z0-9]+:[A-Za-z0-9][A-Za-z0-9_-]{0,255}$")
KEY_PAIR_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Notification(_Nested):
    """`spec.notification`: an SMN topic told of the job's events (a failure is heard of after `up` exits)."""

    topic_urn: str = Field(description="SMN topic URN: urn:smn:<region>:<project_id>:<topic>.",
                           pattern=TOPIC_URN_RE.pattern)
    events: list[str] = Field(min_length=1, description=f"Events to report: {', '.join(NOTIFICATION_EVENTS)}.")

    @field_validator("events")
    @classmethod
    def _known_and_distinct(cls, value: list[str]) -> list[str]:
        unknown = [e for e in value if e not in NOTIFICATION_EVENTS]
        if unknown:
            raise ValueError(f"has unknown event(s) {', '.join(unknown)}; ModelArts reports "
                             f"{', '.join(NOTIFICATION_EVENTS)}")
        repeated = sorted({e for e in value if value.count(e) > 1})
        if repeated:
            raise ValueError(f"lists {', '.join(repeated)} more than once")
        return value


class RequiredAffinity(_Nested):
    """`spec.schedule_policy.required_affinity`: hard placement of the job's tasks in a dedicated pool."""

    affinity_type: Literal["cabinet", "hyperinstance", "networkTopology"] = Field(
        description="cabinet (whole cabinet), hyperinstance (within supernodes) or networkTopology.")
    affinity_group_size: int | None = Field(
        None, ge=1, description="Tasks placed together in one supernode; required with hyperinstance and "
        "networkTopology.")
    job_level: Literal["cluster", "hyperinstanceGroup"] | None = Field(
        None, description="networkTopology only: the highest node group level the whole job may span.")
    affinity_group_level: Literal["hyperinstance", "slice"] | None = Field(
        None, description="networkTopology only: the highest level one affinity group may span.")

    @model_validator(mode="after")
    def _consistent(self) -> RequiredAffinity:
        if self.affinity_type != "cabinet" and self.affinity_group_size is None:
            raise ValueError(f"affinity_group_size is required with affinity_type {self.affinity_type}")
        if self.affinity_type != "networkTopology" and (self.job_level or self.affinity_group_level):
            raise ValueError("job_level and affinity_group_level apply only to affinity_type networkTopology")
        return self


def key_pair_problems(names: list[str] | None) -> list[tuple[str, str]]:
    """SSH key pair names as ECS gives them (1-64 letters, digits, _ or -), each once."""
    out: list[tuple[str, str]] = []
    for i, name in enumerate(names or []):
        if not KEY_PAIR_RE.match(name):
            out.append((f"ssh_key_pair_names[{i}]", f"{name!r} is not an ECS key pair name (1-64 letters, digits, "
                                                    "_ or -)"))
        elif name in (names or [])[:i]:
            out.append((f"ssh_key_pair_names[{i}]", f"{name} is listed twice"))
    return out


class TaskExit(_Nested):
    """How one task of a job ended (`status.task_statuses[]`): what to read first when a run failed."""

    task: str = Field(description="Task name, e.g. worker-0.")
    exit_code: int | None = Field(None, description="The task's exit code (0 when it succeeded).")
    message: str | None = Field(None, description="The platform's message about the task's end.")
