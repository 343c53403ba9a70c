"""Test program: `alaya.TrainingJob(**job)` where `job` is JSON stack config; optional `mount`."""

import json

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
args = json.loads(config.require("job"))
secret_env = json.loads(config.get("secretEnv") or "{}")
if secret_env:
    args["env"] = {**args.get("env", {}), **{k: pulumi.Output.secret(v) for k, v in secret_env.items()}}
mount_args = config.get("mount")
if mount_args:
    mount = alaya.StorageMount("data", **json.loads(mount_args))
    args["storage_mounts"] = [mount.mount, *args.get("storage_mounts", [])]
timeouts = config.get("customTimeouts")
opts = pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(**json.loads(timeouts))) if timeouts else None
job = alaya.TrainingJob("job", opts=opts, **args)
pulumi.export("training_task_id", job.id)
pulumi.export("status", job.status)
pulumi.export("name", job.name)
