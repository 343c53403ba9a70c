"""Test program: one Alaya NeW training task per name in `names` (JSON list), each exported.

`ownProvider` names the one job that goes on a `pulumi-python` provider the program makes itself
(`mine`). `spreadBeforeRemoval` = true places every resource as the package did before
`mltrain:providerProcesses` was retired (`spread_before_removal.py`, reading that same key): the
state of a stack made then.
"""

import json

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
if config.get_bool("spreadBeforeRemoval"):
    from spread_before_removal import place

    def _spread(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
        if not args.type_.startswith("pulumi-python:dynamic/"):
            return None  # providers
        placed = place(args.type_, args.name, args.opts)
        return None if placed is args.opts else pulumi.ResourceTransformationResult(args.props, placed)

    pulumi.runtime.register_stack_transformation(_spread)

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
