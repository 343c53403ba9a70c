"""`host.widen`: the dynamic provider host's pool of 4 threads serves every call at once after our first.

The engine test `tests/engine/test_provider_processes.py::test_creates_wait_side_by_side_in_one_process` checks
the same through `pulumi up`; here a pool built like the SDK host's shows the mechanism and its limits.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
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


def _most_at_once(pool: ThreadPoolExecutor, calls: int, first: object, expected: int) -> int:
    """Run `first` on the pool, then `calls` calls that each hold until `expected` of them run and the
    others wait in the pool's queue: the pool is then full (a free thread would have taken a queued
    call), so the count is the pool's width, not how fast its threads started. Bounded: 30 s."""
    pool.submit(first).result(timeout=10)
    go = threading.Event()
    lock = threading.Lock()
    state = {"now": 0, "most": 0}

    def call() -> None:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        go.wait(30)
        with lock:
            state["now"] -= 1

    futures = [pool.submit(call) for _ in range(calls)]
    for _ in range(3000):  # bounded: 30 s
        with lock:
            full = state["now"] == expected and pool._work_queue.qsize() == calls - expected
        if full:
            break
        time.sleep(0.01)
    go.set()
    for f in futures:
        f.result(timeout=30)
    return state["most"]


def test_the_first_call_in_the_host_widens_its_pool(as_host: None) -> None:
    with ThreadPoolExecutor(max_workers=host.SDK_THREADS) as pool:
        seen: list[int | None] = []
        assert _most_at_once(pool, 12, lambda: seen.append(host.widen()), 12) == 12
        assert seen == [host.DEFAULT_THREADS] and pool._max_workers == host.DEFAULT_THREADS


def test_without_widening_the_pool_serves_four_at_once(as_host: None) -> None:
    """The baseline the test above beats: the same calls on the SDK's pool as it is."""
    with ThreadPoolExecutor(max_workers=host.SDK_THREADS) as pool:
        assert _most_at_once(pool, 12, lambda: None, host.SDK_THREADS) == host.SDK_THREADS


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
import asyncio, sys, threading
from pulumi_mltrain.plugin import sdk
expected = int(sys.argv[1])
running, most, lock, go = 0, 0, threading.Lock(), threading.Event()
def call():
    global running, most
    with lock:
        running += 1
        most = max(most, running)
    go.wait(30)
    with lock:
        running -= 1
def full():
    with lock:
        return running == expected and sdk.POOL._work_queue.qsize() == 8 - expected
async def main():
    calls = asyncio.gather(*(sdk.run_sync(call) for _ in range(8)))
    for _ in range(3000):  # bounded: 30 s
        if full():
            break
        await asyncio.sleep(0.01)
    go.set()
    await calls
asyncio.run(main())
print(most)
"""


@pytest.mark.parametrize(("given", "expected"), [("5", 5), ("", 8)])
def test_the_plugin_pool_follows_the_same_bound(given: str, expected: int) -> None:
    """The provider plugin serves its calls on a pool of its own, bounded by the same variable."""
    env = {**os.environ, host.ENV_VAR: given}
    done = subprocess.run([sys.executable, "-c", PLUGIN_POOL, str(expected)], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) == expected, "8 calls held until the pool is full: the bound run at once"
