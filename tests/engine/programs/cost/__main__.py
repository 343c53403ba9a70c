"""Test program: an Alaya task (PRD-TRAIN-1, `workers` nodes, 24 h) and a ModelArts job (8*V100, 2 nodes,
6 h), exporting what the catalogues say about them: GPUs per node, GPUs in all, cost per hour.

Config: the mltrain:* settings of both platforms; `workers` (default 2).
"""

import pulumi

from pulumi_mltrain import alaya, modelarts

workers = pulumi.Config().get_int("workers") or 2

task = alaya.TrainingJob(
    "sft",
    description="SFT run whose cost the budget counts",
    product_code="PRD-TRAIN-1",
    worker_count=workers,
    image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
    start_command="python3 train.py",
    timeout_hours=24,
    max_retry_count=1,
)
job = modelarts.TrainingJob(
    "vision",
    description="ResNet fine-tuning whose GPUs the budget counts",
    image_url="swr.cn-north-4.myhuaweicloud.com/vision/trainer:1.0",
    command="python3 /opt/train.py",
    flavor_id="modelarts.vm.gpu.8v100",
    node_count=2,
    auto_stop_hours=6,
    log_export_path="obs://team-logs/vision/",
)

pulumi.export("alaya", {"gpus_per_node": task.gpus_per_node, "gpu_count": task.gpu_count,
                        "cost_per_hour": task.cost_per_hour})
pulumi.export("modelarts", {"gpus_per_node": job.gpus_per_node, "gpu_count": job.gpu_count,
                            "billing_code": job.billing_code})
