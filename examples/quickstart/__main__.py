"""Quickstart: one Alaya NeW distributed training task reading a NAS dataset.

Config: mltrain:alayaEndpoint, mltrain:alayaApiKey (secret). Optional: image (to try a replace).
"""

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()

datasets = alaya.StorageMount(
    "datasets",
    storage_id="72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
    storage_type="nas-capacity",
    file_directory="datasets",
    mount_path="/root/nas/datasets",
)

job = alaya.TrainingJob(
    "llama3-sft",
    product_code="PRD-TRAIN-1",
    worker_count=2,
    image=config.get("image") or "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
    training_framework="pytorch",
    training_type="pre_training",
    storage_mounts=[datasets.mount],
    env={"NCCL_DEBUG": "WARN"},
    start_command="python3 -m torch.distributed.run train.py --data /root/nas/datasets",
    timeout_hours=24,
    max_retry_count=3,
)

pulumi.export("training_task_id", job.id)
pulumi.export("status", job.status)
pulumi.export("result_key", job.result_key)
pulumi.export("task_name", job.name)
