"""Test program: an example's own program (its `__main__.py`, named by the `example` config value; it
reads its config keys, e.g. `flavor` and `description`, from this project) beside
`modelarts.Algorithm(name, **args)` for each entry of `algorithms` and `modelarts.TrainingJob(name, **args)`
for each entry of `jobs` (JSON: resource name → args), so that one engine command serves several tests.

A job's `algorithm` names an algorithm of this program, whose ID becomes its `algorithm_id`;
`sensitiveEnv` (JSON: resource name → {variable: value}) adds secret environment variables to that job.
"""

import json
import runpy

import pulumi

from pulumi_mltrain import modelarts

config = pulumi.Config()
example = config.get("example")
if example:
    runpy.run_path(example, run_name="__main__")
algorithms = {name: modelarts.Algorithm(name, **args)
              for name, args in json.loads(config.get("algorithms") or "{}").items()}
secret_env: dict[str, dict[str, str]] = json.loads(config.get("sensitiveEnv") or "{}")
for name, args in json.loads(config.get("jobs") or "{}").items():
    if "algorithm" in args:
        args["algorithm_id"] = algorithms[args.pop("algorithm")].algorithm_id
    secrets = {k: pulumi.Output.secret(v) for k, v in secret_env.get(name, {}).items()}
    if secrets:
        args["environments"] = {**args.get("environments", {}), **secrets}
    job = modelarts.TrainingJob(name, **args)
    pulumi.export(f"{name}_id", job.id)
    pulumi.export(f"{name}_phase", job.phase)
