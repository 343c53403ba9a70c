"""`pulumi destroy` of an Alaya NeW task makes the calls the in-process delete makes
(tests/inprocess/test_destroy_calls.py::test_alaya_delete_takes_the_short_path), and no more."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mltrain_emulator import EmulatorHandle
from support.emulated_calls import calls_during, tasks
from support.pulumi_cli import Stack
from support.stacks import alaya_job_args

TASK = "dynamic/alaya:TrainingJob"


ALAYA_STOP, ALAYA_DELETE = "POST /v1/training/instance/*/stop", "DELETE /v1/training/instance/*/delete"


ALAYA_DETAIL, ALAYA_LIST = "GET /v1/training/instance/*/detail", "GET /v1/training/instance/list"




@pytest.mark.engine
def test_alaya_destroy_takes_the_short_path(emulator: EmulatorHandle, alaya_stack: Callable[..., Stack]) -> None:
    """`pulumi destroy` makes the calls `test_alaya_delete_takes_the_short_path` counts, and no more.

    The stack sets its API key without --secret, so its `up` also shows the warning that says how to
    encrypt it (was tests/engine/test_accounts.py::test_a_plaintext_key_gets_a_warning)."""
    emulator.admin.set_settings(task_state_delay=0.0, delete_delay=0.0)
    stack = alaya_stack(job=alaya_job_args(wait_for="running"), **{"mltrain:alayaApiKey": emulator.alaya_api_key})
    up = stack.up()
    output = up.stdout + up.stderr
    assert "`mltrain:alayaApiKey` is stored in plaintext" in output, output[-3000:]
    assert "pulumi config set --secret mltrain:alayaApiKey" in output
    calls = calls_during(emulator, stack.destroy)
    assert calls == {ALAYA_STOP: 1, ALAYA_DELETE: 1, ALAYA_DETAIL: 1}, calls
    assert tasks(emulator) == [] and stack.resources(TASK) == []
