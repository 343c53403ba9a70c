"""Checkpoints, in the provider against the emulator: a first run starts fresh; a new run of the same
resource (a replacement_trigger, a changed input, a held failure run again) starts from the checkpoint of
the run it replaces and names it in `resumed_from`, unless `checkpoint.resume` is false; a change of
`resume` alone starts no run.

ModelArts: the checkpoint is an OBS output channel, predownloaded (`prefetch_to_local`) by a resuming
run. Alaya NeW: a directory on a writable NAS mount, which the task's env names to the script. The engine
tier runs the same through `pulumi up` (tests/engine/test_checkpoints_engine.py)."""

from __future__ import annotations

from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain import checkpoints
from pulumi_mltrain.cli.abandoned import Backend, stack_record
from pulumi_mltrain.cli.history import run_history
from pulumi_mltrain.ownership import project_and_stack
from support import inprocess
from support.platforms import PLATFORMS

MOUNT = {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity", "file_directory": "ckpt",
         "mount_path": "/root/nas/ckpt", "read_only": False}
ALAYA = PLATFORMS["alaya"].job_args(storage_mounts=[MOUNT], checkpoint={"path": "/root/nas/ckpt/sft"})
MODELARTS = PLATFORMS["modelarts"].job_args(checkpoint={"obs_url": "obs://b/ckpt/sft/"})
ARGS = {"alaya": ALAYA, "modelarts": MODELARTS}


def submitted(emulator: EmulatorHandle, platform: str, object_id: str) -> dict[str, Any]:
    """How the job `object_id` was submitted, as the emulator holds it: ModelArts' checkpoint channel
    (algorithm.outputs), Alaya NeW's checkpoint env."""
    found = PLATFORMS[platform]
    job = next(j for j in found.stored_jobs(emulator) if found.job_id(j) == object_id)
    if platform == "modelarts":
        channel = next(o for o in job["algorithm"]["outputs"] if o["name"] == "checkpoint_url")
        return {"obs_url": channel["remote"]["obs"]["obs_url"], "prefetch": channel["prefetch_to_local"]}
    return {k: v for k, v in job["env"].items() if k in (checkpoints.ENV_DIR, checkpoints.ENV_RESUME,
                                                          checkpoints.ENV_RESUMED_FROM)}


def replaced_by_trigger(job: inprocess.Created) -> None:
    """A replacement_trigger's replace, in the engine's order (no diff): the check against the state, the
    replacement's check, the old job's delete, then the create."""
    inprocess.fresh_process()
    inprocess.checked(job.handler, job.declared, olds=job.inputs)
    news = inprocess.checked(job.handler, job.declared)
    job.handler.delete(job.id, job.state)
    result = job.handler.create(news)
    job.id, job.state, job.inputs = result.id, {**news, **result.outputs}, news


@pytest.mark.parametrize("platform", ["modelarts", "alaya"])
def test_a_new_run_resumes_from_the_checkpoint_of_the_run_it_replaces(emulator: EmulatorHandle,
                                                                      platform: str) -> None:
    emulator.admin.set_settings(delete_delay=0.0)
    handler = inprocess.handler(f"{platform}:TrainingJob", emulator)
    job = inprocess.Created(handler, ARGS[platform])
    first = job.id
    assert job.state.get(checkpoints.RESUMED_FROM) is None, "a first run has no previous run"
    fresh = ({"obs_url": "/b/ckpt/sft/", "prefetch": False} if platform == "modelarts" else
             {"MLTRAIN_CHECKPOINT_DIR": "/root/nas/ckpt/sft", "MLTRAIN_RESUME": "false"})
    assert submitted(emulator, platform, first) == fresh

    replaced_by_trigger(job)
    assert job.id != first
    assert job.state[checkpoints.RESUMED_FROM] == first
    resumed = ({"obs_url": "/b/ckpt/sft/", "prefetch": True} if platform == "modelarts" else
               {"MLTRAIN_CHECKPOINT_DIR": "/root/nas/ckpt/sft", "MLTRAIN_RESUME": "true",
                "MLTRAIN_RESUMED_FROM": first})
    assert submitted(emulator, platform, job.id) == resumed

    # A refresh keeps the lineage and reads no drift (the channel is the checkpoint's, not an output).
    declared = {k: v for k, v in job.inputs.items() if not k.startswith("__")}
    assert {k: v for k, v in job.refresh().items() if not k.startswith("__")} == declared
    assert job.state[checkpoints.RESUMED_FROM] == first

    # A changed input that replaces the job: the next run resumes from the second one.
    second = job.id
    changed = {"start_command": "python3 train.py --lr 1e-4"} if platform == "alaya" else {"node_count": 2}
    job.declared = {**job.declared, **changed}
    assert job.up().replaces
    assert job.state[checkpoints.RESUMED_FROM] == second
    assert submitted(emulator, platform, job.id) == {
        **resumed, **({"MLTRAIN_RESUMED_FROM": second} if platform == "alaya" else {})}


@pytest.mark.parametrize("platform", ["modelarts", "alaya"])
def test_resume_false_starts_the_next_run_fresh_and_alone_starts_none(emulator: EmulatorHandle,
                                                                      platform: str) -> None:
    emulator.admin.set_settings(delete_delay=0.0)
    handler = inprocess.handler(f"{platform}:TrainingJob", emulator)
    job = inprocess.Created(handler, ARGS[platform])
    first = job.id
    checkpoint = {**ARGS[platform]["checkpoint"], "resume": False}
    job.declared = {**job.declared, "checkpoint": checkpoint}
    _, diff = job.preview()
    assert not diff.changes, "a change of resume alone is recorded, it starts no run"
    replaced_by_trigger(job)
    assert job.state.get(checkpoints.RESUMED_FROM) is None
    fresh = ({"obs_url": "/b/ckpt/sft/", "prefetch": False} if platform == "modelarts" else
             {"MLTRAIN_CHECKPOINT_DIR": "/root/nas/ckpt/sft", "MLTRAIN_RESUME": "false"})
    assert job.id != first and submitted(emulator, platform, job.id) == fresh


def test_a_replacement_created_first_resumes_from_the_job_it_removes(emulator: EmulatorHandle) -> None:
    """The plugin's create-first replace (a trigger without deleteBeforeReplace): no delete came first, so
    the create finds the previous run as its own job of the name, which it removes before it submits."""
    emulator.admin.set_settings(delete_delay=0.0)
    handler = inprocess.handler("modelarts:TrainingJob", emulator)
    job = inprocess.Created(handler, MODELARTS)
    first = job.id
    inprocess.fresh_process()
    other = inprocess.serving("modelarts:TrainingJob", inprocess.settings("modelarts", emulator))  # no lineage
    inprocess.checked(other, job.declared, olds=job.inputs)
    news = inprocess.checked(other, job.declared)
    created = other.create(news)
    assert created.outputs[checkpoints.RESUMED_FROM] == first
    assert submitted(emulator, "modelarts", created.id)["prefetch"] is True
    assert first not in [PLATFORMS["modelarts"].job_id(j) for j in PLATFORMS["modelarts"].stored_jobs(emulator)
                         if not j["deleting"]]


@pytest.mark.parametrize(("platform", "args", "field", "says"), [
    ("alaya", {**ALAYA, "checkpoint": {"path": "/data/ckpt"}}, "checkpoint.path", "is on none of storage_mounts"),
    ("alaya", {**ALAYA, "storage_mounts": [{**MOUNT, "read_only": True}]}, "checkpoint.path",
     "is on the read-only mount /root/nas/ckpt"),
    ("alaya", {**ALAYA, "env": {"MLTRAIN_RESUME": "true"}}, "env.MLTRAIN_RESUME", "is reserved with a checkpoint"),
    ("modelarts", {**MODELARTS, "outputs": [{"name": "checkpoint_url", "obs_url": "obs://b/out/"}]},
     "checkpoint.name", "checkpoint_url is already used by outputs[0]"),
])
def test_a_checkpoint_the_platform_cannot_keep_fails_the_preview(emulator: EmulatorHandle, platform: str,
                                                                 args: dict[str, Any], field: str, says: str) -> None:
    handler = inprocess.handler(f"{platform}:TrainingJob", emulator)
    found = inprocess.failures(handler, {**inprocess.OWNER, "name": "job", **args})
    assert [f for f, reason in found if says in reason] == [field], found


def test_a_held_failure_run_again_resumes_from_the_failed_run(emulator: EmulatorHandle) -> None:
    """max_attempts=2: the failed first run is held, and the next `pulumi up` starts attempt 2 from its
    checkpoint (the diff asks for the replace; the delete, then the create follow)."""
    emulator.admin.set_settings(task_state_delay=0.1, subscription_delay=0.1, fail_task_names="doomed",
                                succeed_after=0.5, delete_delay=0.0)
    handler = inprocess.handler("alaya:TrainingJob", emulator)
    args = {**inprocess.OWNER, **ALAYA, "name": "doomed-sft", "wait_for": "completed", "max_attempts": 2}
    props = inprocess.checked(handler, args)
    first = handler.create(props)
    assert first.failed and first.outputs.get(checkpoints.RESUMED_FROM) is None
    stored = {**props, **first.outputs}
    assert handler.diff(stored, inprocess.checked(handler, args, olds=props), first.id).replaces
    handler.delete(first.id, stored)
    emulator.admin.set_settings(fail_task_names="^$")
    second = handler.create(inprocess.checked(handler, args))
    assert second.problem is None and second.outputs[checkpoints.RESUMED_FROM] == first.id, second.outputs
    assert submitted(emulator, "alaya", second.id) == {
        "MLTRAIN_CHECKPOINT_DIR": "/root/nas/ckpt/sft", "MLTRAIN_RESUME": "true", "MLTRAIN_RESUMED_FROM": first.id}


@pytest.mark.parametrize("platform", ["modelarts", "alaya"])
def test_the_run_history_names_the_run_each_one_resumed_from(emulator: EmulatorHandle, platform: str) -> None:
    """`mltrain-runs history` shows the lineage: each kept record and the current run name the run whose
    checkpoint they started with, as the platform keeps it (a ModelArts job tag, an Alaya NeW task's env)."""
    emulator.admin.set_settings(task_state_delay=0.0, modelarts_phase_delay=0.0, modelarts_run_seconds=3600,
                                delete_delay=0.0)
    handler = inprocess.handler(f"{platform}:TrainingJob", emulator, **{"mltrain:keepRuns": "5"})
    job = inprocess.Created(handler, ARGS[platform], name=None)  # a provider-chosen name: records are kept
    ids = [job.id]
    for _ in range(2):
        replaced_by_trigger(job)
        ids.append(job.id)
    urn = inprocess.OWNER["__mltrain_urn"]
    exported = {"deployment": {"resources": [{"urn": urn, "type": PLATFORMS[platform].training_job.token,
                                              "id": job.id, "inputs": job.inputs, "outputs": job.state}]}}
    backend = Backend([stack_record(*project_and_stack(urn), exported)])
    runs = run_history(inprocess.settings(platform, emulator), backend=backend, platforms=[platform])
    assert {r.job_id: r.resumed_from for r in runs} == {ids[0]: None, ids[1]: ids[0], ids[2]: ids[1]}
    assert [r.record for r in runs if r.job_id != job.id] == [True, True], "the earlier runs are records"
