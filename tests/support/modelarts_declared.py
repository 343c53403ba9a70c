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
