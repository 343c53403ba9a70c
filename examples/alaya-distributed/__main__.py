"""Distributed fine-tuning on Alaya NeW: a 4-node Llama 3 task on PRD-TRAIN-1 (8 GPUs a node) with
auto-retry and a 24-hour timeout, reading a NAS dataset, and an evaluation task on another product
code that shares the same read-only mount."""

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
image = config.get("image") or "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu"

datasets = alaya.StorageMount(
    "datasets",
    storage_id=config.get("storageId") or "72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
    storage_type="nas-capacity",
    file_directory="datasets",
    mount_path="/root/nas/",
    read_only=True,
)

sft = alaya.TrainingJob(
    "llama3-8b-sft",
    description="Llama3-8B instruction fine-tuning",
    create_type="DIRECT",
    priority=2,
    training_type="PRE_TRAINING",
    image_type="general",
    training_framework="pytorch",
    product_code="PRD-TRAIN-1",
    worker_count=4,
    image=image,
    storage_mounts=[datasets.mount],
    env={"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7", "NCCL_DEBUG": "WARN"},
    enable_auto_retry=True,
    max_retry_count=3,
    enable_timeout_cancel=True,
    timeout_hours=24,
    start_command="python3 -m torch.distributed.run train.py --data /root/nas/datasets",
)

evaluation = alaya.TrainingJob(
    "llama3-8b-eval",
    description="Evaluation of the fine-tuned checkpoints",
    training_framework="pytorch",
    product_code="PRD-QTT",
    worker_count=1,
    image=image,
    storage_mounts=[datasets.mount],
    timeout_hours=4,
    start_command="python3 eval.py --data /root/nas/datasets",
)

pulumi.export("sft_task_id", sft.id)
pulumi.export("eval_task_id", evaluation.id)
pulumi.export("dataset_storage", datasets.storage_name)
