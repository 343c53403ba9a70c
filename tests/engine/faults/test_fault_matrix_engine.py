"""Faults through the engine: one stack of both platforms runs the cases of the fault matrix whose
outcome the engine records (tests/inprocess/faults/test_fault_matrix.py holds each case in-process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mltrain_emulator import defaults as d
from support import stacks
from support.fault_matrix import (
    DETAIL,
    ENGINE_CASES,
    MODELARTS_JOB,
    SECRET_ENV,
    platform_ids,
    secret_values,
    stack_ids,
)
from support.pulumi_cli import Stack


@pytest.mark.engine
def test_faults_through_the_engine(emulator: Any, mixed: Callable[..., Stack]) -> None:
    """What the engine records after creates the provider recovered (or refused) is what the platform holds;
    then a `destroy` meeting 5xx and malformed answers still empties the platform.

    One `up` of three jobs, one case of the matrix each: an Alaya NeW create whose connection drops after the
    commit, a ModelArts one likewise, and an Alaya NeW create refused with 403 (it starts once the first
    Alaya NeW job is recorded, so the dropped connection is the first job's)."""
    dropped, refused, ma_dropped = (ENGINE_CASES[n] for n in ("connection dropped after the create was committed",
                                                              "403 for a product the key may not use",
                                                              "ModelArts connection dropped after the create was "
                                                              "committed"))
    emulator.admin.set_settings(**refused.settings)
    stack = mixed({
        "job-dropped": {"kind": "alaya", "args": stacks.alaya_job_args(product_code=d.PRODUCT_TRAIN_1)},
        "job-ma-dropped": {"kind": "modelarts", "args": MODELARTS_JOB},
        "job-refused": {"kind": "alaya", "args": stacks.alaya_job_args(), "dependsOn": ["job-dropped"]},
    }, {"secretEnv": SECRET_ENV})
    emulator.admin.set_faults([*dropped.faults, *ma_dropped.faults])

    result = stack.up("--continue-on-error", check=False)
    output = result.stdout + result.stderr
    assert emulator.admin.requests()["faults"]["total"] == 2, "both connections were dropped after the commit"
    # The recovered creates (both platforms): each records its one job.
    assert len(stack_ids(stack, "alaya")) == 1 and len(stack_ids(stack, "modelarts")) == 1, output[-4000:]
    # The refused create: the command fails, naming the cause and the resource.
    assert result.returncode != 0
    assert str(refused.error) in output and "TrainingJob 'job-refused" in output, output[-4000:]
    leaked = [v for v in secret_values(emulator) if v in output]
    assert not leaked, f"secret values in the output: {leaked}"
    for platform in ("alaya", "modelarts"):
        assert platform_ids(emulator, platform) == stack_ids(stack, platform), \
            f"no duplicate and no orphan on {platform}: the stack and the platform hold the same jobs"

    # A destroy that meets 5xx and malformed answers (was test_destroy_survives_faults).
    emulator.admin.set_faults([
        {"method": "POST", "path": "/v1/training/instance/*/stop", "kind": "status", "status": 503, "times": 1},
        {"method": "DELETE", "path": "/v1/training/instance/*/delete", "kind": "status", "status": 500, "times": 2},
        {"method": "GET", "path": DETAIL, "kind": "malformed", "times": 1},
    ])
    stack.destroy()
    assert emulator.admin.requests()["faults"]["total"] > 2, "the destroy met faults"
    for platform in ("alaya", "modelarts"):
        assert platform_ids(emulator, platform) == []
        assert stack.resources(f"dynamic/{platform}:TrainingJob") == []
