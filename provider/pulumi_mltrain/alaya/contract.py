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

# Subscription (resultKey) states.
SUB_PROCESSING, SUB_SUCCESS, SUB_FAILED = "PROCESSING", "SUCCESS", "FAILED"

# Training task states (matched case-insensitively).
QUEUED, STARTING, RUNNING = "QUEUED", "STARTING", "RUNNING"
SUCCEEDED, FAILED, STOPPED, PAUSED, DELETING = "SUCCEEDED", "FAILED", "STOPPED", "PAUSED", "DELETING"
LIVE = frozenset({QUEUED, STARTING, RUNNING, PAUSED})
TERMINAL = frozenset({SUCCEEDED, FAILED, STOPPED})

# Business codes in the {status, message, data} envelope.
OK = 200
NOT_FOUND = 404
STORAGE_ACTIVE = "Active"
STORAGE_TYPES = ("nas-capacity", "nas-performance")

# Fields of a task detail that carry secrets and must never reach outputs or logs.
SECRET_DETAIL_KEYS = ("imagePullSecret", "password", "token", "secret")
