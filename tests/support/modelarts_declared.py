"""ModelArts declarations shared by the in-process tests and the engine stack that runs them once
through the engine (tests/engine/test_modelarts_engine.py)."""

from __future__ import annotations

from typing import Any

from mltrain_emulator import defaults as d

# The scheduling, volume and tag fields (tests/inprocess/test_modelarts_fields.py).
FIELDS_BASE: dict[str, Any] = {
    "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
    "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
    "flavor_id": d.FLAVOR_CPU_8U,
}
FIELDS: dict[str, Any] = {
    **FIELDS_BASE,
    "tags": {"team": "vision"},
    "volumes": [{"nfs": {"nfs_server_path": "192.168.0.10:/share", "local_path": "/mnt/share"}},
                {"obs": {"obs_url": "obs://b/ckpt/", "local_path": "/mnt/ckpt", "read_only": False}}],
    "retry_count": 3, "priority": 2,
    "inputs": [{"name": "data_url", "dataset": {"id": "ds-1", "version_id": "v-1"}}],
}

# A user's algorithm and a job using it (tests/inprocess/test_preview_truth.py).
USER_ALGORITHM = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                  "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
                  "inputs": [{"name": "data_url"}], "description": "v1"}
USER_JOB = {"flavor_id": d.FLAVOR_CPU_8U, "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}]}

# The example's algorithm and a job of it (tests/engine/test_modelarts_engine.py and
# tests/inprocess/test_modelarts_training_job.py).
ALGORITHM_ARGS: dict[str, Any] = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                                  "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
                                  "inputs": [{"name": "data_url"}], "outputs": [{"name": "train_url"}],
                                  "parameters": [{"name": "epochs", "value": "1"}]}


def job_args(**changes: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"flavor_id": d.FLAVOR_CPU_8U,
                            "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
                            "outputs": [{"name": "train_url", "obs_url": "obs://b/out/"}],
                            "log_export_path": "obs://b/logs/"}
    args.update(changes)
    return args


# A fine-tune job of a model asset (no algorithm of its own), saving and publishing its model, with a custom
# metric collection (tests/inprocess/test_modelarts_fine_tune.py and tests/engine/plugin/test_plugin_fine_tune.py).
FINE_TUNE: dict[str, Any] = {
    "flavor_id": d.FLAVOR_CPU_8U, "train_type": "LORA", "base_asset_id": "asset-qwen2-7b",
    "inputs": [{"name": "data_url", "obs_url": "obs://b/sft-data/"}],
    "output_model": {"obs_path": "obs://b/models/qwen-lora/", "local_path": "/home/ma-user/model"},
    "asset_model": {"name": "qwen-lora", "version": "1.0.0", "type": "LLM", "desc": "LoRA of Qwen2 7B"},
    "ftjob_config": {"model_type": "qwen2", "task_env": [{"env_name": "LEARNING_RATE", "value": "1e-4"}],
                     "checkpoint_config": {"save_checkpoints_max": 2, "skipped_steps": 0}},
    "custom_metrics": [{"exec": {"command": ["python", "/home/ma-user/metrics.py"]}}],
    "wait_for": "completed",
}
