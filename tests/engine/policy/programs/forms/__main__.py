"""Two jobs that break the same two rules in every form: an image from docker.io
(allowed-image-registries) and, together, more than 2000 GPU-hours (gpu-hours-budget):
8 GPUs x 4 nodes x 72 h = 2304 on Alaya NeW, plus 1 GPU x 2 nodes x 0.5 h on ModelArts, whose
only limit is the create's custom timeout (wait_for="completed").

Config `form`: `dynamic` declares them with `pulumi_mltrain` (pulumi-python:dynamic/... types),
`sdk` with the plugin's generated SDK `pulumi_mltrain_native` (mltrain:... types).
forms_yaml/Pulumi.yaml is the same program in Pulumi YAML.
"""

import pulumi

if pulumi.Config().require("form") == "sdk":
    from pulumi_mltrain_native import alaya, modelarts
else:
    from pulumi_mltrain import alaya, modelarts

alaya.TrainingJob(
    "sft",
    product_code="PRD-TRAIN-1",
    worker_count=4,
    image="docker.io/library/pytorch:latest",
    training_framework="pytorch",
    start_command="python3 train.py",
    timeout_hours=72,
    description="Llama 3 SFT, NLP team",
    enable_auto_retry=True,
    max_retry_count=3,
)

modelarts.TrainingJob(
    "mass",
    image_url="swr.cn-north-4.myhuaweicloud.com/team/trainer:1.0",
    command="python3 train.py",
    flavor_id="modelarts.vm.gpu.v100",
    node_count=2,
    wait_for="completed",
    description="ResNet-50 sweep, vision team",
    log_export_path="obs://team-logs/mass/",
    opts=pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(create="30m")),
)
