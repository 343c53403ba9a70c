"""Malformed and huge answers through the engine: one stack of both platforms runs the cases the
in-process tests (tests/inprocess/faults/test_answers.py) hold one by one."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from support import stacks
from support.inprocess import platform_ids
from support.malformed_answers import (
    ENGINE_CASE,
    MODELARTS_JOB,
    assert_bounded,
    assert_no_python_errors,
    huge_detail,
    stack_ids,
)
from support.pulumi_cli import Stack


@pytest.mark.engine
@pytest.mark.slow
def test_malformed_and_huge_answers_through_the_engine(emulator: Any, mixed: Callable[..., Stack]) -> None:
    """One stack: a ModelArts job whose create meets a malformed answer, and an Alaya NeW job whose 1 MB reason
    a refresh meets."""
    stack = mixed({"job-modelarts": {"kind": "modelarts", "args": {**MODELARTS_JOB, **ENGINE_CASE.job}},
                   "job-alaya": {"kind": "alaya", "args": stacks.alaya_job_args()}})
    emulator.admin.set_settings(modelarts_run_seconds=600)

    # What `pulumi up` prints for a malformed answer is our error naming the field, with no traceback from
    # below the resource (was test_a_malformed_answer_through_the_engine).
    emulator.admin.set_faults(ENGINE_CASE.faults)
    result = stack.up("--continue-on-error", check=False)
    output = result.stdout + result.stderr
    assert emulator.admin.requests()["faults"]["total"] >= 1, "the fault was injected"
    assert_no_python_errors(output)
    assert result.returncode != 0, output[-4000:]
    assert str(ENGINE_CASE.error) in output and "TrainingJob 'job-modelarts" in output, output[-4000:]
    emulator.admin.clear_faults()
    emulator.admin.advance(30)
    assert platform_ids(emulator, "modelarts") == stack_ids(stack, "modelarts") == []

    # The state the engine writes after refreshing a 1 MB reason stays small
    # (was test_a_huge_reason_keeps_the_state_small).
    [job_id] = stack_ids(stack, "alaya")
    emulator.admin.set_faults([huge_detail("alaya", job_id)])
    result = stack.refresh(check=False)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    [resource] = stack.resources("dynamic/alaya:TrainingJob")
    assert_bounded(resource["outputs"])
    size = len(json.dumps(stack.export()))
    assert size < 500_000, f"a state of {size} characters"
