"""Benchmark program: `count` Alaya NeW training jobs.

Config: count (int). The package spreads the jobs over ceil(--parallel / 4) dynamic provider
processes by itself (`pulumi_mltrain/spread.py`); `mltrain:providerProcesses` overrides the number
(1: the default provider only, one process).
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
