"""Test program: an example's own program (its `__main__.py`, named by the `example` config value; it
reads its config keys, e.g. `image`, from this project) beside `alaya.TrainingJob(name, **args)` for each
entry of `jobs` (JSON: resource name → args), so that one engine command serves several tests.

`secretEnv` (JSON: resource name → {variable: value}) adds secret environment variables to that job.
"""

import json
import runpy

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
example = config.get("example")
if example:
    runpy.run_path(example, run_name="__main__")
secret_env: dict[str, dict[str, str]] = json.loads(config.get("secretEnv") or "{}")
for name, args in json.loads(config.get("jobs") or "{}").items():
    secrets = {k: pulumi.Output.secret(v) for k, v in secret_env.get(name, {}).items()}
    if secrets:
        args["env"] = {**args.get("env", {}), **secrets}
    job = alaya.TrainingJob(name, **args)
    pulumi.export(f"{name}_id", job.id)
