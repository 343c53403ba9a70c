"""Checkpoints through the engine: a training job with a checkpoint, re-run by its replacement_trigger,
starts from the previous run's checkpoint, and its `resumed_from` names that run. ModelArts: the new job
is submitted with the checkpoint channel predownloaded (`prefetch_to_local`); Alaya NeW: the new task's
env tells the script to resume from the NAS path, and from which run. The preview marks the runs that
resume (`mltrain-plan`). One stack holds both platforms' jobs in the dynamic (`dyn-*`) and the plugin
(`plug-*`) form; what the provider decides beside it runs in-process (tests/inprocess/test_checkpoints.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from plugin_support import both_forms, both_platforms_stack, by_name, modelarts_job_args

from mltrain_emulator import defaults as d
from pulumi_mltrain import checkpoints
from pulumi_mltrain.cli import plan
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]

MOUNT = {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity", "file_directory": "ckpt",
         "mount_path": "/root/nas/ckpt", "read_only": False}
JOBS = {"alaya": {"a": stacks.alaya_job_args(storage_mounts=[MOUNT], checkpoint={"path": "/root/nas/ckpt/sft"})},
        "modelarts": {"m": modelarts_job_args(checkpoint={"obs_url": "obs://b/ckpt/sft/"})}}
NAMES = ("dyn-a", "plug-a", "dyn-m", "plug-m")


def submitted(emulator: Any) -> dict[str, dict[str, Any]]:
    """job ID -> how the emulator holds its checkpoint: ModelArts' channel (its OBS path and predownload),
    Alaya NeW's env for the script."""
    state = emulator.admin.state()
    found: dict[str, dict[str, Any]] = {}
    for job in state["modelarts"]["jobs"]:
        channel = next(o for o in job["algorithm"]["outputs"] if o["name"] == "checkpoint_url")
        found[job["metadata"]["id"]] = {"obs_url": channel["remote"]["obs"]["obs_url"],
                                        "prefetch": channel["prefetch_to_local"]}
    for task in state["alaya"]["tasks"]:
        found[task["id"]] = {k: v for k, v in task["env"].items() if k in (checkpoints.ENV_DIR, checkpoints.ENV_RESUME,
                                                                    checkpoints.ENV_RESUMED_FROM)}
    return found


def fresh(platform_of: str) -> dict[str, Any]:
    return ({"obs_url": "/b/ckpt/sft/", "prefetch": False} if platform_of.endswith("m") else
            {checkpoints.ENV_DIR: "/root/nas/ckpt/sft", checkpoints.ENV_RESUME: "false"})


def resumed(platform_of: str, previous: str) -> dict[str, Any]:
    return ({"obs_url": "/b/ckpt/sft/", "prefetch": True} if platform_of.endswith("m") else
            {checkpoints.ENV_DIR: "/root/nas/ckpt/sft", checkpoints.ENV_RESUME: "true",
             checkpoints.ENV_RESUMED_FROM: previous})


def test_a_rerun_by_trigger_starts_from_the_previous_runs_checkpoint(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.1, subscription_delay=0.2, modelarts_phase_delay=0.2,
                                delete_delay=0.2)
    stack = both_forms(both_platforms_stack(emulator, tmp_path), JOBS, triggers={"a": "run-1", "m": "run-1"})
    stack.up()
    first = {n: r["id"] for n, r in by_name(stack).items()}
    assert sorted(first) == sorted(NAMES)
    held = submitted(emulator)
    assert {n: held[i] for n, i in first.items()} == {n: fresh(n) for n in NAMES}, "a first run starts fresh"
    assert all(checkpoints.RESUMED_FROM not in r["outputs"] or r["outputs"][checkpoints.RESUMED_FROM] is None
               for r in by_name(stack).values())

    # A new trigger value: the preview marks each run as resuming from the run it replaces.
    both_forms(stack, JOBS, triggers={"a": "run-2", "m": "run-2"})
    preview = stack.preview_json()  # one preview: the plan's impacts and its report read the same one
    [impact] = plan.impacts([preview])
    assert {r.name: r.resumes_from for r in impact.runs} == first, impact.runs
    out = io.StringIO()
    assert plan.main([], stdin=io.StringIO(json.dumps(preview)), stdout=out) == 0
    assert all(f"resumes from {i}" in out.getvalue() for i in first.values()), out.getvalue()

    stack.up()
    second = {n: r["id"] for n, r in by_name(stack).items()}
    assert all(second[n] != first[n] for n in NAMES), (first, second)
    assert {n: r["outputs"].get(checkpoints.RESUMED_FROM) for n, r in by_name(stack).items()} == first
    held = submitted(emulator)
    assert {n: held[i] for n, i in second.items()} == {n: resumed(n, first[n]) for n in NAMES}
    # That a refresh keeps the lineage and reads no drift for the checkpoint (its inputs read back as
    # declared) is the provider's: tests/inprocess/test_checkpoints.py
    # ::test_a_new_run_resumes_from_the_checkpoint_of_the_run_it_replaces, both platforms.
