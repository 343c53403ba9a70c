"""What the emulator knows of the Alaya NeW Open API: paths, status names, business codes, limits.

Written from ``shared/api.md`` (Part A and its adopted contract table) and seed 000, independently of
any client: a client's copy of these facts is checked against this one by a test, so a wrong value on
either side shows as a disagreement instead of passing on both. Paths are relative to a prefix in
``PREFIXES``; ``{task_id}`` names the task in a path.
"""

from __future__ import annotations

from typing import Final

# --- prefixes ------------------------------------------------------------------------------------------
PREFIX: Final = "/v1"  # api.md A.0: every documented page writes https://api.alayanew.com/v1/...
GATEWAY_PREFIX: Final = "/api/osm"  # api.md A.0 [3P]: the gateway answers JSON under /api/osm/v1/...
PREFIXES: Final = (PREFIX, GATEWAY_PREFIX + PREFIX)

# --- paths (under a prefix) ----------------------------------------------------------------------------
CREATE: Final = "/subscription/training/create"  # seed 000, POST: data is the resultKey
RESULT: Final = "/subscription/training/result"  # adopted contract table, GET ?resultKey=K
RESULT_BY_KEY: Final = RESULT + "/{result_key}"  # api.md A.2: the path form is accepted too
TASK_DETAIL: Final = "/training/instance/{task_id}/detail"  # adopted (A.4 [INF]), GET
TASK_STOP: Final = "/training/instance/{task_id}/stop"  # adopted (A.4 [INF]), POST
TASK_DELETE: Final = "/training/instance/{task_id}/delete"  # adopted (A.4 [INF]), DELETE
TASK_LIST: Final = "/training/instance/list"  # A.4 [3P], GET ?pageNo&pageSize&name= (exact name)
CHECK_ENABLED: Final = "/training/instance/checkIsEnabled"  # A.3 [DOC], GET ?aidcId
PRODUCTS: Final = "/product/list-for-training-task"  # A.3 [DOC], GET ?aidcId
STORAGES: Final = "/nasStorage/instance/tenant/page"  # A.3 [INF], GET ?pageNo&pageSize
MAX_PAGE_SIZE: Final = 100  # adopted: the largest pageSize a listing accepts (a 3P client asks for 100)

# --- subscription (resultKey) states: api.md A.5 [INF] ---------------------------------------------------
SUB_PROCESSING: Final = "PROCESSING"
SUB_SUCCESS: Final = "SUCCESS"
SUB_FAILED: Final = "FAILED"

# --- training task states: api.md A.5 (the proposed machine; matched case-insensitively) -----------------
TASK_QUEUED: Final = "QUEUED"
TASK_STARTING: Final = "STARTING"
TASK_RUNNING: Final = "RUNNING"
TASK_SUCCEEDED: Final = "SUCCEEDED"
TASK_FAILED: Final = "FAILED"
TASK_STOPPED: Final = "STOPPED"  # after a user stop or a timeout cancel
TASK_PAUSED: Final = "PAUSED"  # A.4: the console pauses a task; the emulator never does
TASK_DELETING: Final = "DELETING"  # adopted: shown between DELETE and the task's removal
TASK_STATES: Final = (TASK_QUEUED, TASK_STARTING, TASK_RUNNING, TASK_SUCCEEDED, TASK_FAILED, TASK_STOPPED,
                      TASK_PAUSED, TASK_DELETING)
STOPPABLE: Final = (TASK_QUEUED, TASK_STARTING, TASK_RUNNING)  # A.5: RUNNING|QUEUED -> STOPPED on a stop
TERMINAL: Final = (TASK_SUCCEEDED, TASK_FAILED, TASK_STOPPED)  # A.5: nothing follows but a retry or delete

# --- business codes in the {status, message, data} envelope: api.md A.0 / A.7 #5 ------------------------
OK: Final = 200  # seed 000: status 200 is success (for create: accepted)
BAD_REQUEST: Final = 400  # adopted: a refused create body
FORBIDDEN: Final = 403  # seed 000: {"status":403,"message":"Forbidden","data":{}}
NOT_FOUND: Final = 404  # adopted contract table: an unknown id or resultKey
CONFLICT: Final = 409  # adopted: stop of an ended task, delete of a running one
LOGIN_EXPIRED: Final = 40401  # A.0 [3P]: HTTP 401, no credentials
API_KEY_NOT_FOUND: Final = 40006  # A.0 [3P]: HTTP 401, an unknown key

# --- NAS storages: api.md A.3 [DOC] ---------------------------------------------------------------------
STORAGE_TYPES: Final = ("nas-capacity", "nas-performance")
STORAGE_ACTIVE: Final = "Active"
STORAGE_PROVISIONING: Final = "Provisioning"

# --- the create body: seed 000's field table (api.md A.1, A.7) -------------------------------------------
CREATE_TYPES: Final = ("DIRECT", "COPY", "TEMPLATE")
TRAINING_TYPES: Final = ("pre_training", "hpc")  # the table writes pre_training / HPC: any case is accepted
IMAGE_TYPES: Final = ("general", "application", "private")
FRAMEWORKS: Final = ("pytorch", "deepspeed", "mpi", "tensorflow")  # sent as trainingFramwork (sic)
DEFAULT_PRIORITY: Final = 3  # seed 000: 1-3, a lower number runs first, default 3
# Ranges (inclusive). The seed documents priority's only; the others are adopted bounds of the contract.
PRIORITY: Final = (1, 3)
NAME_MAX: Final = 64
DESC_MAX: Final = 1024
WORKER_COUNT: Final = (1, 512)  # workerCount: nodes, 1 = a single machine
MAX_RETRY_COUNT: Final = (0, 10)  # maxRetryCount, read only when enableAutoRetry is true
TIMEOUT_HOURS: Final = (1, 24 * 90)  # timeoutHours, required when enableTimeoutCancel is true
