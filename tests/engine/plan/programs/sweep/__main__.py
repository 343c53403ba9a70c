"""Test program: a sweep of Alaya NeW trials on PRD-TRAIN-2 (4 GPUs per node, 2 nodes, 12 h), one
training job per trial, each re-run when its `replacement_trigger` changes.

Config: `trials` (JSON: trial name -> its trigger, e.g. {"lr-1e-4": "v1"}), `descriptions` (JSON: trial
name -> its description, an in-place change; default `sweep trial <name>`), `forms` (JSON list of
`dynamic`, the default, and `plugin`: the native plugin's `mltrain:alaya:TrainingJob`). With both forms,
each trial is two jobs, `dyn-<trial>` and `plug-<trial>`.
"""

import json

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
trials = json.loads(config.require("trials"))
descriptions = json.loads(config.get("descriptions") or "{}")
forms = json.loads(config.get("forms") or '["dynamic"]')

for (trial, trigger), form in ((t, f) for t in trials.items() for f in forms):
    name = trial if len(forms) == 1 else f"{'dyn' if form == 'dynamic' else 'plug'}-{trial}"
    args = {"description": descriptions.get(trial, f"sweep trial {trial}"), "product_code": "PRD-TRAIN-2",
            "worker_count": 2,
            "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu", "training_framework": "pytorch",
            "start_command": f"python3 train.py --lr {trial.removeprefix('lr-')}", "timeout_hours": 12}
    opts = pulumi.ResourceOptions(replacement_trigger=trigger)
    if form == "plugin":
        pulumi.CustomResource("mltrain:alaya:TrainingJob", name, args,
                              pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(delete_before_replace=True)))
    else:
        alaya.TrainingJob(name, opts=opts, **args)
