"""Constants a client of the emulator shares with it: credentials, IDs, paths, status names.

One module, so the CLI banner, the tests and other teams' fixtures cannot drift apart. The paths and
status names are the platforms' (``alaya.contract``, ``modelarts.contract``), repeated here by name.
"""

from __future__ import annotations

from typing import Final

from .alaya import contract as ac
from .modelarts import contract as mc

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
IAM_PROJECTS: Final = mc.IAM_PROJECTS
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

# --- paths and status names: the platforms' facts live in alaya.contract and modelarts.contract ------
ALAYA_PREFIXES: Final = ac.PREFIXES
ALAYA_GATEWAY_PREFIX: Final = ac.GATEWAY_PREFIX
ALAYA_CREATE: Final = ac.CREATE
ALAYA_RESULT: Final = ac.RESULT
ALAYA_TASK_DETAIL: Final = ac.TASK_DETAIL
ALAYA_TASK_STOP: Final = ac.TASK_STOP
ALAYA_TASK_DELETE: Final = ac.TASK_DELETE
ALAYA_TASK_LIST: Final = ac.TASK_LIST
ALAYA_CHECK_ENABLED: Final = ac.CHECK_ENABLED
ALAYA_PRODUCTS: Final = ac.PRODUCTS
ALAYA_STORAGES: Final = ac.STORAGES
IAM_TOKENS: Final = mc.IAM_TOKENS
MODELARTS_PREFIX: Final = mc.PREFIX
ADMIN_PREFIX: Final = "/_admin"

SUB_PROCESSING: Final = ac.SUB_PROCESSING
SUB_SUCCESS: Final = ac.SUB_SUCCESS
SUB_FAILED: Final = ac.SUB_FAILED

TASK_QUEUED: Final = ac.TASK_QUEUED
TASK_STARTING: Final = ac.TASK_STARTING
TASK_RUNNING: Final = ac.TASK_RUNNING
TASK_SUCCEEDED: Final = ac.TASK_SUCCEEDED
TASK_FAILED: Final = ac.TASK_FAILED
TASK_STOPPED: Final = ac.TASK_STOPPED
TASK_DELETING: Final = ac.TASK_DELETING

PHASE_CREATING: Final = mc.PHASE_CREATING
PHASE_PENDING: Final = mc.PHASE_PENDING
PHASE_RUNNING: Final = mc.PHASE_RUNNING
PHASE_COMPLETED: Final = mc.PHASE_COMPLETED
PHASE_FAILED: Final = mc.PHASE_FAILED
PHASE_ABNORMAL: Final = mc.PHASE_ABNORMAL
PHASE_TERMINATING: Final = mc.PHASE_TERMINATING
PHASE_TERMINATED: Final = mc.PHASE_TERMINATED
