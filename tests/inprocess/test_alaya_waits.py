"""Alaya NeW waits at parity with ModelArts: `wait_for="completed"` succeeds, or fails and leaves nothing.

How long a create waits, what it cleans up and what a check refuses is the provider's own logic, so
the cases run in-process against the emulator (what `create` returns is what `up` records, an
exception records nothing, `check` failures are what a preview prints). That the engine records
nothing for a create that raises is held by tests/inprocess/faults/test_fault_matrix.py's engine runs.
"""

from __future__ import annotations

from typing import Any

from pulumi_mltrain.ownership import FAILED_KEY
from support import inprocess
from support.inprocess import AnyHandler
from support.stacks import alaya_job_args

IMAGE_2_4 = "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu"


def live(emulator: Any) -> list[dict[str, Any]]:
    return [t for t in emulator.admin.state()["alaya"]["tasks"] if t.get("status") != "DELETING"]


def jobs(emulator: Any) -> AnyHandler:
    return inprocess.handler("alaya:TrainingJob", emulator)


def test_wait_for_completed_succeeds(emulator: Any) -> None:
    emulator.admin.set_settings(task_state_delay=0.2, succeed_after=1.0)
    job = inprocess.Created(jobs(emulator), alaya_job_args(wait_for="completed"))
    assert job.state["status"] == "SUCCEEDED"
    assert [t["id"] for t in live(emulator)] == [job.id] == [job.state["training_task_id"]]
    job.delete()
    assert live(emulator) == []


def test_wait_for_completed_fails_and_is_held(emulator: Any) -> None:
    """A run that fails is held: its job stays, ended, as the run's record (on_failure="keep", the
    default), or is deleted (on_failure="delete"); either way the failure is recorded."""
    emulator.admin.set_settings(task_state_delay=0.2, fail_task_names="doomed")
    kept = inprocess.Created(jobs(emulator), alaya_job_args(wait_for="completed", name="doomed-sft"), name=None)
    assert "ended FAILED before it was completed" in str(kept.state[FAILED_KEY]), kept.state
    assert 'stays on the platform, ended, as the run\'s record (on_failure="keep")' in str(kept.state[FAILED_KEY])
    assert [t["id"] for t in live(emulator)] == [kept.id]
    kept.delete()
    deleted = inprocess.Created(jobs(emulator), alaya_job_args(wait_for="completed", name="doomed-sft-2",
                                                               on_failure="delete"), name=None)
    assert "ended FAILED before it was completed" in str(deleted.state[FAILED_KEY])
    assert 'its job was deleted (on_failure="delete")' in str(deleted.state[FAILED_KEY])
    assert live(emulator) == []


def test_copy_and_template_are_refused_at_preview(emulator: Any) -> None:
    refused = inprocess.failures(jobs(emulator), {**inprocess.OWNER, "name": "job",
                                                  **alaya_job_args(create_type="COPY")})
    assert any(f == "create_type" and "create_type COPY cannot work" in r and "use DIRECT" in r
               for f, r in refused), refused


def test_the_replace_guard_refuses_to_replace_a_running_task(emulator: Any) -> None:
    emulator.admin.set_settings(task_state_delay=0.1)
    job = inprocess.Created(jobs(emulator), alaya_job_args(wait_for="running", replace_running="refuse"))
    changed = {**inprocess.OWNER, "name": "job",
               **alaya_job_args(wait_for="running", replace_running="refuse", image=IMAGE_2_4)}
    inprocess.fresh_process()
    [(field, reason)] = inprocess.failures_against(job.handler, job.inputs, changed)
    assert field == "replace_running"
    assert "refuses to replace job" in reason and "RUNNING" in reason and "image" in reason, reason
    job.declared = {**changed, "replace_running": "allow"}
    _, diff = job.preview()  # allow (the default) previews the replace
    assert "image" in diff.replaces, diff.replaces
    job.delete()
    assert live(emulator) == []
