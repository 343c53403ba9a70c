"""`host.watch_engine`: a provider process whose engine is gone exits by itself.

The SDK's dynamic provider host (`python -m pulumi.dynamic ENGINE`, how the official host starts it)
never notices a killed `pulumi`; the engine test `tests/engine/team/test_s3_backend.py::
test_login_up_concurrent_up_refused_killed_up_recovered_destroy_keeps_history` checks the whole path
through the CLI.
"""

from __future__ import annotations

import socket
import subprocess
import sys

from pulumi_mltrain import host

CHILD = """
import sys, time
from pulumi_mltrain import host
assert host.watch_engine(sys.argv[1], interval=0.05, misses=3)
assert not host.watch_engine(sys.argv[1], interval=0.05, misses=3), "one watchdog per address"
time.sleep(0.5)  # ten intervals with the engine answering
print("alive", flush=True)
sys.stdin.read()  # until the test closes it: only the watchdog ends this process early
print("not stopped", flush=True)
"""


def test_exits_once_the_engine_stops_answering() -> None:
    engine = socket.socket()
    engine.bind(("127.0.0.1", 0))
    engine.listen(16)
    address = f"127.0.0.1:{engine.getsockname()[1]}"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, address], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "alive", "an answering engine keeps the process running"
        engine.close()
        code = proc.wait(timeout=30)
        out, err = proc.communicate()
        assert (code, out) == (1, ""), f"exited {code}: {out} {err}"
    finally:
        engine.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_only_inside_the_sdk_host() -> None:
    assert host.watch_host_engine() is False, "pytest is no dynamic provider host"
    assert host.watch_engine("no-port") is False
