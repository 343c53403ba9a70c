"""Training jobs as runs, in the provider itself (the in-process tier): `mltrain:replaceRunning` is the
stack-wide default of `replace_running`, `run_reason` says why each run exists, and `stopped` stops a
run in place. Held failures, cancelled waits and replacements created first: test_automation_safety.py."""

from __future__ import annotations

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain import runs
from support import inprocess
from support.stacks import alaya_job_args


def test_the_stack_wide_replace_running_default_refuses(emulator: EmulatorHandle) -> None:
    """`mltrain:replaceRunning=refuse` guards a job that does not set replace_running itself."""
    emulator.admin.set_settings(task_state_delay=0.1)
    job = {**inprocess.OWNER, **alaya_job_args(name="live-sft", wait_for="running")}
    jobs = inprocess.handler("alaya:TrainingJob", emulator, **{"mltrain:replaceRunning": "refuse"})
    props = inprocess.checked(jobs, job)
    outs = dict(jobs.create(props).outputs)
    changed = {**job, "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu"}
    refused = inprocess.failures_against(jobs, outs, changed)
    assert [p for p, _ in refused] == ["replace_running"] and "RUNNING" in refused[0][1], refused
    allowed = inprocess.handler("alaya:TrainingJob", emulator)
    assert inprocess.failures_against(allowed, outs, changed) == [], "allow is the default without the key"
    assert inprocess.failures_against(jobs, outs, {**changed, "replace_running": "allow"}) == [], \
        "a job's own value wins"


def test_run_reason_says_why_each_run_exists(emulator: EmulatorHandle) -> None:
    """`run_reason`: the first run, a change that keeps the run (and a refresh, and a change in place
    after it) keeps its reason, a
    change that replaces names its fields with GPUs and cost, a replace of unchanged inputs (a
    replacement_trigger) is recorded as such; never part of a diff."""
    emulator.admin.set_settings(task_state_delay=0.1)
    job = inprocess.Created(inprocess.handler("alaya:TrainingJob", emulator), alaya_job_args())
    costs = f" ({job.state['gpu_count']} GPUs, {job.state['cost_per_hour']:g}/h)"
    assert job.state["gpu_count"] == 8 and job.state["cost_per_hour"], job.state
    assert job.inputs["run_reason"] == job.state["run_reason"] == "first run" + costs, job.state

    job.declared["description"] = "recorded, no new run"
    news, diff = job.preview()
    assert news["run_reason"] == "first run" + costs and diff.changes and not diff.replaces, (news, diff)
    job.up()
    assert job.state["run_reason"] == "first run" + costs
    assert job.refresh()["run_reason"] == job.state["run_reason"] == "first run" + costs, "kept in the inputs too"
    news, diff = job.preview()
    assert not diff.changes and news["run_reason"] == "first run" + costs, diff
    job.declared["description"] = "changed after a refresh"
    news, diff = job.preview()
    assert news["run_reason"] == "first run" + costs and diff.changes and not diff.replaces, (news, diff)
    job.up()
    assert job.state["run_reason"] == "first run" + costs

    first = job.id
    job.declared.update(image="harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu", start_command="python3 t.py")
    news, diff = job.preview()
    said = "new run: changing image, start_command replaces the training task" + costs
    assert news["run_reason"] == said and diff.replaces == ("image", "start_command"), (news, diff)
    job.up()
    assert job.id != first and job.state["run_reason"] == said, job.state
    news, diff = job.preview()
    assert not diff.changes and news["run_reason"] == said, "the new run keeps its reason"

    # A replace the inputs do not show (a replacement_trigger): the engine deletes and creates.
    job.handler.delete(job.id, job.state)
    outs = dict(job.handler.create(news).outputs)
    assert outs["run_reason"] == runs.FORCED + costs, outs
    job.handler.delete(str(outs["training_task_id"]), {**news, **outs})


def _writes(emulator: EmulatorHandle) -> dict[str, int]:
    """The platform calls that change something (IAM token requests aside), by endpoint."""
    return {k: int(v) for k, v in emulator.admin.requests()["endpoints"].items()
            if not k.startswith("GET ") and "/auth/tokens" not in k}


MA_JOB = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
          "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_stopped_stops_a_running_job_in_place(emulator: EmulatorHandle, platform: str) -> None:
    """`stopped=True`: an update that stops the live job and keeps its ID and record; back to false
    records only (nothing is started); a create with stopped=True fails its preview, and is refused
    before any call at `up`."""
    emulator.admin.set_settings(task_state_delay=0.1, modelarts_phase_delay=0.1, modelarts_run_seconds=600)
    kind, args, ended = (("alaya:TrainingJob", alaya_job_args(wait_for="running"), "STOPPED") if platform == "alaya"
                         else ("modelarts:TrainingJob", {**MA_JOB, "wait_for": "running"}, "Terminated"))
    status = "status" if platform == "alaya" else "phase"
    handler = inprocess.handler(kind, emulator)
    job = inprocess.Created(handler, args)
    first = job.id
    assert job.state[status] in ("RUNNING", "Running"), job.state

    job.declared["stopped"] = True
    diff = job.up()
    assert diff.changes and not diff.replaces, diff
    assert job.id == first and job.state[status] == ended and job.state["stopped"] is True, job.state
    assert inprocess.platform_ids(emulator, platform) == [first], "stopped in place, not deleted"
    _, diff = job.preview()
    assert not diff.changes, diff

    calls = _writes(emulator)
    job.declared["stopped"] = False
    job.up()
    assert job.id == first and job.state[status] == ended, job.state
    assert _writes(emulator) == calls, "a stopped job is not started again (no write call)"

    refused = inprocess.failures(handler, {**inprocess.OWNER, "name": "never", **args, "stopped": True})
    assert [(p, r.split(": ", 1)[1]) for p, r in refused] == [
        ("stopped", f"stopped is true, and this would create a {handler.noun} (its first run, or one that "
                    "replaces the job): stopped=True stops one that exists; set stopped=False")], refused
    with pytest.raises(Exception, match=r"stopped=True stops a training (task|job) that exists"):
        # Inputs that bypassed the preview (checked without the flag, then given it): still no call.
        handler.create({**inprocess.checked(handler, {**inprocess.OWNER, "name": "never", **args}), "stopped": True})
    assert inprocess.platform_ids(emulator, platform) == [first], "nothing created"
