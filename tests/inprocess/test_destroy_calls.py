"""A delete (what `pulumi destroy` runs) makes the fewest calls that keep every guarantee.

Short path (a job that stops at once, or has already ended): stop, delete, one read that answers the
platform's own not-found; no listing, since the accepted delete already proves that the ID and the
endpoint address the job. The full path (reads and a wait for the stop) runs only when the platform
asks for it: here, a delete refused in the task's status. A gateway's 404 on the delete is still an
error that keeps the job in the state and on the platform, and a not-found before anything was
accepted is still checked against a listing.

Which calls a delete makes is the provider's own logic: the cases run in-process (the handler of a
fresh provider process, as the engine starts one for a destroy, calls `delete` against the emulator
over loopback HTTP; a delete that raises keeps the resource in the state). One case runs through
`pulumi destroy` and counts the same calls the in-process case counts. Every case sets `keepRuns` 0: a
run kept as a record instead is tests/inprocess/test_run_records.py's.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.errors import MltrainError
from support import inprocess
from support.emulated_calls import calls_during, tasks
from support.stacks import alaya_job_args

TASK = "dynamic/alaya:TrainingJob"
ALAYA_STOP, ALAYA_DELETE = "POST /v1/training/instance/*/stop", "DELETE /v1/training/instance/*/delete"
ALAYA_DETAIL, ALAYA_LIST = "GET /v1/training/instance/*/detail", "GET /v1/training/instance/list"
REFUSED = {"status": 409, "message": "stop the task before deleting it", "data": {}}
GATEWAY_404 = {"error_code": "APIG.0101", "error_msg": "The API does not exist or has not been published in the "
               "environment", "request_id": "2f6d3c1e"}
# These cases are about the delete itself: no run is kept as a record (test_run_records.py keeps them).
DELETES = {"mltrain:keepRuns": "0"}
ALGORITHM = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
             "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}




def alaya_api(emulator: EmulatorHandle) -> httpx.Client:
    return httpx.Client(base_url=emulator.url, headers={"Authorization": f"Bearer {emulator.alaya_api_key}"})


class Created:
    """One Alaya NeW task created in-process; `delete` runs in a fresh process, as `pulumi destroy` does."""

    def __init__(self, emulator: EmulatorHandle, **job: Any) -> None:
        self.emulator = emulator
        jobs = inprocess.handler("alaya:TrainingJob", emulator, **DELETES)
        inputs = inprocess.checked(jobs, {**inprocess.OWNER, "name": "job", **alaya_job_args(**job)})
        result = jobs.create(inputs)
        self.id, self.state = result.id, {**inputs, **result.outputs}

    def delete(self) -> None:
        inprocess.handler("alaya:TrainingJob", self.emulator, **DELETES).delete(self.id, self.state)


def stop_out_of_band(emulator: EmulatorHandle, task_id: str) -> None:
    with alaya_api(emulator) as api:
        assert api.post(f"/v1/training/instance/{task_id}/stop").json()["status"] == 200


@pytest.mark.parametrize("ended", [False, True], ids=["running", "stopped-out-of-band"])
def test_alaya_delete_takes_the_short_path(ended: bool, emulator: EmulatorHandle) -> None:
    emulator.admin.set_settings(task_state_delay=0.0, delete_delay=0.0)
    task = Created(emulator, wait_for="running")
    if ended:
        stop_out_of_band(emulator, task.id)

    calls = calls_during(emulator, task.delete)
    # A stopped task's stop is refused (409) and counted like any call: still one stop, one delete.
    assert calls == {ALAYA_STOP: 1, ALAYA_DELETE: 1, ALAYA_DETAIL: 1}, calls
    assert tasks(emulator) == []


def test_alaya_delete_refused_in_the_task_status_takes_the_full_path(emulator: EmulatorHandle) -> None:
    task = Created(emulator)
    # The platform still stops the task when the delete arrives: it refuses it once in that status.
    emulator.admin.set_faults([{"method": "DELETE", "path": "/v1/training/instance/*/delete", "kind": "respond",
                                "status": 200, "body": REFUSED, "times": 1}])
    calls = calls_during(emulator, task.delete)
    assert emulator.admin.requests()["faults"]["total"] == 1
    assert calls[ALAYA_DELETE] == 2, calls
    assert calls[ALAYA_DETAIL] >= 2, "the full path reads the task before deleting it again"
    assert tasks(emulator) == []


def test_a_gateway_404_on_the_delete_keeps_the_task(emulator: EmulatorHandle) -> None:
    task = Created(emulator)
    emulator.admin.set_faults([{"method": "DELETE", "path": "/v1/training/instance/*/delete", "kind": "respond",
                                "status": 404, "body": GATEWAY_404}])
    with pytest.raises(MltrainError) as err:  # the engine keeps a resource whose delete raised
        task.delete()
    assert "check `mltrain:alayaEndpoint`" in str(err.value), str(err.value)
    assert [t["id"] for t in tasks(emulator)] == [task.id], "still on the platform"

    emulator.admin.clear_faults()
    task.delete()
    assert tasks(emulator) == []


def test_a_task_gone_before_the_delete_is_checked_against_the_listing(emulator: EmulatorHandle) -> None:
    emulator.admin.set_settings(delete_delay=0.0)
    task = Created(emulator)
    with alaya_api(emulator) as api:
        api.post(f"/v1/training/instance/{task.id}/stop")
        assert api.delete(f"/v1/training/instance/{task.id}/delete").json()["status"] == 200
    calls = calls_during(emulator, task.delete)  # returns: the engine drops the task from the state
    assert calls == {ALAYA_STOP: 1, ALAYA_LIST: 1}, "the stop's not-found is confirmed by a listing"


@pytest.mark.parametrize("ended", [False, True], ids=["running", "completed"])
def test_modelarts_delete_calls(ended: bool, emulator: EmulatorHandle) -> None:
    """A job (and the algorithm it runs): terminate, DELETE, reads until gone; no search or list."""
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=3600, delete_delay=0.0)
    algorithms = inprocess.handler("modelarts:Algorithm", emulator)
    algorithm_inputs = inprocess.checked(algorithms, {**inprocess.OWNER, "name": "algo", **ALGORITHM})
    algorithm = algorithms.create(algorithm_inputs)
    jobs = inprocess.handler("modelarts:TrainingJob", emulator, **DELETES)
    job_inputs = inprocess.checked(jobs, {**inprocess.OWNER, "name": "job", "flavor_id": d.FLAVOR_CPU_8U,
                                          "wait_for": "running", "algorithm_id": algorithm.id})
    job = jobs.create(job_inputs)
    if ended:
        emulator.admin.set_settings(modelarts_run_seconds=0.0)
        emulator.admin.advance(1)

    def destroy() -> None:  # a fresh process, the job before the algorithm it depends on
        inprocess.handler("modelarts:TrainingJob", emulator, **DELETES).delete(job.id, {**job_inputs, **job.outputs})
        inprocess.handler("modelarts:Algorithm", emulator).delete(
            algorithm.id, {**algorithm_inputs, **algorithm.outputs})

    calls = calls_during(emulator, destroy)
    calls.pop("POST /v3/auth/tokens", None)  # the fresh process's token
    job_path, algorithm_path = "/v2/{project_id}/training-jobs/*", "/v2/{project_id}/algorithms/*"
    terminate, delete, read = f"POST {job_path}/actions", f"DELETE {job_path}", f"GET {job_path}"
    algorithm_calls = {f"DELETE {algorithm_path}": 1, f"GET {algorithm_path}": 1}
    if ended:  # terminate refused (not live), DELETE, one read
        assert calls == {terminate: 1, delete: 1, read: 1, **algorithm_calls}, calls
    else:  # terminate answers Terminating: reads until it has stopped, DELETE, a read
        assert calls[read] >= 2 and calls == {terminate: 1, delete: 1, read: calls[read], **algorithm_calls}, calls
    state = emulator.admin.state()["modelarts"]
    assert state["jobs"] == state["algorithms"] == []
