"""Program-time functions through the real engine: look-ups, logs and events of a 2-node job, and
the log lines in the error of a job that fails."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from test_modelarts_engine import ALGORITHM_ARGS, job_args, jobs

from pulumi_mltrain.emulator import EmulatorHandle, catalog
from support.pulumi_cli import Stack
from support.stacks import alaya_job_args

pytestmark = pytest.mark.engine

PROGRAM = Path(__file__).parent / "programs" / "functions"


def test_modelarts_lookups_logs_and_events_of_a_two_node_job(
        emulator: EmulatorHandle, modelarts_stack: Callable[..., Stack]) -> None:
    stack = modelarts_stack(project=PROGRAM, platform="modelarts", algorithm=ALGORITHM_ARGS,
                            job=job_args(name="fn-two-nodes", node_count=2, wait_for="completed"))
    stack.up()
    out = stack.outputs()
    [job] = jobs(emulator)
    job_id = job["metadata"]["id"]
    assert out["job"]["job_id"] == job_id and out["job"]["phase"] == "Completed"
    assert out["job"]["tasks"] == ["worker-0", "worker-1"] and out["job"]["node_count"] == 2
    assert out["algorithm"]["algorithm_id"] == job["algorithm"]["id"]
    assert out["algorithm"]["boot_file"] == "/b/code/train.py"  # as the API writes OBS paths
    assert [j["job_id"] for j in out["listed"]["jobs"]] == [job_id]
    logs = out["logs"]
    assert [t["task"] for t in logs["tasks"]] == ["worker-0", "worker-1"]
    for task in logs["tasks"]:
        assert 0 < len(task["lines"]) <= 5, "lines bounds each task's tail"
        assert task["lines"][-1].endswith(f"{task['task']} training finished, exit with 0")
    assert logs["events"][0]["message"] == "Training job fn-two-nodes created"
    assert logs["events"][-1]["message"] == "Job Completed"
    state = json.dumps(stack.export())
    assert "Signature=" not in state and "log_url" not in state, "no presigned link in the state"


def test_a_failed_job_error_ends_with_its_log_and_events(
        emulator: EmulatorHandle, modelarts_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(modelarts_fail_names="^doomed")
    stack = modelarts_stack(project=PROGRAM, platform="modelarts", algorithm=ALGORITHM_ARGS,
                            job=job_args(name="doomed-fn", node_count=2, wait_for="completed"))
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "ended Failed before it was completed" in output
    assert "Last log lines of worker-0:" in output and "Last log lines of worker-1:" in output
    assert "RuntimeError: emulated failure: worker-0 exited with code 1" in output
    assert "Last events:" in output and "Error Job Failed" in output
    assert jobs(emulator) == [], "rolled back after its logs were read"


def test_alaya_lookups_products_and_storages(emulator: EmulatorHandle,
                                             alaya_stack: Callable[..., Stack]) -> None:
    stack = alaya_stack(project=PROGRAM, platform="alaya",
                        job=alaya_job_args(name="fn-alaya-job", wait_for="running"))
    stack.up()
    out = stack.outputs()
    [task] = emulator.admin.state()["alaya"]["tasks"]
    assert out["task"]["task_id"] == task["id"] and out["task"]["name"] == "fn-alaya-job"
    assert out["task"]["worker_count"] == 2 and out["task"]["product_code"] == "PRD-TRAIN-2"
    assert [j["task_id"] for j in out["listed"]["jobs"]] == [task["id"]]
    assert "PRD-TRAIN-2" in out["products"]
    assert out["storages"] == [s["storageId"] for s in catalog.storages()]
