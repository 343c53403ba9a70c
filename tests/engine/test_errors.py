"""Provider errors through the real engine read as one message: for check, create, read (refresh),
update and delete, and for a program-time function, the CLI's output names the resource and the
field or call, and holds no Python traceback. Both platforms share one stack, so each command
exercises several resources; a ModelArts job whose create times out is kept on the platform and
adopted by the next `up` in the same two `up` commands."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle, defaults
from pulumi_mltrain.ownership import UNFINISHED_KEY
from support import stacks
from support.pulumi_cli import Stack

pytestmark = pytest.mark.engine

PROGRAM = Path(__file__).parent / "programs" / "errors"
TRACEBACK = "Traceback (most recent call last)"
MOUNT = {"storage_id": defaults.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
         "file_directory": "datasets", "mount_path": "/root/nas/datasets"}
ALGORITHM = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
             "engine_name": defaults.ENGINE_PYTORCH[0], "engine_version": defaults.ENGINE_PYTORCH[1],
             "description": "first"}
# A job that waits to run with a 2 s create deadline: with the platform's phases held, its create times out.
SLOW_JOB = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
            "engine_name": defaults.ENGINE_PYTORCH[0], "engine_version": defaults.ENGINE_PYTORCH[1],
            "flavor_id": defaults.FLAVOR_CPU_8U, "wait_for": "running", "timeouts": {"create": 2}}
JOB_CREATES = "POST /v2/{project_id}/training-jobs"
# The provider's message for a refused call, naming the resource: TrainingJob 'job-1a2b3c4d': Alaya NeW ...
REFUSED = r"({kinds}) '[^']+': (Alaya NeW|Huawei ModelArts) rejected the request \(403 Forbidden\)"


def refused(output: str, *kinds: str) -> bool:
    """Whether `output` holds the refusal of a resource of one of `kinds`."""
    return re.search(REFUSED.format(kinds="|".join(kinds)), output) is not None


def failed(stack: Stack, *command: str) -> str:
    """Run a command that must fail; its whole output (stdout and stderr), checked for tracebacks."""
    result = stack.run(*command, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert TRACEBACK not in output, output
    return output


def both_platforms(emulator: EmulatorHandle, home: Path, **config: Any) -> Stack:
    huawei = {f"mltrain:{key}": value for key, value in {
        "huaweiIamEndpoint": emulator.url, "modelartsEndpoint": emulator.url,
        "huaweiProjectName": emulator.project_name, "huaweiProjectId": emulator.project_id,
        "huaweiUser": emulator.iam_user, "huaweiDomain": emulator.iam_domain}.items()}
    return stacks.alaya_stack(emulator, home, PROGRAM, {"mltrain:huaweiPassword": emulator.iam_password},
                              **{"job": stacks.alaya_job_args(), "algorithm": ALGORITHM, **huawei, **config})


def forbid(emulator: EmulatorHandle, *rules: tuple[str, str]) -> None:
    emulator.admin.set_faults([{"method": method, "path": path, "kind": "status", "status": 403}
                               for method, path in rules])


def test_every_operation_fails_with_one_readable_message(emulator: EmulatorHandle, tmp_path: Path) -> None:
    stack = both_platforms(emulator, tmp_path, job=stacks.alaya_job_args(
        worker_count=0, priority=9, storage_mounts=[{**MOUNT, "mount_path": "mnt/datasets"}]))

    # check: each bad input is a failure naming the resource and the field (the preview stops at the
    # first failing resource, so only the task's inputs are bad; was also
    # test_alaya_engine.py::test_a_preview_names_bad_fields, whose reasons test_check_names_bad_fields holds)
    output = failed(stack, "preview")
    for field in ("worker_count", "priority", r"storage_mounts\[0\]\.mount_path"):
        assert re.search(rf"TrainingJob resource 'job': property {field} .* TrainingJob: {field} ", output), \
            (field, output)
    assert re.search(r"property storage_mounts\[0\]\.mount_path .*absolute", output), output

    # create: the platform refuses the task's create; the mount and the algorithm are created (the
    # engine goes on after the error). The ModelArts job `slow` times out waiting to run: the error
    # says so, and the job is recorded as unfinished (was
    # test_modelarts_engine.py::test_a_timed_out_create_keeps_the_job_and_the_next_up_adopts_it).
    stack.set_config_all({"mount": json.dumps(MOUNT), "job": json.dumps(stacks.alaya_job_args()),
                          "slowJob": json.dumps(SLOW_JOB)})
    emulator.admin.set_settings(modelarts_phase_delay=1000, modelarts_run_seconds=0.8, delete_delay=0.2)
    forbid(emulator, ("POST", "/v1/subscription/training/create"))
    output = failed(stack, "up", "--yes", "--skip-preview", "--continue-on-error")
    assert refused(output, "TrainingJob") and "(POST /v1/subscription/training/create)" in output, output
    assert emulator.admin.state()["modelarts"]["algorithms"], "the algorithm was created"
    [slow] = emulator.admin.state()["modelarts"]["jobs"]
    slow_id = slow["metadata"]["id"]
    # Recorded unfinished: its error is the program's to raise, and the program ended at the task's error.
    [recorded] = stack.resources("modelarts:TrainingJob")
    assert recorded["id"] == slow_id, "timed-out create: recorded"
    assert "recorded as unfinished: the next `pulumi up` goes on waiting" in recorded["outputs"][UNFINISHED_KEY]

    # update: the algorithm's in-place update is refused (the task is created this time: the engine
    # goes on after the error); the timed-out job, running now, is waited for: same ID, created once.
    emulator.admin.clear_faults()
    emulator.admin.set_settings(modelarts_phase_delay=0.2)
    stack.set_config("algorithm", json.dumps({**ALGORITHM, "description": "second"}))
    forbid(emulator, ("PUT", "/v2/*/algorithms/*"))
    output = failed(stack, "up", "--yes", "--skip-preview", "--continue-on-error")
    assert refused(output, "Algorithm") and "(PUT /v2/" in output, output
    assert emulator.admin.state()["alaya"]["tasks"], "the task was created"
    assert [r["id"] for r in stack.resources("modelarts:TrainingJob")] == [slow_id], "timed-out create: waited for"
    assert [j["metadata"]["id"] for j in emulator.admin.state()["modelarts"]["jobs"]] == [slow_id]
    assert emulator.admin.requests()["endpoints"][JOB_CREATES] == 1, "timed-out create: created once"

    # read: every read is refused (the refresh may stop at the first)
    forbid(emulator, ("GET", "/v1/training/instance/*/detail"), ("GET", "/v2/*/algorithms/*"),
           ("GET", "/v1/nasStorage/instance/tenant/page"))
    output = failed(stack, "refresh", "--yes", "--skip-preview")
    assert refused(output, "TrainingJob", "Algorithm", "StorageMount") and "(GET /v" in output, output

    # delete: every delete is refused
    forbid(emulator, ("*", "/v1/training/instance/*/delete"), ("DELETE", "/v2/*/algorithms/*"))
    output = failed(stack, "destroy", "--yes", "--skip-preview")
    assert refused(output, "TrainingJob", "Algorithm"), output
    assert "/delete)" in output or "(DELETE /v2/" in output, output

    # a program-time function (it runs in the program): its error names the call
    emulator.admin.clear_faults()
    stack.set_config("lookup", "no-such-task")
    output = failed(stack, "preview")
    assert "error: Alaya NeW rejected the request (404 Not Found): training task no-such-task not found " \
           "(GET /v1/training/instance/no-such-task/detail)" in output, output
