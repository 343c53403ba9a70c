"""Test program: each job of `jobs` (JSON: platform -> job name -> args; platform alaya or modelarts) as
a dynamic `<platform>.TrainingJob` named `dyn-<name>` and as the plugin's `mltrain:<platform>:TrainingJob`
named `plug-<name>`, in one stack (job names are unique across platforms).

`createTimeout` (e.g. "4s") is every resource's customTimeouts create.
`triggers` (JSON: name -> value) is each job's `replacement_trigger` resource option.
`logsOf` (JSON list of ModelArts job IDs) logs each job's log lines through `get_training_job_logs`.
`after` (JSON: name -> an earlier job's name) makes a job depend on that job of its own form.
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
after = json.loads(config.get("after") or "{}")
made: dict[str, pulumi.Resource] = {}

for platform, named in jobs.items():
    for name, args in named.items():
        trigger = pulumi.ResourceOptions(replacement_trigger=triggers[name]) if name in triggers else None
        waits = [made[f"dyn-{after[name]}"]] if name in after else None
        made[f"dyn-{name}"] = dynamic[platform](
            f"dyn-{name}", opts=pulumi.ResourceOptions.merge(opts, trigger).merge(pulumi.ResourceOptions(
                depends_on=waits)), **args)
        # The plugin's jobs are told to delete first, as the dynamic ones always are.
        plugin_opts = pulumi.ResourceOptions(replacement_trigger=triggers[name], delete_before_replace=True) \
            if name in triggers else None
        waits = [made[f"plug-{after[name]}"]] if name in after else None
        made[f"plug-{name}"] = pulumi.CustomResource(
            f"mltrain:{platform}:TrainingJob", f"plug-{name}", dict(args),
            pulumi.ResourceOptions.merge(opts, plugin_opts).merge(pulumi.ResourceOptions(depends_on=waits)))

for job_id in json.loads(config.get("logsOf") or "[]"):
    for task in modelarts.get_training_job_logs(job_id, 20)["tasks"]:
        for line in task["lines"]:
            pulumi.log.info(f"log of {job_id} {task['task']}: {line}")
