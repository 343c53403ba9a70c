"""The pack's validators and policies. Importing this module starts nothing: only `PolicyPack(...)`
(in `mltrain_policies.pack.serve`) starts the gRPC server.

Every threshold comes from the policy's config schema; the schema's `default` is what the engine
applies when no `--policy-pack-config` is given, and `setting()` falls back to the same default
when a validator is called directly (unit tests). Messages start with the resource's kind and name,
then the field and the offending value; secret-looking values are masked.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from pulumi_mltrain import registry, runs
from pulumi_mltrain.cli import plan
from pulumi_mltrain.registry import Resource

from . import resources as r
from .secrets import is_secret

Args = ResourceValidationArgs | StackValidationArgs

# ----- defaults (the emulator's catalogue; override per infra repo with --policy-pack-config) -----
DEFAULT_GPUS_PER_PRODUCT: dict[str, int] = {"PRD-TRAIN-1": 8, "PRD-TRAIN-2": 4, "PRD-QTT": 1, "PRD-CPU-1": 0}
DEFAULT_GPUS_PER_FLAVOR: dict[str, int] = {
    "modelarts.vm.cpu.8u": 0, "modelarts.vm.gpu.v100": 1, "modelarts.vm.gpu.8v100": 8,
}
DEFAULT_SECRET_KEY_PATTERNS: list[str] = [
    # *_TOKEN, *_KEY, *_SECRET, PASSWORD, DB_PASSWORD, WANDB_API_KEY, AWS_SECRET_ACCESS_KEY, APIKEY ...
    r"(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|KEY|APIKEY|ACCESSKEY|SECRETKEY)$",
]
DEFAULT_SECRET_VALUE_PATTERNS: list[str] = [
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key ID
    r"\bgh[pousr]_[A-Za-z0-9]{36,}",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{22,}",
    r"\bhf_[A-Za-z0-9]{30,}",  # Hugging Face
    r"\bsk-[A-Za-z0-9_-]{20,}",  # OpenAI-style API keys
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack
    r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.",  # JWT
    # 32+ characters mixing upper case, lower case and digits (not hex digests, not UUIDs)
    r"^(?=[^ ]*[a-z])(?=[^ ]*[A-Z])(?=[^ ]*[0-9])[A-Za-z0-9+/=_-]{32,}$",
]


def _prop(kind: str, default: Any, description: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "default": default, "description": description, **extra}


def _strings(default: list[str], description: str) -> dict[str, Any]:
    return _prop("array", default, description, items={"type": "string"})


def _counts(default: dict[str, int], description: str) -> dict[str, Any]:
    return _prop("object", default, description, additionalProperties={"type": "integer", "minimum": 0})


def setting(args: Args, schema: PolicyConfigSchema, key: str) -> Any:
    """The configured value of `key`, else the schema's default."""
    config = args.get_config() or {}
    value = config.get(key)
    if value is None:
        value = copy.deepcopy(schema.properties[key]["default"])
    return value


def _ours(args: ResourceValidationArgs, resources: tuple[Resource, ...]) -> r.Ours | None:
    """The resource when it is one of `resources` (registry entries), in whichever form it was declared."""
    job = r.ours(args.resource_type, args.name, args.props, args.opts)
    return job if job is not None and job.entry in resources else None


def _report(report: ReportViolation, job: r.Ours, message: str) -> None:
    report(f"{job.label}: {message}", None)


def _listing(values: list[str]) -> str:
    return ", ".join(values) if values else "(none)"


# ===== training-job-timeout ==========================================================================
TIMEOUT_SCHEMA = PolicyConfigSchema(properties={
    "maxTimeoutHours": _prop("number", 72, "Longest time limit a training job may have, in hours.",
                             exclusiveMinimum=0),
})


def validate_timeout(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, r.TRAINING_JOBS)
    if job is None:
        return
    limit = r.number(setting(args, TIMEOUT_SCHEMA, "maxTimeoutHours"))
    timeout = r.timeout_of(job)
    if timeout.hours is None:
        _report(report, job, f"has no timeout: {timeout.detail}; {r.timeout_hint(job.run)} of at most "
                f"{r.fmt(limit)} h")
    elif limit is not None and timeout.hours > limit:
        _report(report, job, f"{timeout.source} = {r.fmt(r.number(round(timeout.hours, 2)))} h exceeds "
                f"the maximum of {r.fmt(limit)} h (maxTimeoutHours)")


# ===== allowed-image-registries =====================================================================
REGISTRY_SCHEMA = PolicyConfigSchema(properties={
    "allowedRegistries": _strings(
        ["harbor.zetyun.cn", "swr.cn-north-4.myhuaweicloud.com"],
        "Registry hosts, or host/path prefixes, images may come from (matched by whole path segments)."),
})


def registry_of(image: str) -> str:
    """The registry host of an image reference (`docker.io` when it names none)."""
    first, _, rest = image.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        return first
    return "docker.io (implicit)"


def image_allowed(image: str, allowed: list[str]) -> str | None:
    """The entry of `allowed` that `image` comes from, if any."""
    ref = image.strip().lower().removeprefix("docker://")
    for entry in allowed:
        prefix = str(entry).strip().lower().removeprefix("https://").removeprefix("http://").rstrip("/")
        if prefix and (ref == prefix or ref.startswith(prefix + "/")):
            return str(entry)
    return None


def validate_registries(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, r.WITH_IMAGE)
    if job is None:
        return
    name, image = r.image_of(job)
    if image is None:  # ModelArts: the engine's preset image
        return
    allowed = [str(a) for a in setting(args, REGISTRY_SCHEMA, "allowedRegistries")]
    if image_allowed(image, allowed) is None:
        _report(report, job, f"{name} '{image}' comes from {registry_of(image)}, which is not an allowed "
                f"registry (allowedRegistries: {_listing(allowed)})")


# ===== max-nodes-per-job =============================================================================
NODES_SCHEMA = PolicyConfigSchema(properties={
    "maxNodes": _prop("integer", 16, "Most nodes one training job may use (Alaya worker_count, "
                      "ModelArts node_count).", minimum=1),
})


def validate_nodes(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, r.TRAINING_JOBS)
    if job is None:
        return
    limit = r.number(setting(args, NODES_SCHEMA, "maxNodes"))
    name, count = r.node_count(job)
    if count is not None and limit is not None and count > limit:
        _report(report, job, f"{name} = {r.fmt(count)} exceeds the maximum of {r.fmt(limit)} "
                f"node{'' if limit == 1 else 's'} (maxNodes)")


# ===== read-only-dataset-mounts =====================================================================
MOUNTS_SCHEMA = PolicyConfigSchema(properties={
    "writableMountPaths": _strings(
        ["/root/nas/checkpoints", "/root/nas/outputs"],
        "Mount paths (and the paths below them) that may be mounted read-write; all others read-only."),
})


def validate_mounts(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, (registry.ALAYA_MOUNT, registry.ALAYA_JOB))
    if job is None:
        return
    if job.entry == registry.ALAYA_MOUNT:
        mounts: list[tuple[str, Any]] = [("", job.props)]
    else:
        # Mounts from StorageMount.mount are unknown during a preview: the StorageMount itself is checked.
        mounts = [(f"storage_mounts[{i}].", m) for i, m in r.items(r.get(job.props, "storage_mounts"))]
    writable = [str(p) for p in setting(args, MOUNTS_SCHEMA, "writableMountPaths")]
    for where, mount in mounts:
        if not isinstance(mount, Mapping):
            continue
        try:
            # Fields reads the platform's spelling too (storageId, onlyRead, ...): NasMount accepts it.
            read_only = r.get(mount, "read_only")
            path = r.get(mount, "mount_path")
            source = f"{r.get(mount, 'storage_id')}:{r.get(mount, 'file_directory')}"
        except UnknownValueError:
            continue
        if read_only is None or r.truthy(read_only) or path is None:
            continue  # read-only is the default
        if r.path_within(str(path), writable) is None:
            _report(report, job, f"{where}mount_path '{path}' (storage {source}) is mounted read-write "
                    f"(read_only=false); only these paths may be writable: {_listing(writable)} "
                    "(writableMountPaths)")


# ===== no-plaintext-secrets ==========================================================================
SECRETS_SCHEMA = PolicyConfigSchema(properties={
    "secretKeyPatterns": _strings(DEFAULT_SECRET_KEY_PATTERNS,
                                  "Regular expressions (case-insensitive) for variable names that hold credentials."),
    "secretValuePatterns": _strings(DEFAULT_SECRET_VALUE_PATTERNS,
                                    "Regular expressions for values shaped like credentials."),
    "allowedPlaintextKeys": _strings([], "Variable names exempt from this rule."),
})


def mask(value: str) -> str:
    """Enough of a value to find it, not enough to use it."""
    return f"'{value[:3]}…' ({len(value)} chars)" if len(value) > 6 else f"'{'*' * len(value)}'"


def _compile(patterns: list[str], flags: int) -> tuple[list[re.Pattern[str]], list[str]]:
    compiled, bad = [], []
    for pattern in patterns:
        try:
            compiled.append(re.compile(str(pattern), flags))
        except re.error as err:
            bad.append(f"{pattern!r} ({err})")
    return compiled, bad


def secret_reason(key: str, value: str, key_patterns: list[re.Pattern[str]],
                  value_patterns: list[re.Pattern[str]]) -> str | None:
    """Why a plaintext variable looks like a credential, or None."""
    if any(p.search(key) for p in key_patterns):
        return "its name looks like a credential"
    if any(p.search(value) for p in value_patterns):
        return "its value is shaped like a credential"
    return None


def validate_secrets(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """Plaintext credentials in the environment. The plugin form's marks are the plugin's: a map with
    any secret value, and ModelArts `environments` always, arrive wholly secret (policy/README.md)."""
    job = r.ours(args.resource_type, args.name, args.props, args.opts)
    if job is None or job.entry.env is None:
        return
    env_field = job.entry.env
    key_patterns, bad_keys = _compile(setting(args, SECRETS_SCHEMA, "secretKeyPatterns"), re.IGNORECASE)
    value_patterns, bad_values = _compile(setting(args, SECRETS_SCHEMA, "secretValuePatterns"), 0)
    if bad_keys or bad_values:
        _report(report, job, "invalid regular expression(s) in the policy config: "
                + ", ".join(bad_keys + bad_values))
    allowed = {str(k) for k in setting(args, SECRETS_SCHEMA, "allowedPlaintextKeys")}
    for key, value in r.entries(r.get(job.props, env_field)):
        if not isinstance(value, str) or not value or is_secret(value) or key in allowed:
            continue
        reason = secret_reason(key, value, key_patterns, value_patterns)
        if reason:
            _report(report, job, f"{env_field}.{key} = {mask(value)} is plaintext but {reason}; wrap it in "
                    "pulumi.Output.secret(...) or read it with pulumi.Config().require_secret(...)")


# ===== auto-retry-bounded (advisory) =================================================================
RETRY_SCHEMA = PolicyConfigSchema(properties={
    "maxRetryCount": _prop("integer", 5, "Largest max_retry_count an auto-retrying job may have.", minimum=1),
})


def validate_retry(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, (registry.ALAYA_JOB,))
    if job is None:
        return
    limit = r.number(setting(args, RETRY_SCHEMA, "maxRetryCount"))
    count = r.number(r.get(job.props, "max_retry_count"))
    enabled_raw = r.get(job.props, "enable_auto_retry")
    enabled = r.truthy(enabled_raw) if enabled_raw is not None else count is not None
    if not enabled:
        _report(report, job, f"auto-retry is off (enable_auto_retry); set max_retry_count between 1 and "
                f"{r.fmt(limit)} so that a node failure does not end the run")
    elif count is None:
        _report(report, job, f"enable_auto_retry is on without max_retry_count; bound it (1 to {r.fmt(limit)})")
    elif count < 1 or (limit is not None and count > limit):
        _report(report, job, f"max_retry_count = {r.fmt(count)} is outside 1 to {r.fmt(limit)} (maxRetryCount)")


# ===== description-present (advisory) ================================================================
DESCRIPTION_SCHEMA = PolicyConfigSchema(properties={
    "minLength": _prop("integer", 1, "Fewest non-blank characters a description must have.", minimum=1),
})


def validate_description(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = r.ours(args.resource_type, args.name, args.props, args.opts)
    if job is None or "description" not in job.props.model.model_fields:
        return
    minimum = r.number(setting(args, DESCRIPTION_SCHEMA, "minLength")) or 1
    text = str(r.get(job.props, "description") or "").strip()
    if not text:
        _report(report, job, "has no description; say what it trains and who owns it")
    elif len(text) < minimum:
        _report(report, job, f"description '{text}' is shorter than {r.fmt(minimum)} characters (minLength)")


# ===== modelarts-allowed-flavors ====================================================================
FLAVORS_SCHEMA = PolicyConfigSchema(properties={
    "allowedFlavors": _strings(sorted(DEFAULT_GPUS_PER_FLAVOR), "ModelArts flavor IDs jobs may use."),
})


def validate_flavors(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, (registry.MODELARTS_JOB,))
    if job is None:
        return
    flavor = r.get(job.props, "flavor_id")
    if flavor is None:  # a dedicated pool decides the node type
        return
    allowed = [str(f) for f in setting(args, FLAVORS_SCHEMA, "allowedFlavors")]
    if str(flavor) not in allowed:
        _report(report, job, f"flavor_id '{flavor}' is not allowed (allowedFlavors: {_listing(allowed)})")


# ===== modelarts-log-export ==========================================================================
LOG_EXPORT_SCHEMA = PolicyConfigSchema(properties={
    "allowedPrefixes": _strings([], "OBS locations log_export_path must lie in, e.g. obs://audit-logs/ "
                                "(empty: any OBS location)."),
})


def validate_log_export(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, (registry.MODELARTS_JOB,))
    if job is None:
        return
    path = r.get(job.props, "log_export_path")
    prefixes = [str(p) for p in setting(args, LOG_EXPORT_SCHEMA, "allowedPrefixes")]
    if not path:
        _report(report, job, "has no log_export_path; set an OBS directory so the logs outlive the job")
        return
    # The provider's check turns obs://bucket/dir into /bucket/dir: compare in that form.
    if prefixes and r.path_within(r.obs_path(str(path)), [r.obs_path(p) for p in prefixes]) is None:
        _report(report, job, f"log_export_path '{path}' is not inside {' or '.join(prefixes)} (allowedPrefixes)")


# ===== gpu-hours-budget (stack) =====================================================================
BUDGET_SCHEMA = PolicyConfigSchema(properties={
    "maxGpuHours": _prop("number", 2000, "Most GPU-hours (GPUs per node x nodes x timeout hours) all training "
                         "jobs of the stack may add up to.", minimum=0),
    "gpusPerProduct": _counts(DEFAULT_GPUS_PER_PRODUCT, "GPUs per node of each Alaya product code, used only "
                              "when a job has no gpus_per_node from the platform's catalogue (a preview "
                              "without credentials); entries add to / override the defaults."),
    "gpusPerFlavor": _counts(DEFAULT_GPUS_PER_FLAVOR, "GPUs per node of each ModelArts flavor, used only when a "
                             "job has no gpus_per_node from the platform's catalogue; entries add to / "
                             "override the defaults."),
    "unknownGpusPerNode": _prop("integer", 8, "GPUs per node assumed for a product or flavor neither in the "
                                "catalogue nor in the maps (marked 'assumed' in the breakdown).", minimum=0),
})

# Where a job's GPUs per node came from, as the breakdown names it.
FROM_CATALOGUE = "catalogue"
ASSUMED = "assumed"
# The map of this policy's config that gives a node's GPUs, by the input that fixes them (a job's
# `RunFacts.node_type`); a job of another node type takes unknownGpusPerNode.
GPU_MAPS = {"product_code": "gpusPerProduct", "flavor_id": "gpusPerFlavor"}


@dataclass
class JobCost:
    """One line of the GPU-hours breakdown."""

    label: str
    spec: str
    gpus: float
    nodes: float
    hours: float | None
    source: str = FROM_CATALOGUE
    timeout_source: str = ""
    cost_per_hour: float | None = None

    @property
    def gpu_hours(self) -> float | None:
        if self.gpus == 0 or self.nodes == 0:
            return 0
        return None if self.hours is None else self.gpus * self.nodes * self.hours

    @property
    def assumed(self) -> bool:
        return self.source == ASSUMED

    def line(self) -> str:
        gpus = f"{r.fmt(self.gpus)} GPU/node ({self.source})"
        hours = "no timeout" if self.hours is None else f"{r.fmt(r.number(round(self.hours, 2)))} h"
        total = "unbounded" if self.gpu_hours is None else r.fmt(r.number(round(self.gpu_hours, 2)))
        nodes = f"{r.fmt(self.nodes)} node{'' if self.nodes == 1 else 's'}"
        cost = "" if self.cost_per_hour is None else f"; est. {r.fmt(r.number(round(self.cost_per_hour, 2)))}/h"
        return f"{self.label}: {self.spec} {gpus} x {nodes} x {hours} = {total} GPU-h{cost}"


@dataclass
class Budget:
    limit: float
    jobs: list[JobCost] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(j.gpu_hours or 0 for j in self.jobs)

    @property
    def unbounded(self) -> list[JobCost]:
        return [j for j in self.jobs if j.gpu_hours is None]


def gpu_budget(args: StackValidationArgs) -> Budget:
    maps = {"gpusPerProduct": {**DEFAULT_GPUS_PER_PRODUCT, **(setting(args, BUDGET_SCHEMA, "gpusPerProduct") or {})},
            "gpusPerFlavor": {**DEFAULT_GPUS_PER_FLAVOR, **(setting(args, BUDGET_SCHEMA, "gpusPerFlavor") or {})}}
    fallback = r.number(setting(args, BUDGET_SCHEMA, "unknownGpusPerNode")) or 0
    budget = Budget(limit=r.number(setting(args, BUDGET_SCHEMA, "maxGpuHours")) or 0)
    for res in args.resources:
        job = r.ours(res.resource_type, res.name, res.props, res.opts)
        if job is None or job.entry.run is None:
            continue  # dynamic and plugin jobs count alike
        try:
            spec_field, spec = r.node_spec(job)
            _, nodes = r.node_count(job)
            timeout = r.timeout_of(job)
        except UnknownValueError as err:
            budget.unknown.append(f"{job.label} ({err.message})")
            continue
        gpus, source = _catalogue_number(job.props, "gpus_per_node"), FROM_CATALOGUE
        if gpus is None:  # no catalogue figure (a preview without credentials): the pack's own map
            key = GPU_MAPS.get(spec_field, "")
            table = maps.get(key, {})
            if spec is not None and spec in table:
                gpus, source = r.number(table[spec]), key
            else:
                gpus, source = fallback, ASSUMED
        price = job.run.price
        budget.jobs.append(JobCost(job.label, spec or f"({spec_field} unset)", gpus or 0, nodes or 0,
                                   timeout.hours, source, timeout.source,
                                   _catalogue_number(job.props, price) if price is not None else None))
    return budget


def _catalogue_number(props: Mapping[str, Any], key: str) -> float | None:
    """An output the provider derives from the platform's catalogue at check; None when absent or unknown."""
    try:
        return r.number(r.get(props, key))
    except UnknownValueError:
        return None


def validate_gpu_budget(args: StackValidationArgs, report: ReportViolation) -> None:
    budget = gpu_budget(args)
    over = budget.total > budget.limit
    if not (over or budget.unbounded):
        return
    head = (f"{'unbounded' if budget.unbounded else r.fmt(r.number(round(budget.total, 2)))} GPU-hours exceed "
            f"the budget of {r.fmt(budget.limit)} GPU-hours (maxGpuHours)")
    if budget.unbounded:
        head += "; jobs without a timeout: " + ", ".join(j.label for j in budget.unbounded)
    lines = [head, "breakdown (GPUs per node (source: catalogue = the platform's product/flavor list, "
                   "gpusPerProduct/gpusPerFlavor = this pack's config, assumed = unknownGpusPerNode) "
                   "x nodes x timeout hours):"]
    lines += [f"  {j.line()}" for j in budget.jobs]
    lines.append(f"  total: {r.fmt(r.number(round(budget.total, 2)))} GPU-h of bounded jobs")
    if budget.unknown:
        lines.append("  not counted (unknown during preview): " + "; ".join(budget.unknown))
    report("\n".join(lines), None)


# ===== new-run-budget (stack) =======================================================================
def _cap(description: str) -> dict[str, Any]:
    return {"type": ["number", "null"], "default": None, "minimum": 0, "description": description}


NEW_RUN_SCHEMA = PolicyConfigSchema(properties={
    "maxNewGpuHours": _cap("Most GPU-hours (GPUs x timeout hours) the runs one update starts may take; a new GPU "
                           "run without a timeout, or of unknown GPUs, exceeds any cap. null: no cap."),
    "maxNewCost": _cap("Most the runs one update starts may cost (cost per hour x timeout hours), counting the runs "
                       "whose price is known (Alaya NeW's catalogue; ModelArts has no price). null: no cap."),
    "noStopRunning": _prop("boolean", False, "Refuse an update that replaces a training job: a stack policy cannot "
                           "see the replaced job's status, so every replace counts as stopping a running job."),
})


NEW_RUN_KEYS = {"max_gpu_hours": "maxNewGpuHours", "max_cost": "maxNewCost", "no_stop_running": "noStopRunning"}


def new_runs(args: StackValidationArgs) -> plan.Impact:
    """The runs the previewed update starts, counted as `mltrain-plan` counts them (pulumi_mltrain.cli.plan).

    A stack policy is given no step, so the provider marks the jobs whose step starts a run in the
    preview: `run_starts` (runs.RUN_STARTS), on a job the update creates or replaces, never on one it
    leaves alone or changes in place. A job counts when it carries the mark and its `run_reason` starts
    a run (an adopted job starts none). A replaced job's recorded status is not given here."""
    impact = plan.Impact(plan.stack_of(args.resources[0].urn) if args.resources else "")
    for res in args.resources:
        job = r.ours(res.resource_type, res.name, res.props, res.opts)
        if job is None or job.entry.run is None:
            continue
        try:
            if r.get(job.props, runs.RUN_STARTS) is not True:
                continue  # not a step that starts a run: left alone, or changed in place
            run = plan.run_of(job.kind, job.name, job.props)
        except UnknownValueError as err:
            impact.unknown.append(f"{job.label} ({err.message})")
            continue
        if run is None:
            continue
        impact.runs.append(run)
        if run.replaces:
            impact.stops.append(plan.Stop(job.name, job.kind, None, "replaced"))
    return impact


def validate_new_runs(args: StackValidationArgs, report: ReportViolation) -> None:
    caps = plan.Caps(r.number(setting(args, NEW_RUN_SCHEMA, "maxNewGpuHours")),
                     r.number(setting(args, NEW_RUN_SCHEMA, "maxNewCost")),
                     r.truthy(setting(args, NEW_RUN_SCHEMA, "noStopRunning")))
    impact = new_runs(args)
    breaches = impact.breaches(caps)
    if not breaches:
        return
    lines = [f"{text} ({NEW_RUN_KEYS[cap]})" for cap, text in breaches]
    lines += [f"  {line}" for line in plan.table([plan.HEADER, *(run.row() for run in impact.runs)])]
    lines += [f"  {line}" for line in impact.summary()]
    report("\n".join(lines), None)


# ===== modelarts-failure-notification ==================================================================
NOTIFICATION_SCHEMA = PolicyConfigSchema(properties={
    "notifyAboveGpus": _prop("integer", 16, "ModelArts jobs with more GPUs than this (GPUs per node x nodes) must "
                             "tell an SMN topic of their events (notification).", minimum=0),
    "requiredEvents": _strings(["JobFailed"], "Events such a job's notification must include."),
    "gpusPerFlavor": _counts(DEFAULT_GPUS_PER_FLAVOR, "GPUs per node of each flavor, used only when a job has no "
                             "gpu_count from the platform's catalogue; entries add to / override the defaults."),
})


def job_gpus(args: ResourceValidationArgs, job: r.Ours) -> float | None:
    """The job's GPUs: the catalogue's gpu_count, else this policy's flavor map x nodes; None if unknown."""
    gpus = _catalogue_number(job.props, "gpu_count")
    if gpus is not None:
        return gpus
    flavors = {**DEFAULT_GPUS_PER_FLAVOR, **(setting(args, NOTIFICATION_SCHEMA, "gpusPerFlavor") or {})}
    _, flavor = r.node_spec(job)
    _, nodes = r.node_count(job)
    per_node = r.number(flavors.get(flavor)) if flavor is not None else None
    return None if per_node is None else per_node * (nodes or 1)


def validate_notification(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, (registry.MODELARTS_JOB,))
    if job is None:
        return
    limit = r.number(setting(args, NOTIFICATION_SCHEMA, "notifyAboveGpus")) or 0
    gpus = job_gpus(args, job)
    if gpus is None or gpus <= limit:
        return
    wanted = [str(e) for e in setting(args, NOTIFICATION_SCHEMA, "requiredEvents")]
    notification = r.get(job.props, "notification")
    if not isinstance(notification, Mapping):
        _report(report, job, f"uses {r.fmt(gpus)} GPUs (more than {r.fmt(limit)}, notifyAboveGpus) without a "
                f"notification; set notification={{topic_urn, events: [{_listing(wanted)}]}} so that a failure "
                "is heard of after `pulumi up` has exited")
        return
    events = {str(e) for _, e in r.items(r.get(notification, "events"))}
    missing = [e for e in wanted if e not in events]
    if missing:
        _report(report, job, f"notification.events lacks {_listing(missing)} (requiredEvents), required for a "
                f"job of {r.fmt(gpus)} GPUs")


# ===== modelarts-preemptible-retry ===================================================================
PREEMPTIBLE_SCHEMA = PolicyConfigSchema(properties={
    "minRetryCount": _prop("integer", 1, "Fewest automatic restarts (retry_count) a preemptible job must have, "
                           "unless unconditional_retry is on.", minimum=1),
})


def validate_preemptible(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, (registry.MODELARTS_JOB,))
    if job is None or not r.truthy(r.get(job.props, "preemptible")):
        return
    if r.truthy(r.get(job.props, "unconditional_retry")):
        return
    minimum = r.number(setting(args, PREEMPTIBLE_SCHEMA, "minRetryCount")) or 1
    count = r.number(r.get(job.props, "retry_count"))
    if count is None or count < minimum:
        _report(report, job, f"is preemptible with retry_count = {r.fmt(count)}: a preempted run would end for "
                f"good; set retry_count to at least {r.fmt(minimum)} (minRetryCount) or unconditional_retry=True")


# ===== checkpoint-for-retries (advisory) ==============================================================
CHECKPOINT_SCHEMA = PolicyConfigSchema(properties={
    "preemptible": _prop("boolean", True, "Preemptible jobs (ModelArts preemptible) must declare a checkpoint."),
    "autoRetried": _prop("boolean", True, "Jobs the platform restarts after a fault (Alaya NeW enable_auto_retry "
                         "or max_retry_count; ModelArts retry_count, unconditional_retry, hang_retry) must declare "
                         "a checkpoint."),
})


def _restarted_by(job: r.Ours, args: ResourceValidationArgs) -> list[str]:
    """The inputs by which the platform starts the job's training again (a preemption or a fault)."""
    why: list[str] = []
    if r.truthy(setting(args, CHECKPOINT_SCHEMA, "preemptible")) and r.truthy(r.get(job.props, "preemptible")):
        why.append("preemptible")
    if r.truthy(setting(args, CHECKPOINT_SCHEMA, "autoRetried")):
        if job.entry is registry.ALAYA_JOB:
            count = r.number(r.get(job.props, "max_retry_count"))
            if r.truthy(r.get(job.props, "enable_auto_retry")) or (count is not None and count > 0):
                why.append("auto-retried (enable_auto_retry)")
        else:
            count = r.number(r.get(job.props, "retry_count"))
            if count is not None and count > 0:
                why.append(f"auto-retried (retry_count = {r.fmt(count)})")
            why += [f"auto-retried ({flag})" for flag in ("unconditional_retry", "hang_retry")
                    if r.truthy(r.get(job.props, flag))]
    return why


def validate_checkpoint(args: ResourceValidationArgs, report: ReportViolation) -> None:
    job = _ours(args, (registry.ALAYA_JOB, registry.MODELARTS_JOB))
    if job is None or r.get(job.props, "checkpoint") is not None:
        return
    why = _restarted_by(job, args)
    if why:
        where = ("checkpoint={path} on a writable NAS mount" if job.entry is registry.ALAYA_JOB
                 else "checkpoint={obs_url} (an output channel predownloaded by the next run)")
        _report(report, job, f"is {' and '.join(why)} without a checkpoint: a restart only relaunches it, and "
                f"training without a checkpoint starts from scratch; set {where}, and save and reload "
                "checkpoints in the training script")


# ===== the policies ===================================================================================
Validate = Callable[[ResourceValidationArgs, ReportViolation], None]


def _resource(name: str, description: str, validate: Validate, level: EnforcementLevel, severity: Severity,
              schema: PolicyConfigSchema) -> ResourceValidationPolicy:
    return ResourceValidationPolicy(name=name, description=description, validate=validate,
                                    enforcement_level=level, config_schema=schema, severity=severity)


MANDATORY, ADVISORY = EnforcementLevel.MANDATORY, EnforcementLevel.ADVISORY

TRAINING_JOB_TIMEOUT = _resource(
    "training-job-timeout", "Every training job must have a bounded run time.",
    validate_timeout, MANDATORY, Severity.HIGH, TIMEOUT_SCHEMA)
ALLOWED_IMAGE_REGISTRIES = _resource(
    "allowed-image-registries", "Training images must come from an allowed registry.",
    validate_registries, MANDATORY, Severity.HIGH, REGISTRY_SCHEMA)
MAX_NODES_PER_JOB = _resource(
    "max-nodes-per-job", "A training job may not use more than the allowed number of nodes.",
    validate_nodes, MANDATORY, Severity.MEDIUM, NODES_SCHEMA)
READ_ONLY_DATASET_MOUNTS = _resource(
    "read-only-dataset-mounts", "Storage is mounted read-only except at the allowed writable paths.",
    validate_mounts, MANDATORY, Severity.HIGH, MOUNTS_SCHEMA)
NO_PLAINTEXT_SECRETS = _resource(
    "no-plaintext-secrets", "Credentials in job environment variables must be Pulumi secrets.",
    validate_secrets, MANDATORY, Severity.CRITICAL, SECRETS_SCHEMA)
AUTO_RETRY_BOUNDED = _resource(
    "auto-retry-bounded", "Training jobs should retry automatically, a bounded number of times.",
    validate_retry, ADVISORY, Severity.LOW, RETRY_SCHEMA)
DESCRIPTION_PRESENT = _resource(
    "description-present", "Training jobs and algorithms should have a description.",
    validate_description, ADVISORY, Severity.LOW, DESCRIPTION_SCHEMA)
MODELARTS_ALLOWED_FLAVORS = _resource(
    "modelarts-allowed-flavors", "ModelArts jobs must use an allowed flavor.",
    validate_flavors, MANDATORY, Severity.MEDIUM, FLAVORS_SCHEMA)
MODELARTS_LOG_EXPORT = _resource(
    "modelarts-log-export", "ModelArts jobs should export their logs to OBS.",
    validate_log_export, ADVISORY, Severity.LOW, LOG_EXPORT_SCHEMA)
MODELARTS_FAILURE_NOTIFICATION = _resource(
    "modelarts-failure-notification", "Large ModelArts jobs must report their events (failures) to an SMN topic.",
    validate_notification, MANDATORY, Severity.MEDIUM, NOTIFICATION_SCHEMA)
MODELARTS_PREEMPTIBLE_RETRY = _resource(
    "modelarts-preemptible-retry", "Preemptible ModelArts jobs must restart automatically after a preemption.",
    validate_preemptible, MANDATORY, Severity.MEDIUM, PREEMPTIBLE_SCHEMA)
CHECKPOINT_FOR_RETRIES = _resource(
    "checkpoint-for-retries", "Preemptible and auto-retried training jobs should keep checkpoints.",
    validate_checkpoint, ADVISORY, Severity.MEDIUM, CHECKPOINT_SCHEMA)
GPU_HOURS_BUDGET = StackValidationPolicy(
    name="gpu-hours-budget", description="The stack's training jobs must fit the GPU-hours budget.",
    validate=validate_gpu_budget, enforcement_level=MANDATORY, config_schema=BUDGET_SCHEMA,
    severity=Severity.HIGH)
NEW_RUN_BUDGET = StackValidationPolicy(
    name="new-run-budget", description="The runs one update starts must fit its caps (GPU-hours, cost, running jobs).",
    validate=validate_new_runs, enforcement_level=MANDATORY, config_schema=NEW_RUN_SCHEMA,
    severity=Severity.HIGH)

POLICIES: list[ResourceValidationPolicy | StackValidationPolicy] = [
    TRAINING_JOB_TIMEOUT, ALLOWED_IMAGE_REGISTRIES, MAX_NODES_PER_JOB, READ_ONLY_DATASET_MOUNTS,
    NO_PLAINTEXT_SECRETS, AUTO_RETRY_BOUNDED, DESCRIPTION_PRESENT, MODELARTS_ALLOWED_FLAVORS,
    MODELARTS_LOG_EXPORT, MODELARTS_FAILURE_NOTIFICATION, MODELARTS_PREEMPTIBLE_RETRY, CHECKPOINT_FOR_RETRIES,
    GPU_HOURS_BUDGET, NEW_RUN_BUDGET,
]
