"""Everything the policy pack asks for: bounded jobs from the allowed registry, read-only datasets,
writable checkpoints only under /root/nas/checkpoints, credentials as secrets, retries (with checkpoints),
descriptions.

Config: mltrain:alayaEndpoint, mltrain:alayaApiKey (secret), the mltrain:huawei*/modelartsEndpoint
settings, hfToken (secret).
GPU-hours: llama3-sft 8 x 2 x 24 = 384, eval 1 x 1 x 4 = 4, resnet 1 x 2 x 6 = 12, preprocess 0;
400 in all.
"""

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()

datasets = alaya.StorageMount(
    "datasets",
    storage_id="72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
    storage_type="nas-capacity",
    file_directory="datasets",
    mount_path="/root/nas/datasets",
)
checkpoints = alaya.StorageMount(
    "checkpoints",
    storage_id="5c0d3f7e-1b2a-4c8d-9e6f-a7b8c9d0e1f2",
    storage_type="nas-performance",
    file_directory="llama3",
    mount_path="/root/nas/checkpoints/llama3",
    read_only=False,
)

alaya.TrainingJob(
    "llama3-sft",
    description="Llama 3 SFT on the support corpus (NLP team)",
    product_code="PRD-TRAIN-1",
    worker_count=2,
    image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
    training_framework="pytorch",
    storage_mounts=[datasets.mount, checkpoints.mount],  # unknown during a preview
    env={
        "NCCL_DEBUG": "WARN",
        "HF_TOKEN": config.require_secret("hfToken"),
        "WANDB_API_KEY": pulumi.Output.secret("0123456789abcdef0123456789abcdef"),
    },
    start_command="python3 -m torch.distributed.run train.py",
    timeout_hours=24,
    max_retry_count=3,
    checkpoint={"path": "/root/nas/checkpoints/llama3/sft"},  # a retried job keeps checkpoints
)

# Inline mounts are known during a preview: the provider checks the whole spec and fills defaults.
alaya.TrainingJob(
    "eval",
    description="Nightly evaluation of the latest checkpoint (NLP team)",
    product_code="PRD-QTT",
    worker_count=1,
    image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
    storage_mounts=[{
        "storage_id": "72a2a885-e45e-4c79-aaf3-e1fa05abdb92",
        "storage_type": "nas-capacity",
        "file_directory": "datasets",
        "mount_path": "/root/nas/datasets",
    }, {
        "storage_id": "5c0d3f7e-1b2a-4c8d-9e6f-a7b8c9d0e1f2",
        "storage_type": "nas-performance",
        "file_directory": "eval",
        "mount_path": "/root/nas/checkpoints/eval",
        "read_only": False,
    }],
    env={"EVAL_SUITE": "mmlu", "HF_TOKEN": config.require_secret("hfToken")},
    timeout_hours=4,
    max_retry_count=1,
    checkpoint={"path": "/root/nas/checkpoints/eval"},
)

# ModelArts: a preset engine bounded by auto_stop_hours ...
modelarts.TrainingJob(
    "resnet",
    description="ResNet-50 fine-tuning (vision team)",
    code_dir="obs://team-code/resnet/",
    boot_file="obs://team-code/resnet/train.py",
    engine_name="PyTorch",
    engine_version="pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64",
    inputs=[modelarts.ObsChannel(name="data_url", obs_url="obs://team-data/imagenet/")],
    outputs=[modelarts.ObsChannel(name="train_url", obs_url="obs://team-output/resnet/")],
    flavor_id="modelarts.vm.gpu.v100",
    node_count=2,
    auto_stop_hours=6,
    log_export_path="obs://team-logs/resnet/",
    environments={"OMP_NUM_THREADS": "4", "HF_TOKEN": config.require_secret("hfToken")},
)

# ... and a custom SWR image bounded by a custom timeout that create waits out (wait_for="completed").
modelarts.TrainingJob(
    "preprocess",
    description="Tokenise the corpus on CPU nodes (NLP team)",
    image_url="swr.cn-north-4.myhuaweicloud.com/nlp-team/preprocess:1.4",
    command="python3 /opt/prep.py",
    flavor_id="modelarts.vm.cpu.8u",
    log_export_path="obs://team-logs/preprocess/",
    wait_for="completed",
    opts=pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(create="2h")),
)
