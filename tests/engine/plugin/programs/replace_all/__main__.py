"""Test program: each resource type (StorageMount, Alaya TrainingJob, Algorithm, ModelArts TrainingJob)
as a dynamic resource `dyn-<kind>` and a plugin resource `plug-<kind>`, each with the `trigger` stack
setting as its replacement_trigger. The plugin resources are not told to delete first, as a TypeScript,
Go or YAML program that never heard of deleteBeforeReplace: the engine creates their replacement first.
Each form's job uses its own mount, and its ModelArts job its own algorithm.
"""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()
trigger = config.require("trigger")
args = json.loads(config.require("args"))  # kind -> arguments
opts = pulumi.ResourceOptions(replacement_trigger=trigger)


def plugin(token: str, name: str, props: dict, *outputs: str) -> pulumi.CustomResource:
    """A plugin resource; `outputs` are read from it (schema names), so they are registered as None."""
    return pulumi.CustomResource(token, name, {**props, **dict.fromkeys(outputs)}, opts)


mount = alaya.StorageMount("dyn-mount", opts=opts, **args["mount"])
alaya.TrainingJob("dyn-task", opts=opts, storage_mounts=[mount.mount], **args["task"])
algorithm = modelarts.Algorithm("dyn-algo", opts=opts, **args["algo"])
modelarts.TrainingJob("dyn-job", opts=opts, algorithm_id=algorithm.algorithm_id, **args["job"])

plug_mount = plugin("mltrain:alaya:StorageMount", "plug-mount", args["mount"], "mount")
plugin("mltrain:alaya:TrainingJob", "plug-task", {**args["task"], "storage_mounts": [plug_mount.mount]})
plug_algo = plugin("mltrain:modelarts:Algorithm", "plug-algo", args["algo"], "algorithmId")
plugin("mltrain:modelarts:TrainingJob", "plug-job", {**args["job"], "algorithm_id": plug_algo.algorithmId})
