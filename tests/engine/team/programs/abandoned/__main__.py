"""Test program: an `alaya.TrainingJob` named "job" from the `job` config value and a
`modelarts.TrainingJob` named "job" from `modelartsJob` (JSON arguments each; `null` or unset: none)."""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()
alaya_args = json.loads(config.get("job") or "null")
if alaya_args is not None:
    pulumi.export("training_task_id", alaya.TrainingJob("job", **alaya_args).id)
modelarts_args = json.loads(config.get("modelartsJob") or "null")
if modelarts_args is not None:
    pulumi.export("job_id", modelarts.TrainingJob("job", **modelarts_args).id)
