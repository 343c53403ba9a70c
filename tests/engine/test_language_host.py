"""The repository's language host (scripts/engine/language_host.py) stops on the engine's SIGINT.

The engine stops a plugin by sending SIGINT to its process group, and kills it 5 s later. A host
started with SIGINT ignored (a background job of a non-interactive shell, `nohup`) inherits that
disposition, and Python keeps it: without its own handler the host would sit out the 5 s at the end
of every `pulumi up`, and exit killed rather than cleanly.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from support.pulumi_cli import ROOT, ignore_sigint

pytestmark = pytest.mark.engine  # the host's process, as the engine starts it

HOST = ROOT / "scripts" / "engine" / "language_host.py"


@pytest.fixture
def engine_address() -> Iterator[str]:
    """A listening socket standing in for the engine, so the host's engine watchdog sees it alive."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"127.0.0.1:{sock.getsockname()[1]}"


@pytest.mark.parametrize("mode", ["language host", "dynamic provider"])
def test_sigint_stops_a_host_started_with_sigint_ignored(mode: str, engine_address: str) -> None:
    argv = [sys.executable, "-u", str(HOST), *(["--provider"] if mode == "dynamic provider" else []), engine_address]
    # PYTHONFAULTHANDLER: a host still running after the wait is sent SIGABRT, and prints where each of
    # its threads is, for the failure message.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ignore_sigint, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        assert port.isdigit(), f"the {mode} printed {port!r} instead of its port"
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            _, stacks = proc.communicate(timeout=10)
            pytest.fail(f"the {mode} ignored SIGINT (started with it ignored) and was still running after 20 s; "
                        f"its threads:\n{stacks[-6000:]}")
        assert code == 0, f"the {mode} exited {code} on SIGINT: {proc.stderr.read() if proc.stderr else ''}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
