"""Test program: each job of `jobs` (JSON: platform -> job name -> args; platform alaya or modelarts) as
a dynamic `<platform>.TrainingJob` named `dyn-<name>` and as the plugin's `mltrain:<platform>:TrainingJob`
named `plug-<name>`, in one stack (job names are unique across platforms).

`createTimeout` (e.g. "4s") is every resource's customTimeouts create.
`triggers` (JSON: name -> value) is each job's `replacement_trigger` resource option.
`logsOf` (JSON list of ModelArts job IDs) logs each job's log lines through `get_training_job_logs`.
"""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()
jobs = json.loads(config.require("jobs"))
create = config.get("createTimeout")
opts = pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(create=create) if create else None)
dynamic = {"alaya": alaya.TrainingJob, "modelarts": modelarts.TrainingJob}

triggers = json.loads(config.get("triggers") or "{}")

for platform, named in jobs.items():
    for name, args in named.items():
        trigger = pulumi.ResourceOptions(replacement_trigger=triggers[name]) if name in triggers else None
        dynamic[platform](f"dyn-{name}", opts=pulumi.ResourceOptions.merge(opts, trigger), **args)
        # The plugin's jobs are told to delete first, as the dynamic ones always are.
        plugin_opts = pulumi.ResourceOptions(replacement_trigger=triggers[name], delete_before_replace=True) \
            if name in triggers else None
        pulumi.CustomResource(f"mltrain:{platform}:TrainingJob", f"plug-{name}", dict(args),
                              pulumi.ResourceOptions.merge(opts, plugin_opts))

for job_id in json.loads(config.get("logsOf") or "[]"):
    for task in modelarts.get_training_job_logs(job_id, 20)["tasks"]:
        for line in task["lines"]:
            pulumi.log.info(f"log of {job_id} {task['task']}: {line}")
