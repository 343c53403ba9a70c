"""Test program: one Alaya NeW training task per name in `names` (JSON list), each exported."""

import json

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
for name in json.loads(config.require("names")):
    job = alaya.TrainingJob(
        name,
        product_code="PRD-TRAIN-2",
        worker_count=1,
        image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
        start_command="python3 train.py",
    )
    pulumi.export(name, {"id": job.id, "name": job.name, "priority": job.priority,
                         "description": job.description, "start_command": job.start_command})
