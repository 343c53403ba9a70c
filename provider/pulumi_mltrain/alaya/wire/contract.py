"""The Alaya NeW API contract in one place: paths, status names, business codes.

The create call is documented (seed 000); the subscription result, task detail, stop, delete,
list and storage listing are not public, so these are the adopted contract of shared/api.md. A
correction from real traffic is a one-line change here, and the emulator serves the same paths.
"""

from __future__ import annotations

CREATE = "/v1/subscription/training/create"
RESULT = "/v1/subscription/training/result"  # ?resultKey=K
DETAIL = "/v1/training/instance/{id}/detail"
STOP = "/v1/training/instance/{id}/stop"
DELETE = "/v1/training/instance/{id}/delete"
LIST = "/v1/training/instance/list"  # ?pageNo&pageSize&name=
PRODUCTS = "/v1/product/list-for-training-task"
STORAGES = "/v1/nasStorage/instance/tenant/page"  # ?pageNo&pageSize
# LIST's `name` is an exact match: look-ups by prefix or status page through LIST and filter the rows.
# Logs: the platform documents no task log or event API (neither the seed nor shared/api.md), so the
# provider offers no Alaya logs function; when one is published, its path goes here.

# Subscription (resultKey) states.
SUB_PROCESSING, SUB_SUCCESS, SUB_FAILED = "PROCESSING", "SUCCESS", "FAILED"

# Training task states (matched case-insensitively).
QUEUED, STARTING, RUNNING = "QUEUED", "STARTING", "RUNNING"
SUCCEEDED, FAILED, STOPPED, PAUSED, DELETING = "SUCCEEDED", "FAILED", "STOPPED", "PAUSED", "DELETING"
LIVE = frozenset({QUEUED, STARTING, RUNNING, PAUSED})
TERMINAL = frozenset({SUCCEEDED, FAILED, STOPPED})
# What each `wait_for` target accepts as reached, and what means it never will be (same semantics as
# ModelArts: a task that fails or stops first is an error, and is rolled back).
REACHED = {"running": frozenset({RUNNING, SUCCEEDED}), "completed": frozenset({SUCCEEDED})}
NEVER = frozenset({FAILED, STOPPED, PAUSED, DELETING})
# Not run yet, what `max_pending_minutes` bounds: QUEUED waits for resources, STARTING has them and is
# being set up (image pull, containers); both are time before the training runs.
BEFORE_RUNNING = frozenset({QUEUED, STARTING})

# Spellings of the create call's enum fields. The seed's field table writes trainingType as
# `pre_training` / `HPC` and trainingFramwork in lower case; its curl example writes PRE_TRAINING and
# PyTorch. The provider sends the field table's spelling (the emulator, like the platform is expected
# to, accepts any case) and accepts any case from users and answers.
TRAINING_TYPES = {"PRE_TRAINING": "pre_training", "HPC": "HPC"}
CREATE_TYPES_SUPPORTED = ("DIRECT",)  # COPY and TEMPLATE need a source the create body cannot name

# Business codes in the {status, message, data} envelope.
OK = 200
NOT_FOUND = 404
CONFLICT = 409  # a call refused in the task's status: stop of an ended task, delete of a running one
STORAGE_ACTIVE = "Active"
STORAGE_TYPES = ("nas-capacity", "nas-performance")

# Limits of the create call, enforced by the provider at preview and by the emulator alike.
NAME_MAX = 64
DESC_MAX = 1024
WORKER_COUNT = (1, 512)
PRIORITY = (1, 3)
MAX_RETRY_COUNT = (0, 10)
TIMEOUT_HOURS = (1, 24 * 90)

# The owner mark (see pulumi_mltrain/ownership.py). Seed 000 documents only the create call: its body
# has no labels or tags, and no call changes a task after its create, so the mark travels in the one
# free-form map the body has, `env` (an environment variable of the task). The task detail and list
# are not public (shared/api.md A.4; the list rows a third-party client reads carry no `env`): we
# assume the detail returns `env` as sent, as the console shows a task's variables. Where an answer
# carries no `env`, a task is still recognised as this resource's under the name the provider chose
# for it (a hash of the stack's identity and the URN); one under a name the user chose is refused with
# the way to adopt it (the emulator's `alaya_detail_env=false` serves that answer, and
# tests/inprocess/test_ownership_answers.py covers it).
# The provider adds the variable to every create, hides it from diffs, and refuses it as a
# user-declared variable. Adopted tasks (adopt_id) cannot be marked afterwards; the state records them.
OWNER_ENV = "MLTRAIN_OWNER"
# The run's run_reason, sent beside the mark at the create: a task cannot be changed afterwards, so this is
# what a kept run record (pulumi_mltrain/lifecycle/records.py) says of why its run was started. Hidden
# from diffs like the mark.
RUN_REASON_ENV = "MLTRAIN_RUN_REASON"
PROVIDER_ENV = (OWNER_ENV, RUN_REASON_ENV)

# Fields of a task detail that carry secrets and must never reach outputs or logs.
SECRET_DETAIL_KEYS = ("imagePullSecret", "password", "token", "secret")
