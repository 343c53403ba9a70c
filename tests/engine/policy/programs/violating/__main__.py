"""Breaks the policy pack's rules (and the provider's own checks not at all); the jobs of the ModelArts
notification and preemptible-retry policies come in pairs, one breaking the policy and one keeping it.

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

# modelarts-failure-notification: 8 GPUs x 3 nodes = 24 GPUs, more than 16, and no notification (`loud`);
# `heard` tells an SMN topic of its failures. Both are otherwise compliant.
TOPIC = "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts"
BOUNDED = {"image_url": "swr.cn-north-4.myhuaweicloud.com/vision/trainer:1.0", "command": "python3 /opt/train.py",
           "auto_stop_hours": 2, "retry_count": 1}
for name, notification in (("loud", None), ("heard", {"topic_urn": TOPIC, "events": ["JobFailed"]})):
    modelarts.TrainingJob(name, description=f"{name}: a 24-GPU job", flavor_id="modelarts.vm.gpu.8v100",
                          node_count=3, log_export_path=f"obs://team-logs/{name}/", notification=notification,
                          **BOUNDED)

# modelarts-preemptible-retry: `spot` is preemptible with no retry; `spot-retried` restarts twice.
for name, retries in (("spot", None), ("spot-retried", 2)):
    modelarts.TrainingJob(name, description=f"{name}: a preemptible job", flavor_id="modelarts.vm.cpu.8u",
                          pool_id="pool-a100", preemptible=True, log_export_path=f"obs://team-logs/{name}/",
                          **{**BOUNDED, "retry_count": retries})
