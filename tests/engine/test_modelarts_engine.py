"""ModelArts Algorithm + TrainingJob: lifecycle, wait targets, secrets, failures, tokens, bad input.

The engine runs hold what the engine decides: the example's lifecycle (a no-change preview that calls
no job API, update, replace, refresh after an out-of-band delete, destroy), wait targets and secrets in
one stack, and the timed-out create that the next `up` adopts. What the provider decides (the error a
failing job gives and its cleanup, a token revoked mid-run, which fields a check refuses) runs
in-process against the emulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pulumi_mltrain.config import Settings
from pulumi_mltrain.emulator import EmulatorHandle
from pulumi_mltrain.emulator import defaults as d
from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.modelarts import iam
from pulumi_mltrain.modelarts.algorithm import AlgorithmProvider
from pulumi_mltrain.modelarts.client import ModelArtsClient
from pulumi_mltrain.modelarts.training_job import TrainingJobProvider
from support import inprocess
from support.pulumi_cli import ROOT, Stack, change_counts

PROGRAM = Path(__file__).parent / "programs" / "modelarts_job"
EXAMPLE = ROOT / "examples" / "modelarts-pytorch"
JOB = "dynamic/modelarts:TrainingJob"
ALGORITHM = "dynamic/modelarts:Algorithm"
TOKENS = "POST /v3/auth/tokens"

ALGORITHM_ARGS = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                  "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
                  "inputs": [{"name": "data_url"}], "outputs": [{"name": "train_url"}],
                  "parameters": [{"name": "epochs", "value": "1"}]}


def job_args(**changes: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"flavor_id": d.FLAVOR_CPU_8U,
                            "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
                            "outputs": [{"name": "train_url", "obs_url": "obs://b/out/"}],
                            "log_export_path": "obs://b/logs/"}
    args.update(changes)
    return args


def jobs(emulator: EmulatorHandle) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["modelarts"]["jobs"])


def calls(emulator: EmulatorHandle, prefix: str = "") -> dict[str, int]:
    return {k: v for k, v in emulator.admin.requests()["endpoints"].items() if k.startswith(prefix)}


def api(emulator: EmulatorHandle) -> ModelArtsClient:
    iam.forget_tokens()
    return ModelArtsClient(Settings.load({
        "mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
        "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiUser": emulator.iam_user,
        "mltrain:huaweiDomain": emulator.iam_domain, "mltrain:huaweiPassword": emulator.iam_password}, env={}))


@pytest.mark.engine
@pytest.mark.slow
def test_seed_example_lifecycle(emulator: EmulatorHandle, modelarts_stack: Callable[..., Stack]) -> None:
    stack = modelarts_stack(EXAMPLE)

    stack.up()
    out = stack.outputs()
    [job] = jobs(emulator)
    assert job["metadata"]["id"] == out["job_id"] and out["phase"] in ("Pending", "Running", "Completed")
    assert "log_url" not in out, "no presigned link in the state: get_training_job_logs reads logs"
    assert job["algorithm"]["id"] == out["algorithm_id"]
    assert job["algorithm"]["inputs"][0]["remote"] == {"obs": {"obs_url": "/cnnorth4-job-test-v2/pytorch/"
                                                                          "fast_example/data/"}}
    assert job["spec"]["log_export_path"] == {"obs_url": "/cnnorth4-job-test-v2/pytorch/fast_example/log/"}

    # No change: nothing to do, and no call to the job or algorithm APIs (the program itself reads
    # the flavor and engine catalogues, which is what get_flavors/get_engines are for).
    before = calls(emulator, "")
    assert set(change_counts(stack.preview_json())) == {"same"}
    after = calls(emulator, "")
    changed = {k for k in after if after[k] != before.get(k, 0)}
    assert changed <= {TOKENS, "GET /v2/{project_id}/training-job-flavors",
                       "GET /v2/{project_id}/training-job-engines"}, changed

    # The description changes in place: same job.
    stack.set_config("description", "second run")
    assert "update" in change_counts(stack.preview_json())
    stack.up()
    assert stack.outputs()["job_id"] == out["job_id"]
    assert [j["metadata"]["description"] for j in jobs(emulator)] == ["second run"]

    # Another flavor replaces the job: exactly one job remains, the new one.
    stack.set_config("flavor", d.FLAVOR_GPU_V100)
    assert change_counts(stack.preview_json()).get("replace") == 1
    stack.up()
    new_id = stack.outputs()["job_id"]
    assert new_id != out["job_id"]
    assert [(j["metadata"]["id"], j["spec"]["resource"]["flavor_id"]) for j in jobs(emulator)] == \
        [(new_id, d.FLAVOR_GPU_V100)]

    # Deleted out of band: refresh drops it from the state; up recreates it.
    client = api(emulator)
    client.delete_job(new_id)
    emulator.admin.advance(5)
    stack.refresh()
    assert stack.resources(JOB) == [] and len(stack.resources(ALGORITHM)) == 1
    stack.up()
    assert len(jobs(emulator)) == 1

    stack.destroy()
    state = emulator.admin.state()["modelarts"]
    assert state == {"algorithms": [], "jobs": []}
    assert stack.resources(JOB) == stack.resources(ALGORITHM) == []


@pytest.mark.engine
@pytest.mark.slow
def test_wait_targets_and_secret_environment(emulator: EmulatorHandle,
                                             modelarts_stack: Callable[..., Stack]) -> None:
    stack = modelarts_stack(
        algorithm=ALGORITHM_ARGS, secrets={"sensitiveEnv": {"WANDB_API_KEY": "wandb-secret-value-123"}},
        jobs={"accepted": job_args(), "running": job_args(wait_for="running"),
              "completed": job_args(wait_for="completed", environments={"NCCL_DEBUG": "WARN"})})
    stack.up()
    out = stack.outputs()
    assert out["accepted_phase"] in ("Pending", "Running", "Completed")
    assert out["running_phase"] in ("Running", "Completed")
    assert out["completed_phase"] == "Completed"
    assert len(jobs(emulator)) == 3
    exported = json.dumps(stack.export())
    assert "wandb-secret-value-123" not in exported, "a secret environment value stays encrypted in the state"
    assert d.DEFAULT_IAM_PASSWORD not in exported
    stack.destroy()
    assert emulator.admin.state()["modelarts"] == {"algorithms": [], "jobs": []}


class Providers:
    """An algorithm and a job provider of one process (one token cache), as the engine starts them."""

    def __init__(self, emulator: EmulatorHandle) -> None:
        emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
        self.algorithms = inprocess.configured(AlgorithmProvider(), "modelarts", emulator)
        self.jobs = TrainingJobProvider()
        self.jobs.handler.configure(self.algorithms.handler.settings)

    def algorithm(self) -> str:
        return inprocess.Created(self.algorithms, ALGORITHM_ARGS, name="algo").id

    def job_inputs(self, algorithm_id: str, **args: Any) -> dict[str, Any]:
        return inprocess.checked(self.jobs, {**inprocess.OWNER, "name": "train",
                                             **job_args(algorithm_id=algorithm_id, **args)})


def test_a_failing_job_is_a_clear_error_and_leaves_nothing(emulator: EmulatorHandle) -> None:
    emulator.admin.set_settings(modelarts_fail_names="^doomed")
    providers = Providers(emulator)
    inputs = providers.job_inputs(providers.algorithm(), name="doomed-train", wait_for="completed")
    with pytest.raises(MltrainError) as failed:
        providers.jobs.create(inputs)  # raises: the engine records nothing
    output = str(failed.value)
    assert output.startswith("TrainingJob 'doomed-train': training job 'doomed-train' ("), output
    assert "ended Failed before it was completed" in output and "exited with code 1" in output
    assert "deleted so nothing is left behind" in output
    assert jobs(emulator) == []


def test_a_failed_jobs_error_ends_with_its_log_and_events(emulator: EmulatorHandle) -> None:
    """The error of a 2-node job that fails during `up` ends with the last log lines of each task and the
    job's events, read before the roll-back (was
    test_functions.py::test_a_failed_job_error_ends_with_its_log_and_events; that the engine prints a
    create's error as it is: test_errors.py)."""
    emulator.admin.set_settings(modelarts_fail_names="^doomed")
    providers = Providers(emulator)
    inputs = providers.job_inputs(providers.algorithm(), name="doomed-fn", node_count=2, wait_for="completed")
    with pytest.raises(MltrainError) as failed:
        providers.jobs.create(inputs)  # raises: the engine records nothing
    output = str(failed.value)
    assert "ended Failed before it was completed" in output
    assert "Last log lines of worker-0:" in output and "Last log lines of worker-1:" in output
    assert "RuntimeError: emulated failure: worker-0 exited with code 1" in output
    assert "Last events:" in output and "Error Job Failed" in output
    assert jobs(emulator) == [], "rolled back after its logs were read"


def test_token_expiry_mid_run_is_transparent(emulator: EmulatorHandle) -> None:
    providers = Providers(emulator)
    inputs = providers.job_inputs(providers.algorithm(), wait_for="running")
    emulator.admin.set_faults(["GET /v2/*/training-jobs/*:token_expiry:times=1"])
    assert providers.jobs.create(inputs).outs["phase"] in ("Running", "Completed")
    assert emulator.admin.requests()["faults"]["by_kind"] == {"token_expiry": 1}
    # One token for the provider process (catalogue checks, algorithm, job), one after the revocation.
    assert calls(emulator, TOKENS)[TOKENS] == 2
    assert len(jobs(emulator)) == 1


def test_preview_names_fields_the_platform_would_refuse(emulator: EmulatorHandle) -> None:
    provider = Providers(emulator).jobs

    def refused(args: dict[str, Any]) -> str:
        return "\n".join(r for _, r in inprocess.failures(provider, {**inprocess.OWNER, "name": "job", **args}))

    output = refused(job_args(code_dir="obs://b/code/", boot_file="obs://b/code/train.py",
                              engine_name="PyTorch", engine_version="pytorch_0.0.1", node_count=9))
    assert "node_count 9 exceeds the maximum of 4 nodes for modelarts.vm.cpu.8u" in output
    assert "engine_version pytorch_0.0.1 is not a version of PyTorch" in output

    output = refused(job_args(algorithm_id="00000000-0000-0000-0000-000000000000", flavor_id="modelarts.vm.nope"))
    assert "flavor_id modelarts.vm.nope is not offered here" in output
    assert "algorithm_id algorithm 00000000-0000-0000-0000-000000000000 does not exist" in output
    assert jobs(emulator) == []


@pytest.mark.engine
@pytest.mark.slow
def test_a_timed_out_create_keeps_the_job_and_the_next_up_adopts_it(
        emulator: EmulatorHandle, modelarts_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=1000)
    stack = modelarts_stack(algorithm=ALGORITHM_ARGS,
                            jobs={"train": job_args(wait_for="running", timeouts={"create": 2})})
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    [job] = jobs(emulator)
    job_id = job["metadata"]["id"]
    assert result.returncode != 0
    assert f'adopt_id="{job_id}"' in output and "next `pulumi up` finds it and adopts it" in output
    assert stack.resources(JOB) == []

    emulator.admin.set_settings(modelarts_phase_delay=0.2)
    stack.up()
    assert stack.outputs()["train_id"] == job_id
    assert [j["metadata"]["id"] for j in jobs(emulator)] == [job_id]
    assert emulator.admin.requests()["endpoints"]["POST /v2/{project_id}/training-jobs"] == 1
