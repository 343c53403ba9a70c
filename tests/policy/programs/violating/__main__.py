"""Breaks the policy pack's rules (and the provider's own checks not at all).

Config: mltrain:alayaEndpoint, mltrain:alayaApiKey (secret), the mltrain:huawei*/modelartsEndpoint settings.
"""

import pulumi

from pulumi_mltrain import alaya, modelarts

# read-only-dataset-mounts: a dataset mounted read-write.
alaya.StorageMount(
    "scratch",
    storage_id="72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
    storage_type="nas-capacity",
    file_directory="datasets",
    mount_path="/root/nas/datasets",
    read_only=False,
)

alaya.TrainingJob(
    "rogue",
    product_code="PRD-TRAIN-1",
    worker_count=64,  # max-nodes-per-job
    image="docker.io/library/pytorch:latest",  # allowed-image-registries
    storage_mounts=[{  # read-only-dataset-mounts
        "storage_id": "72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
        "storage_type": "nas-capacity",
        "file_directory": "datasets",
        "mount_path": "/data",
        "read_only": False,
    }],
    env={"NCCL_DEBUG": "WARN", "HF_TOKEN": "hf_FAKEfakeFAKEfake0123456789abcdefXYZ"},  # no-plaintext-secrets
    # training-job-timeout and gpu-hours-budget: no timeout; advisories: no description, no retries.
)

modelarts.TrainingJob(
    "mass",
    image_url="docker.io/someone/trainer:latest",  # allowed-image-registries
    command="python3 train.py",
    flavor_id="modelarts.vm.gpu.8v100",
    node_count=2,
    environments={"DB_PASSWORD": "hunter2hunter2"},  # no-plaintext-secrets
    # training-job-timeout: a custom timeout, but create only waits for "accepted", so the job is unbounded;
    # advisories: no description, no log_export_path.
    opts=pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(create="30m")),
)
