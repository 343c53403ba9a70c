"""Test program: a ModelArts algorithm and a training job that runs it, each as a dynamic resource
(`dyn-algo`, `dyn-job`) and as a resource of the native plugin (`plug-algo`, `plug-job`). `algorithm`
and `job` (JSON, Python names) are their arguments (the job's algorithm is the algorithm of its form);
the stack's `mltrain:defaultTags` is merged into their tags. Each resource's `tags` is exported."""

import json
import re
from typing import Any

import pulumi

from pulumi_mltrain import modelarts

config = pulumi.Config()
algorithm_args = json.loads(config.require("algorithm"))
job_args = json.loads(config.require("job"))


def camel(args: dict[str, Any]) -> dict[str, Any]:
    """Top-level arguments under schema.json's names (tags keep their own keys)."""
    return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): v for k, v in args.items()}


dyn_algo = modelarts.Algorithm("dyn-algo", **algorithm_args)
dyn_job = modelarts.TrainingJob("dyn-job", algorithm_id=dyn_algo.algorithm_id, **job_args)
plug_algo = pulumi.CustomResource("mltrain:modelarts:Algorithm", "plug-algo",
                                  {"algorithmId": None, "tags": None, **camel(algorithm_args)})
plug_job = pulumi.CustomResource("mltrain:modelarts:TrainingJob", "plug-job",
                                 {"tags": None, **camel(job_args),
                                  "algorithmId": plug_algo.algorithmId})  # type: ignore[attr-defined]

for name, resource in (("dyn-algo", dyn_algo), ("dyn-job", dyn_job), ("plug-algo", plug_algo),
                       ("plug-job", plug_job)):
    pulumi.export(name, resource.tags)  # type: ignore[attr-defined]
