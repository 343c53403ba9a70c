"""`host.widen`: the dynamic provider host's pool of 4 threads serves every call at once after our first.

The engine test `tests/engine/test_provider_processes.py::test_creates_wait_side_by_side_in_one_process` checks
the same through `pulumi up`; here a pool built like the SDK host's shows the mechanism and its limits.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from pulumi_mltrain import host


@pytest.fixture
def as_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process's `__main__` looks like `python -m pulumi.dynamic`."""
    fake = types.ModuleType("__main__")
    fake.__spec__ = types.SimpleNamespace(name=host.HOST_MODULE)  # type: ignore[assignment]
    monkeypatch.setitem(sys.modules, "__main__", fake)
    yield


def _most_at_once(pool: ThreadPoolExecutor, calls: int, first: object) -> int:
    """Run `first` on the pool, then `calls` calls that each wait until all have started (or 2 s)."""
    pool.submit(first).result(timeout=10)
    everyone = threading.Barrier(calls, timeout=2)
    lock = threading.Lock()
    state = {"now": 0, "most": 0}

    def call() -> None:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        with contextlib.suppress(threading.BrokenBarrierError):
            everyone.wait()
        with lock:
            state["now"] -= 1

    futures = [pool.submit(call) for _ in range(calls)]
    for f in futures:
        f.result(timeout=30)
    return state["most"]


def test_the_first_call_in_the_host_widens_its_pool(as_host: None) -> None:
    with ThreadPoolExecutor(max_workers=host.SDK_THREADS) as pool:
        seen: list[int | None] = []
        assert _most_at_once(pool, 12, lambda: seen.append(host.widen())) == 12
        assert seen == [host.DEFAULT_THREADS] and pool._max_workers == host.DEFAULT_THREADS


def test_without_widening_the_pool_serves_four_at_once(as_host: None) -> None:
    """The baseline the test above beats: the same calls on the SDK's pool as it is."""
    with ThreadPoolExecutor(max_workers=host.SDK_THREADS) as pool:
        assert _most_at_once(pool, 12, lambda: None) == host.SDK_THREADS


def test_nothing_changes_outside_the_host() -> None:
    with ThreadPoolExecutor(max_workers=host.SDK_THREADS) as pool:
        assert pool.submit(host.widen).result(timeout=10) is None
        assert pool._max_workers == host.SDK_THREADS


def test_not_on_a_pool_thread(as_host: None) -> None:
    assert host.widen() is None  # the test's main thread belongs to no pool


def test_the_bound_comes_from_the_environment(as_host: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(host.ENV_VAR, "16")
    with ThreadPoolExecutor(max_workers=host.SDK_THREADS) as pool:
        assert pool.submit(host.widen).result(timeout=10) == 16
    monkeypatch.setenv(host.ENV_VAR, "2")
    assert host.threads() == host.SDK_THREADS, "never below the SDK's own 4"
    monkeypatch.setenv(host.ENV_VAR, "many")
    with pytest.raises(ValueError, match=f"{host.ENV_VAR} = 'many'"):
        host.threads()


PLUGIN_POOL = """
import asyncio, threading, time
from pulumi_mltrain.plugin import sdk
running, most, lock = 0, 0, threading.Lock()
def call():
    global running, most
    with lock:
        running += 1
        most = max(most, running)
    time.sleep(0.3)
    with lock:
        running -= 1
async def main():
    await asyncio.gather(*(sdk.run_sync(call) for _ in range(8)))
asyncio.run(main())
print(most)
"""


@pytest.mark.parametrize(("given", "expected"), [("5", 5), ("", 8)])
def test_the_plugin_pool_follows_the_same_bound(given: str, expected: int) -> None:
    """The provider plugin serves its calls on a pool of its own, bounded by the same variable."""
    env = {**os.environ, host.ENV_VAR: given}
    done = subprocess.run([sys.executable, "-c", PLUGIN_POOL], env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) == expected, "8 calls of 0.3 s: at most the bound run at once"
