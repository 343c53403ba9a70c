"""Test program: `count` Alaya NeW training tasks with small differences between them."""

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
for i in range(config.require_int("count")):
    job = alaya.TrainingJob(
        f"job-{i:03d}",
        product_code="PRD-QTT",
        worker_count=1 + i % 4,
        image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
        start_command=f"python3 train.py --seed {i}",
        timeout_hours=2,
    )
    pulumi.export(f"job_{i:03d}", job.id)
