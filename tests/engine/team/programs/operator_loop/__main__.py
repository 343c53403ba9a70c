"""Test program: an `alaya.TrainingJob` per entry of `jobs` (JSON: resource name -> arguments), in that
order; `after` (JSON: name -> an earlier job's name) makes a job depend on that job. Exports each job's
ID and status under its name."""

import json

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
after = json.loads(config.get("after") or "{}")
made: dict[str, alaya.TrainingJob] = {}
for name, args in json.loads(config.require("jobs")).items():
    waits = [made[after[name]]] if name in after else None
    made[name] = alaya.TrainingJob(name, opts=pulumi.ResourceOptions(depends_on=waits), **args)
    pulumi.export(name, {"id": made[name].id, "status": made[name].status})
