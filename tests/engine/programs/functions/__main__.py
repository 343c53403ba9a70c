"""Test program: an Alaya NeW task from `alayaJob` and a ModelArts algorithm and job from `algorithm` and
`modelartsJob` (JSON args; a part whose value is missing is left out), then the look-ups, logs and events
of those jobs through the `_output` forms, exported for the test to read."""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()
alaya_args = config.get("alayaJob")
if alaya_args:
    task = alaya.TrainingJob("task", **json.loads(alaya_args))
    pulumi.export("task", alaya.get_training_job_output(task.training_task_id))
    pulumi.export("listed_tasks", alaya.list_training_jobs_output(task.name.apply(lambda n: n[:6]), task.status))
    pulumi.export("products", [p["productCode"] for p in alaya.get_products()])
    pulumi.export("storages", [s["storageId"] for s in alaya.get_storages()])
modelarts_args = config.get("modelartsJob")
if modelarts_args:
    algo = modelarts.Algorithm("algo", **json.loads(config.require("algorithm")))
    job = modelarts.TrainingJob("job", algorithm_id=algo.algorithm_id, **json.loads(modelarts_args))
    pulumi.export("job", modelarts.get_training_job_output(job.job_id))
    pulumi.export("algorithm", modelarts.get_algorithm_output(algo.algorithm_id))
    pulumi.export("listed", modelarts.list_training_jobs_output(job.name.apply(lambda n: n[:6]), job.phase))
    pulumi.export("logs", modelarts.get_training_job_logs_output(job.job_id, 5))
