"""ModelArts TrainingJob in-process against the emulator: the error a failing job gives, its log lines and
its cleanup, a token revoked mid-run, which fields a check refuses. The engine's part (one stack through
the example's lifecycle) is tests/engine/test_modelarts_engine.py."""

from __future__ import annotations

from typing import Any

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain.ownership import FAILED_KEY
from support import inprocess
from support.emulated_calls import calls, jobs
from support.modelarts_declared import ALGORITHM_ARGS, job_args

TOKENS = "POST /v3/auth/tokens"


class Handlers:
    """The algorithm and job handlers of one provider process (one token cache), as the engine starts them."""

    def __init__(self, emulator: EmulatorHandle) -> None:
        emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
        self.algorithms = inprocess.handler("modelarts:Algorithm", emulator)
        self.jobs = inprocess.serving("modelarts:TrainingJob", self.algorithms.settings)

    def algorithm(self) -> str:
        return inprocess.Created(self.algorithms, ALGORITHM_ARGS, name="algo").id

    def job_inputs(self, algorithm_id: str, **args: Any) -> dict[str, Any]:
        return inprocess.checked(self.jobs, {**inprocess.OWNER, "name": "train",
                                             **job_args(algorithm_id=algorithm_id, **args)})


def test_a_failing_job_is_a_clear_error_and_leaves_nothing(emulator: EmulatorHandle) -> None:
    """on_failure="delete": nothing is left on the platform; the failure is held in the state."""
    emulator.admin.set_settings(modelarts_fail_names="^doomed")
    handlers = Handlers(emulator)
    inputs = handlers.job_inputs(handlers.algorithm(), name="doomed-train", wait_for="completed",
                                 on_failure="delete")
    output = str(handlers.jobs.create(inputs).outputs[FAILED_KEY])  # recorded, and the program raises it
    assert output.startswith("TrainingJob 'doomed-train': training job 'doomed-train' ("), output
    assert "ended Failed before it was completed" in output and "exited with code 1" in output
    assert 'its job was deleted (on_failure="delete")' in output
    assert jobs(emulator) == []


def test_a_failed_jobs_error_ends_with_its_log_and_events(emulator: EmulatorHandle) -> None:
    """The error of a 2-node job that fails during `up` ends with the last log lines of each task and the
    job's events, read before its job is deleted (on_failure="delete"; was
    test_functions.py::test_a_failed_job_error_ends_with_its_log_and_events; that the engine prints a
    create's error as it is: test_errors.py)."""
    emulator.admin.set_settings(modelarts_fail_names="^doomed")
    handlers = Handlers(emulator)
    inputs = handlers.job_inputs(handlers.algorithm(), name="doomed-fn", node_count=2, wait_for="completed",
                                 on_failure="delete")
    output = str(handlers.jobs.create(inputs).outputs[FAILED_KEY])
    assert "ended Failed before it was completed" in output
    assert "Last log lines of worker-0:" in output and "Last log lines of worker-1:" in output
    assert "RuntimeError: emulated failure: worker-0 exited with code 1" in output
    assert "Last events:" in output and "Error Job Failed" in output
    assert jobs(emulator) == [], "deleted after its logs were read"


def test_token_expiry_mid_run_is_transparent(emulator: EmulatorHandle) -> None:
    handlers = Handlers(emulator)
    inputs = handlers.job_inputs(handlers.algorithm(), wait_for="running")
    emulator.admin.set_faults(["GET /v2/*/training-jobs/*:token_expiry:times=1"])
    assert handlers.jobs.create(inputs).outputs["phase"] in ("Running", "Completed")
    assert emulator.admin.requests()["faults"]["by_kind"] == {"token_expiry": 1}
    # One token for the provider process (catalogue checks, algorithm, job), one after the revocation.
    assert calls(emulator, TOKENS)[TOKENS] == 2
    assert len(jobs(emulator)) == 1


def test_preview_names_fields_the_platform_would_refuse(emulator: EmulatorHandle) -> None:
    handler = Handlers(emulator).jobs

    def refused(args: dict[str, Any]) -> str:
        return "\n".join(r for _, r in inprocess.failures(handler, {**inprocess.OWNER, "name": "job", **args}))

    output = refused(job_args(code_dir="obs://b/code/", boot_file="obs://b/code/train.py",
                              engine_name="PyTorch", engine_version="pytorch_0.0.1", node_count=9))
    assert "node_count 9 exceeds the maximum of 4 nodes for modelarts.vm.cpu.8u" in output
    assert "engine_version pytorch_0.0.1 is not a version of PyTorch" in output

    output = refused(job_args(algorithm_id="00000000-0000-0000-0000-000000000000", flavor_id="modelarts.vm.nope"))
    assert "flavor_id modelarts.vm.nope is not offered here" in output
    assert "algorithm_id algorithm 00000000-0000-0000-0000-000000000000 does not exist" in output
    assert jobs(emulator) == []
