"""Benchmark program: `count` Alaya NeW training jobs.

Config: count (int). One dynamic provider process serves them all, every call at once
(`pulumi_mltrain/host.py`).
"""

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
count = config.require_int("count")

for i in range(count):
    alaya.TrainingJob(
        f"job-{i}",
        product_code="PRD-TRAIN-2",
        worker_count=1,
        image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
        training_framework="pytorch",
        start_command="python3 train.py",
    )
pulumi.export("count", count)
