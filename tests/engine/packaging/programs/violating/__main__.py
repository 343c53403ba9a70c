"""One Alaya NeW job from docker.io on 64 nodes: allowed-image-registries and max-nodes-per-job."""

from pulumi_mltrain import alaya

alaya.TrainingJob(
    "rogue",
    product_code="PRD-TRAIN-1",
    worker_count=64,
    image="docker.io/library/pytorch:latest",
    training_framework="pytorch",
    start_command="python3 train.py",
    timeout_hours=4,
    max_retry_count=1,
    description="policy test",
)
