"""Test program: resources of both platforms, each from a JSON config value, so one command exercises
the errors of several resources; `lookup` (a task ID) calls `alaya.get_training_job_output` at program
time.

`mount` adds an `alaya.StorageMount`, `job` an `alaya.TrainingJob` (using the mount if any),
`algorithm` a `modelarts.Algorithm` and `slowJob` a `modelarts.TrainingJob` "slow"; a missing value
leaves its resource out.
"""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()
lookup = config.get("lookup")
if lookup:  # the `_output` form, which calls the plain one once its input is known
    pulumi.export("looked_up", alaya.get_training_job_output(pulumi.Output.from_input(lookup)))
mount_args = json.loads(config.get("mount") or "null")
job_args = json.loads(config.get("job") or "null")
algorithm_args = json.loads(config.get("algorithm") or "null")
slow_job_args = json.loads(config.get("slowJob") or "null")
mount = alaya.StorageMount("data", **mount_args) if mount_args else None
if job_args:
    if mount is not None:
        job_args["storage_mounts"] = [mount.mount]
    pulumi.export("task_id", alaya.TrainingJob("job", **job_args).id)
if algorithm_args:
    pulumi.export("algorithm_id", modelarts.Algorithm("algo", **algorithm_args).algorithm_id)
if slow_job_args:
    pulumi.export("slow_id", modelarts.TrainingJob("slow", **slow_job_args).id)
