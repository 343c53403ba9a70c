"""Constants a client of the emulator shares with it: credentials, IDs, paths, status names.

One module, so the CLI banner, the tests and other teams' fixtures cannot drift apart. Paths are the
contract adopted in ``shared/api.md``; the provider's own copy lives in its client package.
"""

from __future__ import annotations

from typing import Final

HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8790

# --- default credentials (emulator only; nothing here is a real secret) ---------------------------
DEFAULT_ALAYA_API_KEY: Final = "emulator-alaya-key"
DEFAULT_IAM_USER: Final = "mltrain-user"
DEFAULT_IAM_PASSWORD: Final = "emulator-password"
DEFAULT_IAM_DOMAIN: Final = "mltrain-domain"
# AK/SK pairs (SDK-HMAC-SHA256 signing): a permanent one, and a temporary one that needs its token.
DEFAULT_ACCESS_KEY: Final = "MLTRAINEMULATORAK001"
DEFAULT_SECRET_KEY: Final = "emulator-secret-key-0123456789abcdefghij"
TEMP_ACCESS_KEY: Final = "MLTRAINEMULATORTMP01"
TEMP_SECRET_KEY: Final = "emulator-temporary-secret-0123456789abcd"
TEMP_SECURITY_TOKEN: Final = "emulator-security-token-gQpJ9nCk2eZx"
SIGNATURE_WINDOW: Final = 15 * 60  # seconds an X-Sdk-Date may differ from the gateway's clock
IAM_PROJECTS: Final = "/v3/projects"
DEFAULT_DOMAIN_ID: Final = "0659fbf6de00109b0ff1c01fc037d240"
DEFAULT_USER_ID: Final = "7a3e5b1c9d0f4e2a8b6c1d3e5f7a9b0c"
DEFAULT_PROJECT_NAME: Final = "cn-north-4"
DEFAULT_PROJECT_ID: Final = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
# A second project the default user may scope to: a token for it must be refused on the first one.
OTHER_PROJECT_NAME: Final = "cn-south-1"
OTHER_PROJECT_ID: Final = "9e8d7c6b5a4f30211203f4a5b6c7d8e9"

# --- Alaya NeW seeded catalogue ---------------------------------------------------------------------
DEFAULT_AIDC_ID: Final = 1
STORAGE_CAPACITY_ID: Final = "72a2a885-e45e-4c79-aaf3-e1fa05abdb92"  # from seed 000
STORAGE_PERFORMANCE_ID: Final = "5c0d3f7e-1b2a-4c8d-9e6f-a7b8c9d0e1f2"
STORAGE_PROVISIONING_ID: Final = "d4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70"
PRODUCT_TRAIN_1: Final = "PRD-TRAIN-1"  # 8x NVIDIA A800
PRODUCT_TRAIN_2: Final = "PRD-TRAIN-2"  # 4x NVIDIA A800
PRODUCT_QTT: Final = "PRD-QTT"  # 1x GPU
PRODUCT_CPU: Final = "PRD-CPU-1"  # no GPU
PRODUCT_SOLDOUT: Final = "PRD-SOLDOUT"  # remainingCount 0
PRODUCT_FORBIDDEN: Final = "PRD-FORBIDDEN"  # refused with the 403 envelope by default

# --- ModelArts seeded catalogue ---------------------------------------------------------------------
FLAVOR_CPU_8U: Final = "modelarts.vm.cpu.8u"
FLAVOR_GPU_V100: Final = "modelarts.vm.gpu.v100"
FLAVOR_GPU_8V100: Final = "modelarts.vm.gpu.8v100"
ENGINE_PYTORCH: Final = ("PyTorch", "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64")
ENGINE_TENSORFLOW: Final = ("TensorFlow", "tensorflow_2.1.0-cuda_10.1-py_3.7-ubuntu_18.04-x86_64")
ENGINE_MINDSPORE: Final = ("Ascend-Powered-Engine", "mindspore_1.6.0-cann_5.0.3.6-py_3.7-euler_2.8.3-aarch64")

# --- paths ------------------------------------------------------------------------------------------
ALAYA_PREFIXES: Final = ("/v1", "/api/osm/v1")  # documented prefix, and the gateway prefix seen in use
ALAYA_GATEWAY_PREFIX: Final = "/api/osm"
ALAYA_CREATE: Final = "/subscription/training/create"
ALAYA_RESULT: Final = "/subscription/training/result"
ALAYA_TASK_DETAIL: Final = "/training/instance/{task_id}/detail"
ALAYA_TASK_STOP: Final = "/training/instance/{task_id}/stop"
ALAYA_TASK_DELETE: Final = "/training/instance/{task_id}/delete"
ALAYA_TASK_LIST: Final = "/training/instance/list"
ALAYA_CHECK_ENABLED: Final = "/training/instance/checkIsEnabled"
ALAYA_PRODUCTS: Final = "/product/list-for-training-task"
ALAYA_STORAGES: Final = "/nasStorage/instance/tenant/page"
IAM_TOKENS: Final = "/v3/auth/tokens"
MODELARTS_PREFIX: Final = "/v2/{project_id}"
ADMIN_PREFIX: Final = "/_admin"

# --- status names -----------------------------------------------------------------------------------
SUB_PROCESSING: Final = "PROCESSING"
SUB_SUCCESS: Final = "SUCCESS"
SUB_FAILED: Final = "FAILED"

TASK_QUEUED: Final = "QUEUED"
TASK_STARTING: Final = "STARTING"
TASK_RUNNING: Final = "RUNNING"
TASK_SUCCEEDED: Final = "SUCCEEDED"
TASK_FAILED: Final = "FAILED"
TASK_STOPPED: Final = "STOPPED"
TASK_DELETING: Final = "DELETING"

PHASE_CREATING: Final = "Creating"
PHASE_PENDING: Final = "Pending"
PHASE_RUNNING: Final = "Running"
PHASE_COMPLETED: Final = "Completed"
PHASE_FAILED: Final = "Failed"
PHASE_ABNORMAL: Final = "Abnormal"
PHASE_TERMINATING: Final = "Terminating"
PHASE_TERMINATED: Final = "Terminated"
