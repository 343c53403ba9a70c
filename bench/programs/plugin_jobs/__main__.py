"""Benchmark program: `count` Alaya NeW training jobs through the native `mltrain` plugin.

The same inputs as `alaya_jobs` (and its optional `waitFor`), written with the generated SDK
(`pulumi_mltrain_native`) and its default provider (settings from the stack's `mltrain:` config). The
engine runs the plugin `pulumi-resource-mltrain`, found on PATH: one process serves every job.
"""

import pulumi
from pulumi_mltrain_native import alaya

config = pulumi.Config()
count = config.require_int("count")
wait_for = config.get("waitFor")  # what each create waits for (scenario 18: completed); else the default

for i in range(count):
    alaya.TrainingJob(
        f"job-{i}",
        product_code="PRD-TRAIN-2",
        worker_count=1,
        image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
        training_framework="pytorch",
        start_command="python3 train.py",
        **({"wait_for": wait_for} if wait_for else {}),
    )
pulumi.export("count", count)
