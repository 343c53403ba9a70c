"""What the emulator knows of Huawei IAM and the ModelArts v2 training API: paths, phases, codes, limits.

Written from ``shared/api.md`` Part B (Huawei's and OpenTelekomCloud's API reference, seed 002) and
Huawei's own Terraform provider, independently of any client: a client's copy of these facts is
checked against this one by a test, so a wrong value on either side shows as a disagreement instead of
passing on both. ModelArts paths are relative to ``PREFIX``.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

# --- IAM: api.md B.0 -----------------------------------------------------------------------------------
IAM_TOKENS: Final = "/v3/auth/tokens"  # POST password login: 201
IAM_PROJECTS: Final = "/v3/projects"  # GET ?name=: a project's ID for AK/SK-signed callers
TOKEN_HEADER: Final = "X-Subject-Token"  # where IAM returns the token
AUTH_HEADER: Final = "X-Auth-Token"  # where ModelArts reads it

# --- ModelArts v2 paths: api.md B.1 / B.2 (all under /v2/{project_id}) -----------------------------------
PREFIX: Final = "/v2/{project_id}"
FLAVORS: Final = "/training-job-flavors"  # GET ?flavor_type=CPU|GPU|Ascend
ENGINES: Final = "/training-job-engines"  # GET (the reference's path)
ENGINES_SEED: Final = "/job/training-job-engines"  # GET: the path as seed 002 writes it (B.6 #2)
ALGORITHMS: Final = "/algorithms"  # POST create (201), GET list ?offset (records)&limit&searches=name:<x>
ALGORITHM: Final = "/algorithms/{algorithm_id}"  # GET, PUT full body (201), DELETE (202)
JOBS: Final = "/training-jobs"  # POST create (201, phase Creating)
JOB: Final = "/training-jobs/{training_job_id}"  # GET, PUT {"description"} (200 null), DELETE (202)
JOB_ACTIONS: Final = JOB + "/actions"  # POST {"action_type": "terminate"} (202)
JOB_SEARCHES: Final = "/training-job-searches"  # POST {offset (a page index), limit, filters[]}
JOB_LOG_URL: Final = JOB + "/tasks/{task_id}/logs/url"  # GET, Content-Type text/plain: a preview link
JOB_LOG_PREVIEW: Final = JOB + "/tasks/{task_id}/logs/preview"  # GET {content, current_size, full_size}
JOB_METRICS: Final = JOB + "/metrics/{task_id}"  # GET {metrics[{metric, value[]}]}
# A fine-tune job's artifacts (ListFtArtifacts, Huawei's API reference 2026): {total, artifact_info[{artifact_type
# final|middle, is_best, artifact_id (a final artifact's: the trained model's ID), asset_id, asset_name, status,
# epoch, steps, loss, create_time}]}.
JOB_FT_ARTIFACTS: Final = JOB + "/ft-artifacts"
FINAL_ARTIFACT: Final = "final"
JOB_EVENTS: Final = JOB + "/events"  # GET ?offset&limit&order: ListTrainingJobEvents in Huawei's reference
JOB_TAGS: Final = "/modelarts-training-job/{training_job_id}/tags"  # GET (B.2 Mutability [3P])
JOB_TAGS_CREATE: Final = JOB_TAGS + "/create"  # POST {"tags": [{key, value}]}: upsert (204)
JOB_TAGS_DELETE: Final = JOB_TAGS + "/delete"  # DELETE {"tags": [{key}]} (204)

JOB_KIND: Final = "job"  # B.2: kind of a training job (visualization_job is not emulated)
TERMINATE: Final = "terminate"  # B.2: the one action_type of JOB_ACTIONS
PAGE_LIMIT: Final = 50  # B.1 / B.2: limit is 1-50 in both list calls
EVENTS_LIMIT: Final = 100  # Huawei's reference of ListTrainingJobEvents: limit 1-100
MAX_DESCRIPTION: Final = 256  # B.1 / B.2: metadata.description 0-256 characters
MAX_ENVIRONMENTS: Final = 100  # B.2: algorithm.environments, at most 100 keys
NAME_PATTERN: Final = r"^[A-Za-z0-9_-]{1,64}$"  # B.1: metadata.name, 1-64 of [A-Za-z0-9_-]

# Fault-tolerance annotations (B.6 #8, Huawei's Terraform provider docs): the restart count as a string,
# and two switches whose value is "true" or "false".
RETRY_ANNOTATION: Final = "fault-tolerance/job-retry-num"
UNCONDITIONAL_RETRY_ANNOTATION: Final = "fault-tolerance/job-unconditional-retry"
HANG_RETRY_ANNOTATION: Final = "fault-tolerance/hang-retry"

# --- the 2026 fields (Huawei's Terraform provider huaweicloud_modelarts_training_job; Huawei's Python SDK,
# huaweicloudsdkmodelarts v1 Job / Spec / MasJobConfig / CustomMetrics) ------------------------------------------
TrainType = Literal["SFT", "PRETRAIN", "LORA", "DPO", "RFT"]  # Job.train_type
TRAIN_TYPES: Final = get_args(TrainType)

# --- AOM (custom metrics) ------------------------------------------------------------------------------------
# A job's spec.custom_metrics collection (exec command or http_get path/port) goes to AOM: ModelArts' own
# metrics API lists six resource metrics only (ShowTrainingJobMetrics), and the guide "Viewing Monitoring
# Metrics of a Training Job" (develop-modelarts-1424, 2026) says custom metrics are tracked in AOM. AOM's PromQL
# range query (ListRangeQueryAomPromGet / ...Post): ?query&start&end&step, seconds; answers Prometheus'
# {status, data: {resultType, result}}. The path is not under PREFIX: AOM is a service of its own
# (aom.{region}.myhuaweicloud.com), which the emulator serves on the same port.
AOM_QUERY_RANGE: Final = "/v1/{project_id}/aom/api/v1/query_range"
# The label naming a series' training job: undocumented for custom metrics, taken from the dimensions ModelArts
# gives its own metrics in AOM (service_id: the job's ID) [INF].
AOM_JOB_LABEL: Final = "service_id"
CUSTOM_METRIC_NAME: Final = r"^[a-zA-Z_:][a-zA-Z0-9_:]*$"  # Prometheus metric names

# --- training job phases: api.md B.3 [DOC] ---------------------------------------------------------------
PHASE_CREATING: Final = "Creating"
PHASE_PENDING: Final = "Pending"
PHASE_RUNNING: Final = "Running"
PHASE_COMPLETED: Final = "Completed"
PHASE_FAILED: Final = "Failed"
PHASE_ABNORMAL: Final = "Abnormal"
PHASE_TERMINATING: Final = "Terminating"
PHASE_TERMINATED: Final = "Terminated"
PHASES: Final = (PHASE_CREATING, PHASE_PENDING, PHASE_RUNNING, PHASE_COMPLETED, PHASE_FAILED, PHASE_ABNORMAL,
                 PHASE_TERMINATING, PHASE_TERMINATED)
# B.3 [DOC]: terminate is accepted in Creating, Pending ("awaiting") and Running only; else 409 2796.
TERMINABLE: Final = (PHASE_CREATING, PHASE_PENDING, PHASE_RUNNING)
# B.3 [INF]: the phases nothing follows.
ENDED: Final = (PHASE_COMPLETED, PHASE_FAILED, PHASE_ABNORMAL, PHASE_TERMINATED)

# --- error codes: api.md B.4 / B.5 ------------------------------------------------------------------------
JOB_NOT_FOUND: Final = "ModelArts.2775"  # HTTP 400, not 404 (B.0, B.6 #5)
ALGORITHM_NOT_FOUND: Final = "ModelArts.2755"  # HTTP 400, not 404
DUPLICATE_JOB_NAME: Final = "ModelArts.2751"  # HTTP 400
DUPLICATE_ALGORITHM_NAME: Final = "ModelArts.2821"  # HTTP 400 (B.1)
INVALID_JSON: Final = "ModelArts.2787"  # HTTP 400
INVALID_PARAMETER: Final = "ModelArts.2788"  # HTTP 400
INVALID_FIELD: Final = "ModelArts.0101"  # HTTP 400
CODE_DIR_AND_BOOT_FILE: Final = "ModelArts.2757"  # HTTP 400 (B.1): code_dir and boot_file come together
BOOT_FILE_OUTSIDE: Final = "ModelArts.2758"  # HTTP 400 (B.1): boot_file not inside code_dir
PARAMETER_REPEATED: Final = "ModelArts.2767"  # HTTP 400 (B.1)
ENGINE_NOT_FOUND: Final = "ModelArts.2780"  # HTTP 400
FLAVOR_NOT_FOUND: Final = "ModelArts.2781"  # HTTP 400
NODE_COUNT_ABOVE_MAX: Final = "ModelArts.2793"  # HTTP 400
UNSUPPORTED_ACTION: Final = "ModelArts.2812"  # HTTP 400: an action_type other than terminate
CANNOT_TERMINATE: Final = "ModelArts.2796"  # HTTP 409
STATUS_CHANGED: Final = "ModelArts.2878"  # HTTP 409: a concurrent status change
TOO_MANY_REQUESTS: Final = "ModelArts.2799"  # HTTP 429, "services too many requests"
GATEWAY_THROTTLED: Final = "APIG.0308"  # B.5: the API gateway's throttling
LOG_NOT_READY: Final = "ModelArts.2776"  # 204: logs not ready yet
METRICS_NOT_READY: Final = "ModelArts.2777"  # 204: metrics not ready yet
INTERNAL_ERROR: Final = "ModelArts.0010"  # HTTP 500
TOKEN_MISSING: Final = "ModelArts.0201"  # HTTP 401 (B.4: 0201-0212)
TOKEN_INVALID: Final = "ModelArts.0203"  # HTTP 401
TOKEN_EXPIRED: Final = "ModelArts.0208"  # HTTP 401
PROJECT_MISMATCH: Final = "ModelArts.0210"  # HTTP 403: the URL's project is not the token's
METRIC_NO_DATA: Final = -1  # B.2 (seed 002's example): a metrics sample without data
# B.2 (seed 002's example answers all six, in this order): the metrics of GET .../metrics/{task_id}.
MetricName = Literal["cpuUsage", "memUsage", "npuUtil", "npuMemUsage", "gpuUtil", "gpuMemUsage"]
METRICS: Final = get_args(MetricName)
# Huawei's tag service (TMS): a tag value holds at most 255 characters.
TAG_VALUE_MAX: Final = 255
