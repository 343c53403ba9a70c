"""Test program: one training job per entry of `objects` (JSON: resource name -> {kind, args, dependsOn?}).

`kind` is `alaya` (`alaya.TrainingJob`) or `modelarts` (`modelarts.TrainingJob`); `dependsOn` lists
resource names declared before it, whose creates finish before this one starts. `secretEnv` (JSON,
a secret) adds secret environment variables to every job (`env` on Alaya NeW, `environments` on
ModelArts). Exports `<resource name>_id`.
"""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()
secret_env = {k: pulumi.Output.secret(v) for k, v in json.loads(config.get("secretEnv") or "{}").items()}
declared: dict[str, pulumi.Resource] = {}
for name, spec in json.loads(config.require("objects")).items():
    args = dict(spec["args"])
    opts = pulumi.ResourceOptions(depends_on=[declared[d] for d in spec.get("dependsOn", [])])
    if spec["kind"] == "alaya":
        if secret_env:
            args["env"] = {**args.get("env", {}), **secret_env}
        job = alaya.TrainingJob(name, opts=opts, **args)
    else:
        if secret_env:
            args["environments"] = {**args.get("environments", {}), **secret_env}
        job = modelarts.TrainingJob(name, opts=opts, **args)
    declared[name] = job
    pulumi.export(f"{name}_id", job.id)
