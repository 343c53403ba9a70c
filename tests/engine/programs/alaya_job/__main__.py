"""Test program: `alaya.TrainingJob(**job)` where `job` is JSON stack config; optional `mount`.

`resourceName` renames the job resource (default "job"); `aliasOf` names its previous resource
name, given as `pulumi.Alias(name=...)` so a rename keeps the task. `job` set to `null` leaves
only the mount.
"""

import json

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
args = json.loads(config.require("job"))
secret_env = json.loads(config.get("secretEnv") or "{}")
if secret_env and args is not None:
    args["env"] = {**args.get("env", {}), **{k: pulumi.Output.secret(v) for k, v in secret_env.items()}}
mount_args = config.get("mount")
if mount_args:
    mount = alaya.StorageMount("data", **json.loads(mount_args))
    pulumi.export("mount_id", mount.id)
    if args is not None:
        args["storage_mounts"] = [mount.mount, *args.get("storage_mounts", [])]
timeouts = config.get("customTimeouts")
alias_of = config.get("aliasOf")
opts = pulumi.ResourceOptions(
    custom_timeouts=pulumi.CustomTimeouts(**json.loads(timeouts)) if timeouts else None,
    aliases=[pulumi.Alias(name=alias_of)] if alias_of else None,
)
if args is not None:
    job = alaya.TrainingJob(config.get("resourceName") or "job", opts=opts, **args)
    pulumi.export("training_task_id", job.id)
    pulumi.export("status", job.status)
    pulumi.export("name", job.name)
