"""Test program: one Alaya NeW training task per name in `names` (JSON list), each exported.

`ownProvider` names the one job that goes on a `pulumi-python` provider the program makes itself
(`mine`); every other job is placed by the package.
"""

import json

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
own = config.get("ownProvider")
mine = None
if own:
    mltrain = pulumi.Config("mltrain")
    mine = pulumi.ProviderResource("pulumi-python", "mine", {
        "mltrain:alayaEndpoint": mltrain.require("alayaEndpoint"),
        "mltrain:alayaApiKey": mltrain.require_secret("alayaApiKey"),
    })
for name in json.loads(config.require("names")):
    job = alaya.TrainingJob(
        name,
        product_code="PRD-TRAIN-2",
        worker_count=1,
        image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
        start_command="python3 train.py",
        opts=pulumi.ResourceOptions(provider=mine) if name == own else None,
    )
    pulumi.export(name, {"id": job.id, "name": job.name, "priority": job.priority,
                         "description": job.description, "start_command": job.start_command})
