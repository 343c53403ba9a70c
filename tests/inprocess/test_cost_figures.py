"""The cost figures a check adds to a training job's inputs (what a preview shows), from the catalogue;
the preview through the engine and the policy pack is tests/engine/test_cost.py."""

from __future__ import annotations

from mltrain_emulator import EmulatorHandle
from support import inprocess
from support.stacks import alaya_job_args

# The emulator's catalogue: PRD-TRAIN-1 has 8 GPUs at 80.00 per node-hour (priceUnit 1); 8*V100 has 8 GPUs.
ALAYA = {"gpus_per_node": 8, "gpu_count": 16, "cost_per_hour": 160.0}


def test_four_nodes_double_the_figures(emulator: EmulatorHandle) -> None:
    """The figures follow the node count, still from the catalogue, at check (what a preview shows):
    the cost program's task with `workers` 4."""
    jobs = inprocess.handler("alaya:TrainingJob", emulator)
    inputs = inprocess.checked(jobs, {**inprocess.OWNER, "name": "sft", **alaya_job_args(
        product_code="PRD-TRAIN-1", worker_count=4, timeout_hours=24, max_retry_count=1)})
    assert {k: inputs.get(k) for k in ALAYA} == {"gpus_per_node": 8, "gpu_count": 32, "cost_per_hour": 320.0}
