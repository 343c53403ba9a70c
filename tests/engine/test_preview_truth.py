"""What `pulumi preview` shows in CI must be true: stable IDs, refused credentials, bad input at preview.

What a preview refuses is decided by the provider's `check`, so those cases run in-process against the
emulator (its failures are what the preview prints). The engine keeps what it decides: that an
algorithm updated in place leaves the job that uses it unchanged, and that a check failure (a refused
key) fails `pulumi preview` without printing the secret.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest

from pulumi_mltrain.alaya.training_job import TrainingJobProvider as AlayaJobs
from pulumi_mltrain.emulator import EmulatorHandle
from pulumi_mltrain.emulator import defaults as d
from pulumi_mltrain.modelarts.training_job import TrainingJobProvider as ModelArtsJobs
from support import inprocess
from support.pulumi_cli import Stack
from support.stacks import alaya_job_args

CREATE = "POST /v1/subscription/training/create"

ALGORITHM = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
             "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
             "inputs": [{"name": "data_url"}], "description": "v1"}
JOB = {"flavor_id": d.FLAVOR_CPU_8U, "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}]}


def steps_by_type(preview: dict[str, Any]) -> dict[str, str]:
    return {s["urn"].split("::")[-2].rsplit(":", 1)[-1] + ":" + s["urn"].split("::")[-1]: s["op"]
            for s in preview.get("steps", [])}


@pytest.mark.engine
@pytest.mark.slow
def test_an_algorithm_description_change_leaves_its_job_unchanged(
        emulator: EmulatorHandle, modelarts_stack: Callable[..., Stack]) -> None:
    stack = modelarts_stack(jobs={"job": dict(JOB)}, algorithm=ALGORITHM)
    stack.up()
    job_id = stack.outputs()["job_id"]
    stack.set_config("algorithm", json.dumps({**ALGORITHM, "description": "v2"}))
    preview = stack.preview_json()
    ops = steps_by_type(preview)
    assert ops.get("Algorithm:algo") == "update", ops
    assert preview["changeSummary"].get("replace", 0) == 0 and preview["changeSummary"].get("same", 0) >= 2
    assert ops.get("TrainingJob:job", "same") == "same", ops  # --json lists only steps that change
    stack.up()
    assert stack.outputs()["job_id"] == job_id, "up updated the algorithm in place and kept the job"
    assert [j["metadata"]["id"] for j in emulator.admin.state()["modelarts"]["jobs"]] == [job_id]
    stack.destroy()


@pytest.mark.engine
@pytest.mark.slow
def test_a_refused_alaya_key_fails_the_preview(emulator: EmulatorHandle,
                                               alaya_stack: Callable[..., Stack]) -> None:
    stack = alaya_stack(job=alaya_job_args())
    stack.set_config("mltrain:alayaApiKey", "not-the-key", secret=True)
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert "401" in output and "mltrain:alayaApiKey" in output and "mltrain:skipCredentialCheck" in output
    assert "not-the-key" not in output
    stack.set_config("mltrain:skipCredentialCheck", "true")
    assert stack.preview(check=False).returncode == 0, "the documented switch lets a preview run without a key"


def alaya_failures(emulator: EmulatorHandle, job: dict[str, Any], **config: str) -> str:
    """The reasons `check` refuses an Alaya NeW job for: what the preview prints."""
    provider = inprocess.configured(AlayaJobs(), "alaya", emulator, **config)
    return "\n".join(r for _, r in inprocess.failures(provider, {**inprocess.OWNER, "name": "job", **job}))


def modelarts_failures(emulator: EmulatorHandle, job: dict[str, Any], **config: str) -> str:
    provider = inprocess.configured(ModelArtsJobs(), "modelarts", emulator, **config)
    return "\n".join(r for _, r in inprocess.failures(provider, {**inprocess.OWNER, "name": "job", **job}))


MODELARTS_JOB = {**JOB, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/t.py",
                 "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}


def test_a_refused_alaya_key_fails_the_check(emulator: EmulatorHandle) -> None:
    output = alaya_failures(emulator, alaya_job_args(), **{"mltrain:alayaApiKey": "not-the-key"})
    assert "401" in output and "mltrain:alayaApiKey" in output and "mltrain:skipCredentialCheck" in output
    assert "not-the-key" not in output
    assert alaya_failures(emulator, alaya_job_args(), **{"mltrain:alayaApiKey": "not-the-key",
                                                         "mltrain:skipCredentialCheck": "true"}) == "", \
        "the documented switch lets a preview run without a key"


def test_a_refused_iam_password_fails_the_check(emulator: EmulatorHandle) -> None:
    output = modelarts_failures(emulator, MODELARTS_JOB, **{"mltrain:huaweiPassword": "not-the-password"})
    assert "mltrain:huaweiPassword" in output and "mltrain:skipCredentialCheck" in output, output
    assert "not-the-password" not in output


def test_input_that_lax_parsing_would_accept_is_refused_at_preview(emulator: EmulatorHandle) -> None:
    # What a program could pass: a boolean count, infinity, an out-of-contract retry count.
    output = alaya_failures(emulator, {**alaya_job_args(worker_count=True, max_retry_count=50),
                                       "timeouts": {"create": math.inf}})
    assert "worker_count must be an integer, not a boolean" in output, output
    assert "timeouts must hold finite numbers only" in output
    assert emulator.admin.requests()["endpoints"].get(CREATE, 0) == 0

    output = alaya_failures(emulator, alaya_job_args(max_retry_count=50))
    assert "max_retry_count" in output and "less than or equal to 10" in output, output


def test_nan_hyperparameters_are_refused_at_preview(emulator: EmulatorHandle) -> None:
    output = modelarts_failures(emulator, {**MODELARTS_JOB, "parameters": [{"name": "lr", "value": math.nan}]})
    assert "parameters must hold finite numbers only" in output, output


def test_a_sold_out_product_is_reported_at_preview(emulator: EmulatorHandle) -> None:
    output = alaya_failures(emulator, alaya_job_args(product_code=d.PRODUCT_SOLDOUT))
    assert f"product_code {d.PRODUCT_SOLDOUT} is out of stock" in output, output
    assert emulator.admin.requests()["endpoints"].get(CREATE, 0) == 0
