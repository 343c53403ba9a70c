"""Test program: one resource per entry of `objects` (JSON: resource name -> {kind, args, aliasOf?}).

`kind` is `alaya-job` (`alaya.TrainingJob`), `modelarts-job` (`modelarts.TrainingJob`) or `algorithm`
(`modelarts.Algorithm`); `aliasOf` names the resource's previous name, given as `pulumi.Alias(name=...)`
so a rename keeps the object. Exports `<resource name>_id`.
"""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

KINDS = {"alaya-job": alaya.TrainingJob, "modelarts-job": modelarts.TrainingJob, "algorithm": modelarts.Algorithm}

for name, declared in json.loads(pulumi.Config().require("objects")).items():
    alias_of = declared.get("aliasOf")
    opts = pulumi.ResourceOptions(aliases=[pulumi.Alias(name=alias_of)]) if alias_of else None
    resource = KINDS[declared["kind"]](name, opts=opts, **declared["args"])
    pulumi.export(f"{name}_id", resource.id)
