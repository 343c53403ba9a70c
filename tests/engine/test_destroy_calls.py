"""`pulumi destroy` through the real engine makes the fewest calls that keep every guarantee.

Short path (a job that stops at once, or has already ended): stop, delete, one read that answers the
platform's own not-found; no listing, since the accepted delete already proves that the ID and the
endpoint address the job. The full path (reads and a wait for the stop) runs only when the platform
asks for it: here, a delete refused in the task's status. A gateway's 404 on the delete is still an
error that keeps the job in the state and on the platform, and a not-found before anything was
accepted is still checked against a listing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from pulumi_mltrain.emulator import EmulatorHandle
from pulumi_mltrain.emulator import defaults as d
from support.pulumi_cli import Stack
from support.stacks import alaya_job_args

TASK = "dynamic/alaya:TrainingJob"
JOB = "dynamic/modelarts:TrainingJob"
ALAYA_STOP, ALAYA_DELETE = "POST /v1/training/instance/*/stop", "DELETE /v1/training/instance/*/delete"
ALAYA_DETAIL, ALAYA_LIST = "GET /v1/training/instance/*/detail", "GET /v1/training/instance/list"
REFUSED = {"status": 409, "message": "stop the task before deleting it", "data": {}}
GATEWAY_404 = {"error_code": "APIG.0101", "error_msg": "The API does not exist or has not been published in the "
               "environment", "request_id": "2f6d3c1e"}
ALGORITHM = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
             "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}


def calls_during(emulator: EmulatorHandle, command: Callable[[], Any]) -> Counter[str]:
    """The platform calls `command` made, by method and route (IDs as `*`)."""
    before = Counter(emulator.admin.requests()["endpoints"])
    command()
    after = Counter(emulator.admin.requests()["endpoints"])
    out: Counter[str] = Counter()
    for key, count in (after - before).items():
        method, _, route = key.partition(" ")
        parts = ["*" if p.startswith("{") and p != "{project_id}" else p for p in route.split("/")]
        out[f"{method} {'/'.join(parts)}"] += count
    return out


def tasks(emulator: EmulatorHandle) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


def alaya_api(emulator: EmulatorHandle) -> httpx.Client:
    return httpx.Client(base_url=emulator.url, headers={"Authorization": f"Bearer {emulator.alaya_api_key}"})


@pytest.mark.parametrize("ended", [False, True], ids=["running", "stopped-out-of-band"])
def test_alaya_destroy_takes_the_short_path(ended: bool, emulator: EmulatorHandle,
                                            alaya_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(task_state_delay=0.0, delete_delay=0.0)
    stack = alaya_stack(job=alaya_job_args(wait_for="running"))
    stack.up()
    [task] = tasks(emulator)
    if ended:
        with alaya_api(emulator) as api:
            assert api.post(f"/v1/training/instance/{task['id']}/stop").json()["status"] == 200

    calls = calls_during(emulator, stack.destroy)
    # A stopped task's stop is refused (409) and counted like any call: still one stop, one delete.
    assert calls == {ALAYA_STOP: 1, ALAYA_DELETE: 1, ALAYA_DETAIL: 1}, calls
    assert tasks(emulator) == [] and stack.resources(TASK) == []


def test_alaya_delete_refused_in_the_task_status_takes_the_full_path(emulator: EmulatorHandle,
                                                                     alaya_stack: Callable[..., Stack]) -> None:
    stack = alaya_stack(job=alaya_job_args())
    stack.up()
    # The platform still stops the task when the delete arrives: it refuses it once in that status.
    emulator.admin.set_faults([{"method": "DELETE", "path": "/v1/training/instance/*/delete", "kind": "respond",
                                "status": 200, "body": REFUSED, "times": 1}])
    calls = calls_during(emulator, stack.destroy)
    assert emulator.admin.requests()["faults"]["total"] == 1
    assert calls[ALAYA_DELETE] == 2, calls
    assert calls[ALAYA_DETAIL] >= 2, "the full path reads the task before deleting it again"
    assert tasks(emulator) == [] and stack.resources(TASK) == []


def test_a_gateway_404_on_the_delete_keeps_the_task(emulator: EmulatorHandle,
                                                    alaya_stack: Callable[..., Stack]) -> None:
    stack = alaya_stack(job=alaya_job_args())
    stack.up()
    [task_id] = [r["id"] for r in stack.resources(TASK)]
    emulator.admin.set_faults([{"method": "DELETE", "path": "/v1/training/instance/*/delete", "kind": "respond",
                                "status": 404, "body": GATEWAY_404}])
    result = stack.destroy(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert "check `mltrain:alayaEndpoint`" in output, output[-3000:]
    assert [r["id"] for r in stack.resources(TASK)] == [task_id], "still in the state"
    assert [t["id"] for t in tasks(emulator)] == [task_id], "still on the platform"

    emulator.admin.clear_faults()
    stack.destroy()
    assert tasks(emulator) == []


def test_a_task_gone_before_the_destroy_is_checked_against_the_listing(emulator: EmulatorHandle,
                                                                       alaya_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(delete_delay=0.0)
    stack = alaya_stack(job=alaya_job_args())
    stack.up()
    [task] = tasks(emulator)
    with alaya_api(emulator) as api:
        api.post(f"/v1/training/instance/{task['id']}/stop")
        assert api.delete(f"/v1/training/instance/{task['id']}/delete").json()["status"] == 200
    calls = calls_during(emulator, stack.destroy)
    assert calls == {ALAYA_STOP: 1, ALAYA_LIST: 1}, "the stop's not-found is confirmed by a listing"
    assert stack.resources(TASK) == []


@pytest.mark.parametrize("ended", [False, True], ids=["running", "completed"])
def test_modelarts_destroy_calls(ended: bool, emulator: EmulatorHandle,
                                 modelarts_stack: Callable[..., Stack]) -> None:
    """A job (and the algorithm it runs): terminate, DELETE, reads until gone; no search or list."""
    stack = modelarts_stack(jobs={"job": {"flavor_id": d.FLAVOR_CPU_8U, "wait_for": "running"}},
                            algorithm=ALGORITHM)
    emulator.admin.set_settings(modelarts_run_seconds=3600, delete_delay=0.0)
    stack.up()
    if ended:
        emulator.admin.set_settings(modelarts_run_seconds=0.0)
        emulator.admin.advance(1)
    calls = calls_during(emulator, stack.destroy)
    calls.pop("POST /v3/auth/tokens", None)  # the new provider process's one token
    job, algorithm = "/v2/{project_id}/training-jobs/*", "/v2/{project_id}/algorithms/*"
    terminate, delete, read = f"POST {job}/actions", f"DELETE {job}", f"GET {job}"
    algorithm_calls = {f"DELETE {algorithm}": 1, f"GET {algorithm}": 1}
    if ended:  # terminate refused (not live), DELETE, one read
        assert calls == {terminate: 1, delete: 1, read: 1, **algorithm_calls}, calls
    else:  # terminate answers Terminating: reads until it has stopped, DELETE, a read
        assert calls[read] >= 2 and calls == {terminate: 1, delete: 1, read: calls[read], **algorithm_calls}, calls
    state = emulator.admin.state()["modelarts"]
    assert state["jobs"] == state["algorithms"] == [] and stack.resources(JOB) == []
