"""Test program: `modelarts.TrainingJob(name, **args)` for each entry of `jobs` (JSON: name → args).

`algorithm` (JSON) adds a `modelarts.Algorithm` that jobs without algorithm_id or inline code run;
`sensitiveEnv` (JSON) adds secret environment variables to every job. `algorithmResourceName` renames
the algorithm resource (default "algo"); `aliasOf` (JSON: resource name → previous resource name)
gives renamed jobs and the algorithm `pulumi.Alias(name=...)`, so a rename keeps the object.
"""

import json

import pulumi

from pulumi_mltrain import modelarts

config = pulumi.Config()
jobs = json.loads(config.require("jobs"))
algorithm_args = json.loads(config.get("algorithm") or "null")
secret_env = json.loads(config.get("sensitiveEnv") or "{}")
alias_of: dict[str, str] = json.loads(config.get("aliasOf") or "{}")


def opts(resource_name: str) -> pulumi.ResourceOptions | None:
    old = alias_of.get(resource_name)
    return pulumi.ResourceOptions(aliases=[pulumi.Alias(name=old)]) if old else None


algorithm_name = config.get("algorithmResourceName") or "algo"
algorithm = (modelarts.Algorithm(algorithm_name, opts=opts(algorithm_name), **algorithm_args)
             if algorithm_args else None)
if algorithm is not None:
    pulumi.export("algorithm_id", algorithm.algorithm_id)
for name, args in jobs.items():
    if algorithm is not None and not {"algorithm_id", "code_dir", "image_url"} & set(args):
        args["algorithm_id"] = algorithm.algorithm_id
    if secret_env:
        args["environments"] = {**args.get("environments", {}),
                                **{k: pulumi.Output.secret(v) for k, v in secret_env.items()}}
    job = modelarts.TrainingJob(name, opts=opts(name), **args)
    pulumi.export(f"{name}_id", job.id)
    pulumi.export(f"{name}_phase", job.phase)
