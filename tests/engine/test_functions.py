"""Program-time functions through the real engine: look-ups, logs and events of a 2-node ModelArts job,
and look-ups, products and storages beside an Alaya NeW task, in one stack and one `up`. The log lines
and events in the error of a job that fails are the provider's own (the message its create raises):
in-process, test_modelarts_engine.py::test_a_failing_job_is_a_clear_error_and_leaves_nothing; that the
engine prints a create's error as it is: test_errors.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mltrain_emulator import EmulatorHandle, catalog
from support import stacks
from support.emulated_calls import jobs
from support.modelarts_declared import ALGORITHM_ARGS, job_args
from support.stacks import alaya_job_args

pytestmark = pytest.mark.engine

PROGRAM = Path(__file__).parent / "programs" / "functions"


def test_lookups_logs_and_events_of_both_platforms(emulator: EmulatorHandle, tmp_path: Path) -> None:
    """Was test_modelarts_lookups_logs_and_events_of_a_two_node_job and test_alaya_lookups_products_and_storages."""
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2,
                                subscription_delay=0.2, task_state_delay=0.2)
    stack = stacks.both_platforms_stack(
        emulator, tmp_path, PROGRAM, alayaJob=alaya_job_args(name="fn-alaya-job", wait_for="running"),
        algorithm=ALGORITHM_ARGS, modelartsJob=job_args(name="fn-two-nodes", node_count=2, wait_for="completed"))
    stack.up()
    out = stack.outputs()

    # ModelArts: the job, its algorithm, a listing, and the logs and events of both tasks.
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

    # Alaya NeW: the task, a listing, the products and the storages.
    [task] = emulator.admin.state()["alaya"]["tasks"]
    assert out["task"]["task_id"] == task["id"] and out["task"]["name"] == "fn-alaya-job"
    assert out["task"]["worker_count"] == 2 and out["task"]["product_code"] == "PRD-TRAIN-2"
    assert [j["task_id"] for j in out["listed_tasks"]["jobs"]] == [task["id"]]
    assert "PRD-TRAIN-2" in out["products"]
    assert out["storages"] == [s["storageId"] for s in catalog.storages()]
