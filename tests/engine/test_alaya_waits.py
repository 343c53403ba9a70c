"""Alaya NeW waits at parity with ModelArts: `wait_for="completed"` succeeds, or fails and leaves nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from support.pulumi_cli import Stack
from support.stacks import alaya_job_args

pytestmark = [pytest.mark.engine, pytest.mark.slow]
TASK = "dynamic/alaya:TrainingJob"


def live(emulator: Any) -> list[dict[str, Any]]:
    return [t for t in emulator.admin.state()["alaya"]["tasks"] if t.get("status") != "DELETING"]


def test_wait_for_completed_succeeds(emulator: Any, alaya_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(task_state_delay=0.2, succeed_after=1.0)
    stack = alaya_stack(job=alaya_job_args(wait_for="completed"))
    stack.up()
    assert stack.outputs()["status"] == "SUCCEEDED"
    assert [t["id"] for t in live(emulator)] == [stack.outputs()["training_task_id"]]
    stack.destroy()
    assert live(emulator) == []


def test_wait_for_completed_fails_and_rolls_back(emulator: Any, alaya_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(task_state_delay=0.2, fail_task_names="doomed")
    stack = alaya_stack(job=alaya_job_args(wait_for="completed", name="doomed-sft"))
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "ended FAILED before it was completed" in output, output[-3000:]
    assert "It was deleted so that nothing is left behind" in output
    assert live(emulator) == [] and stack.resources(TASK) == []


def test_copy_and_template_are_refused_at_preview(emulator: Any, alaya_stack: Callable[..., Stack]) -> None:
    stack = alaya_stack(job=alaya_job_args(create_type="COPY"))
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "create_type COPY cannot work" in output and "use DIRECT" in output, output[-3000:]


def test_the_replace_guard_refuses_to_replace_a_running_task(emulator: Any,
                                                             alaya_stack: Callable[..., Stack]) -> None:
    emulator.admin.set_settings(task_state_delay=0.1)
    stack = alaya_stack(job=alaya_job_args(wait_for="running", replace_running="refuse"))
    stack.up()
    stack.set_config("job", json.dumps(alaya_job_args(wait_for="running", replace_running="refuse",
                                                      image="harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu")))
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "refuses to replace job" in output and "RUNNING" in output and "image" in output, output[-3000:]
    stack.set_config("job", json.dumps(alaya_job_args(wait_for="running", replace_running="allow",
                                                      image="harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu")))
    assert stack.preview(check=False).returncode == 0, "allow (the default) previews the replace"
    stack.destroy()
