"""A platform that cannot be reached is an error, never proof that a job is gone: `destroy` fails naming
the endpoint and keeps the job in the state (a refresh's failed read keeps it too:
tests/engine/faults/test_not_found.py through the engine, the connect error's message
tests/inprocess/test_transport.py); once the platform answers again (the same port, its state file), the
job is there, as the state says, and `pulumi destroy` removes it making the calls the in-process delete
makes (tests/inprocess/test_destroy_calls.py::test_alaya_delete_takes_the_short_path), and no more."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mltrain_emulator import EmulatorServer
from mltrain_emulator.testing import EmulatorAdmin, EmulatorHandle
from support import stacks
from support.emulated_calls import calls_during, tasks

pytestmark = [pytest.mark.engine, pytest.mark.slow]

TASK = "dynamic/alaya:TrainingJob"
ALAYA_STOP, ALAYA_DELETE = "POST /v1/training/instance/*/stop", "DELETE /v1/training/instance/*/delete"
ALAYA_DETAIL = "GET /v1/training/instance/*/detail"
QUICK = {"task_state_delay": 0.0, "delete_delay": 0.0}


@contextmanager
def refusing(port: int) -> Iterator[None]:
    """Keeps the stopped emulator's port bound and never listening, so connections to it are refused and no
    other process (a client's ephemeral port, another test's server) answers on it meanwhile."""
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", port))
    except OSError:  # the closed server's connections still in TIME_WAIT
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind(("127.0.0.1", port))
    try:
        yield
    finally:
        holder.close()


def test_an_unreachable_platform_keeps_the_job_and_destroy_takes_the_short_path(
        tmp_path: Path) -> None:
    """The stack sets its API key without --secret, so its `up` also shows the warning that says how to
    encrypt it (was tests/engine/test_accounts.py::test_a_plaintext_key_gets_a_warning). Was also
    tests/engine/test_destroy_engine.py::test_alaya_destroy_takes_the_short_path."""
    saved = tmp_path / "emulator-state.json"
    first = EmulatorServer(state_file=saved).start()
    port = first.port
    try:
        with EmulatorAdmin(first.url) as admin:
            admin.set_settings(**QUICK)
            emulator = EmulatorHandle(url=first.url, admin=admin)
            stack = stacks.alaya_stack(emulator, tmp_path / "home", job=stacks.alaya_job_args(wait_for="running"),
                                       **{"mltrain:maxRetries": "1", "mltrain:alayaApiKey": emulator.alaya_api_key})
            up = stack.up()
            output = up.stdout + up.stderr
            assert "`mltrain:alayaApiKey` is stored in plaintext" in output, output[-3000:]
            assert "pulumi config set --secret mltrain:alayaApiKey" in output
        [task_id] = [str(r["id"]) for r in stack.resources(TASK)]
        assert stacks.alaya_task_ids(first.url) == [task_id]
    finally:
        first.stop()

    with refusing(port):
        result = stack.destroy(check=False)
        output = result.stdout + result.stderr
        assert result.returncode != 0, output[-3000:]
        # The provider's message alone (no traceback) names the job, call and endpoint.
        assert f": could not connect to http://127.0.0.1:{port} (ConnectError" in output, output[-3000:]
        assert "error: TrainingJob 'job-" in output and "Traceback" not in output, output[-3000:]
        assert [str(r["id"]) for r in stack.resources(TASK)] == [task_id], "destroy kept the job"

    with EmulatorServer(port=port, state_file=saved) as second, EmulatorAdmin(second.url) as admin:
        assert stacks.alaya_task_ids(second.url) == [task_id], "the job was there all along"
        admin.set_settings(**QUICK)
        emulator = EmulatorHandle(url=second.url, admin=admin)
        calls = calls_during(emulator, stack.destroy)
        assert calls == {ALAYA_STOP: 1, ALAYA_DELETE: 1, ALAYA_DETAIL: 1}, calls
        assert tasks(emulator) == [] and stack.resources(TASK) == []
