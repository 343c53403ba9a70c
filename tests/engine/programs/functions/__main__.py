"""Test program: a `platform` (alaya or modelarts) job from `job` (JSON args), then the look-ups,
logs and events of that job through the `_output` forms, exported for the test to read."""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()
args = json.loads(config.require("job"))
if config.require("platform") == "alaya":
    job = alaya.TrainingJob("job", **args)
    pulumi.export("task", alaya.get_training_job_output(job.training_task_id))
    pulumi.export("listed", alaya.list_training_jobs_output(job.name.apply(lambda n: n[:6]), job.status))
    pulumi.export("products", [p["productCode"] for p in alaya.get_products()])
    pulumi.export("storages", [s["storageId"] for s in alaya.get_storages()])
else:
    algo = modelarts.Algorithm("algo", **json.loads(config.require("algorithm")))
    job = modelarts.TrainingJob("job", algorithm_id=algo.algorithm_id, **args)
    pulumi.export("job", modelarts.get_training_job_output(job.job_id))
    pulumi.export("algorithm", modelarts.get_algorithm_output(algo.algorithm_id))
    pulumi.export("listed", modelarts.list_training_jobs_output(job.name.apply(lambda n: n[:6]), job.phase))
    pulumi.export("logs", modelarts.get_training_job_logs_output(job.job_id, 5))
