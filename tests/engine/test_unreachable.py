"""A platform that cannot be reached is an error, never proof that a job is gone: `refresh` and `destroy`
fail naming the endpoint and keep the job in the state; once the platform answers again (the same
port, its state file), the job is there, as the state says. (That a destroy of an Alaya NeW job then
removes it is tests/engine/test_destroy_engine.py::test_alaya_destroy_takes_the_short_path's.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from mltrain_emulator import EmulatorServer
from mltrain_emulator.testing import EmulatorAdmin, EmulatorHandle
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]

TASK = "dynamic/alaya:TrainingJob"


def test_an_unreachable_platform_keeps_the_job_in_the_state(tmp_path: Path) -> None:
    saved = tmp_path / "emulator-state.json"
    first = EmulatorServer(state_file=saved).start()
    port = first.port
    try:
        with EmulatorAdmin(first.url) as admin:
            stack = stacks.alaya_stack(EmulatorHandle(url=first.url, admin=admin), tmp_path / "home",
                                       job=stacks.alaya_job_args(), **{"mltrain:maxRetries": "1"})
            stack.up()
        [task_id] = [str(r["id"]) for r in stack.resources(TASK)]
        assert stacks.alaya_task_ids(first.url) == [task_id]
    finally:
        first.stop()

    for command in ("refresh", "destroy"):
        result = getattr(stack, command)(check=False)
        output = result.stdout + result.stderr
        assert result.returncode != 0, output[-3000:]
        # The provider's message alone (no traceback) names the job, call and endpoint.
        assert f": could not connect to http://127.0.0.1:{port} (ConnectError" in output, output[-3000:]
        assert "error: TrainingJob 'job-" in output and "Traceback" not in output, output[-3000:]
        assert [str(r["id"]) for r in stack.resources(TASK)] == [task_id], f"{command} kept the job"

    with EmulatorServer(port=port, state_file=saved) as second:
        assert stacks.alaya_task_ids(second.url) == [task_id], "the job was there all along"
