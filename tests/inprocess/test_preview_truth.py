"""What `pulumi preview` shows in CI must be true: stable IDs, refused credentials, bad input at preview.

What a preview refuses is decided by the provider's `check`, so those cases run in-process against the
emulator (its failures are what the preview prints). What the engine decides runs in the engine stacks
of each platform: that an algorithm updated in place leaves the job that uses it unchanged in
test_modelarts_engine.py::test_modelarts_stack_lifecycle (with this file's ALGORITHM and JOB), and that a
refused key fails `pulumi preview` without printing the secret in
test_alaya_engine.py::test_alaya_stack_lifecycle_secrets_drift_and_a_refused_key.
"""

from __future__ import annotations

import math
from typing import Any

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from support import inprocess
from support.modelarts_declared import USER_JOB as JOB
from support.stacks import alaya_job_args

CREATE = "POST /v1/subscription/training/create"


def alaya_failures(emulator: EmulatorHandle, job: dict[str, Any], **config: str) -> str:
    """The reasons `check` refuses an Alaya NeW job for: what the preview prints."""
    jobs = inprocess.handler("alaya:TrainingJob", emulator, **config)
    return "\n".join(r for _, r in inprocess.failures(jobs, {**inprocess.OWNER, "name": "job", **job}))


def modelarts_failures(emulator: EmulatorHandle, job: dict[str, Any], **config: str) -> str:
    jobs = inprocess.handler("modelarts:TrainingJob", emulator, **config)
    return "\n".join(r for _, r in inprocess.failures(jobs, {**inprocess.OWNER, "name": "job", **job}))


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
