"""The Huawei IAM and ModelArts v2 API contract in one place: paths, phases, error codes.

Sources: shared/api.md Part B (the OpenTelekomCloud/Huawei API reference and seed 002). Paths are
relative to the endpoints and carry the project ID; a correction from real traffic is a one-line
change here, and the emulator serves the same paths.
"""

from __future__ import annotations

from typing import Literal, get_args

PLATFORM = "Huawei ModelArts"
IAM_PLATFORM = "Huawei IAM"

# --- IAM -------------------------------------------------------------------------------------------
TOKENS = "/v3/auth/tokens"
TOKEN_HEADER = "X-Subject-Token"  # where IAM returns the token (201)
AUTH_HEADER = "X-Auth-Token"  # where ModelArts expects it
PROJECTS = "/v3/projects"  # GET ?name=<project name>: the project ID for AK/SK-signed calls

# --- ModelArts v2 (all under /v2/{project_id}) -------------------------------------------------------
PREFIX = "/v2/{project_id}"
FLAVORS = PREFIX + "/training-job-flavors"  # ?flavor_type=CPU|GPU|Ascend
ENGINES = PREFIX + "/training-job-engines"  # seed 002 writes /job/training-job-engines; the docs do not
ALGORITHMS = PREFIX + "/algorithms"  # POST create, GET list (?offset&limit&searches=name:<x>)
ALGORITHM = PREFIX + "/algorithms/{id}"  # GET, PUT (full body, answers 201), DELETE (202)
JOBS = PREFIX + "/training-jobs"  # POST create (201, phase Creating)
JOB = PREFIX + "/training-jobs/{id}"  # GET, PUT {"description"} (200 null), DELETE (202)
JOB_ACTIONS = PREFIX + "/training-jobs/{id}/actions"  # POST {"action_type": "terminate"} (202)
JOB_SEARCHES = PREFIX + "/training-job-searches"  # POST {offset (page index), limit, filters[]}
JOB_LOG_URL = PREFIX + "/training-jobs/{id}/tasks/{task}/logs/url"  # Content-Type text/plain: preview link
JOB_METRICS = PREFIX + "/training-jobs/{id}/metrics/{task}"
# A fine-tune job's artifacts (ListFtArtifacts in Huawei's API reference, 2026): GET ?offset&limit answers
# {total, artifact_info: [{artifact_type: final|middle, is_best, artifact_id (a final artifact's is the
# trained model's ID, a middle one's a checkpoint ID), asset_id and asset_name (once the model is
# published as an asset), status (of the publishing), epoch, steps, loss, create_time}]}. The job detail
# does not return spec.asset_model (Huawei's Terraform provider, "Import"): this is where the model's IDs
# are read once the job has completed.
JOB_FT_ARTIFACTS = PREFIX + "/training-jobs/{id}/ft-artifacts"
FINAL_ARTIFACT = "final"
# Log preview (api.md B.2; ShowTrainingJobLogsPreview): 200 {content, current_size, full_size}, the latest
# part of the task's log; 2776 (or a bare 204) while not ready.
JOB_LOG_PREVIEW = PREFIX + "/training-jobs/{id}/tasks/{task}/logs/preview"
# Job events (ListTrainingJobEvents in Huawei's API reference; not in api.md): ?offset&limit&order. The
# reference lists the query; the answer's shape is adopted here: {"events": [{time, level, source,
# message}], "total"} with `level` Info|Warning|Error and `source` K8S|Job|Task.
JOB_EVENTS = PREFIX + "/training-jobs/{id}/events"
EVENTS_LIMIT = 100  # the largest page the events call accepts
# How much of a failed job's log and events its create error carries.
ERROR_LOG_LINES, ERROR_LOG_BYTES, ERROR_EVENTS = 20, 4096, 5
# Job tags live beside the job (api.md B.2, third-party source): GET lists, POST .../create upserts (204).
JOB_TAGS = PREFIX + "/modelarts-training-job/{id}/tags"
JOB_TAGS_CREATE = JOB_TAGS + "/create"
JOB_TAGS_DELETE = JOB_TAGS + "/delete"  # DELETE {"tags": [{key}]} (204); other keys stay
# Automatic restarts (fault tolerance): a job annotation whose value is the count as a string.
RETRY_ANNOTATION = "fault-tolerance/job-retry-num"
# Restart after any fault, and restart a job that hangs: switches whose value is "true" or "false".
UNCONDITIONAL_RETRY_ANNOTATION = "fault-tolerance/job-unconditional-retry"
HANG_RETRY_ANNOTATION = "fault-tolerance/hang-retry"

JOB_KIND = "job"
TERMINATE = "terminate"
PAGE_LIMIT = 50  # the largest page both list calls accept

# --- training job phases (api.md B.3) ---------------------------------------------------------------
CREATING, PENDING, RUNNING, COMPLETED = "Creating", "Pending", "Running", "Completed"
FAILED, ABNORMAL, TERMINATING, TERMINATED = "Failed", "Abnormal", "Terminating", "Terminated"
PHASES = (CREATING, PENDING, RUNNING, COMPLETED, FAILED, ABNORMAL, TERMINATING, TERMINATED)
TERMINABLE = frozenset({CREATING, PENDING, RUNNING})  # terminate is accepted only here (else 409 2796)
FAILURES = frozenset({FAILED, ABNORMAL, TERMINATING, TERMINATED})  # never becomes what was asked for
SETTLED = frozenset({COMPLETED, FAILED, ABNORMAL, TERMINATED})  # nothing more will happen
BEFORE_RUNNING = frozenset({CREATING, PENDING})  # not run yet (Pending: queued for resources): max_pending_minutes

# What each `wait_for` target accepts as reached.
REACHED = {
    "accepted": frozenset({PENDING, RUNNING, COMPLETED}),
    "running": frozenset({RUNNING, COMPLETED}),
    "completed": frozenset({COMPLETED}),
}

# --- fine-tune jobs (2026: Huawei's Terraform provider huaweicloud_modelarts_training_job, and the API's
# Job.train_type in Huawei's Python SDK) -------------------------------------------------------------------
TrainType = Literal["SFT", "PRETRAIN", "LORA", "DPO", "RFT"]
TRAIN_TYPES = get_args(TrainType)

# --- limits, enforced by the provider at preview and by the emulator alike ----------------------------
MAX_DESCRIPTION = 256
MAX_ENVIRONMENTS = 100

# --- the owner mark (see pulumi_mltrain/ownership.py) -------------------------------------------------
# Training jobs keep it in their tags (JOB_TAGS), written right after the create: the job detail and
# search do not return metadata.annotations (api.md B.6 #8, from Huawei's Terraform provider), and
# Huawei documents fixed annotation keys only. Jobs made by 0.1.x kept it in annotations; their states
# record them, and a detail that returns annotations still shows it. Algorithms keep it in
# metadata.tags, which the full-body PUT rewrites: updates keep the tags, and adoption adds them.
OWNER_STACK = "mltrain-owner-stack"
OWNER_URN = "mltrain-owner-urn"
# A kept run record (pulumi_mltrain/lifecycle/records.py) carries the owner mark and these tags: when it
# was kept (epoch seconds), its run_reason (in the characters tag values allow), the run that replaced it.
RECORD_KEPT = "mltrain-record-kept"
RECORD_REASON = "mltrain-run-reason"
RECORD_REPLACED_BY = "mltrain-replaced-by"
RESUMED_FROM_TAG = "mltrain-resumed-from"  # a run that started from another's checkpoint: that run's ID
# Huawei's tag values: at most 255 characters of letters, digits, spaces and _.:/=+-@ (TMS).
TAG_VALUE_MAX = 255

# --- error codes (api.md B.4) ------------------------------------------------------------------------
JOB_NOT_FOUND = "ModelArts.2775"
ALGORITHM_NOT_FOUND = "ModelArts.2755"
NOT_FOUND_CODES = frozenset({JOB_NOT_FOUND, ALGORITHM_NOT_FOUND})
DUPLICATE_JOB_NAME = "ModelArts.2751"
DUPLICATE_ALGORITHM_NAME = "ModelArts.2821"
CANNOT_TERMINATE = "ModelArts.2796"
STATUS_CHANGED = "ModelArts.2878"
TOO_MANY_REQUESTS = "ModelArts.2799"
GATEWAY_THROTTLED = "APIG.0308"
RETRYABLE_CODES = frozenset({TOO_MANY_REQUESTS, GATEWAY_THROTTLED})
NOT_READY_CODES = frozenset({"ModelArts.2776", "ModelArts.2777"})  # logs / metrics not ready yet

METRIC_NO_DATA = -1  # a metrics sample without data
# --- custom metrics (spec.custom_metrics, 2026) ---------------------------------------------------------
# What a job's own collection (`exec` command or `http_get` path/port, Prometheus text format) gathers goes
# to AOM, not to the metrics API above: ShowTrainingJobMetrics lists the six metrics below only, and
# Huawei's guide "Viewing Monitoring Metrics of a Training Job" (develop-modelarts-1424, 2026) says custom
# metrics are tracked in AOM. AOM answers PromQL (ListRangeQueryAomPromGet): GET
# https://aom.{region}.myhuaweicloud.com/v1/{project_id}/aom/api/v1/query_range?query&start&end&step
# (seconds), X-Auth-Token or AK/SK, answering Prometheus' {status, data: {resultType: matrix, result:
# [{metric: {labels}, values: [[ts, "value"]]}]}}.
AOM_QUERY_RANGE = "/v1/{project_id}/aom/api/v1/query_range"
AOM_STEP = 60  # seconds: collection happens once a minute
AOM_MAX_POINTS = 10_000  # points per series asked for at most (the step grows for long jobs)
# The label that names the training job a series belongs to. Not documented for custom metrics: assumed from
# the dimensions ModelArts gives its own metrics in AOM (service_id: the ID of the job or instance).
AOM_JOB_LABEL = "service_id"
# Prometheus metric names (what a custom metric is called in AOM and in success_criteria).
CUSTOM_METRIC_NAME = r"^[a-zA-Z_:][a-zA-Z0-9_:]*$"

# The metrics GET .../metrics/{task_id} answers (api.md B.2, seed 002's example), one average a minute.
MetricName = Literal["cpuUsage", "memUsage", "npuUtil", "npuMemUsage", "gpuUtil", "gpuMemUsage"]
METRICS = get_args(MetricName)
