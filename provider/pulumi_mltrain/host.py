"""Let one dynamic provider process serve as many calls at once as the engine sends (its `--parallel`).

The SDK's dynamic provider host (`pulumi/dynamic/__main__.py`) serves its gRPC calls on
`ThreadPoolExecutor(max_workers=4)`, so a fifth waiting create queued behind the first four. A pool
starts a thread per submitted call only while it has fewer than `_max_workers` threads, so raising
that bound on the host's pool, from the first of our calls (which runs on one of its threads), lets
each waiting call have its own thread; the engine's `--parallel` stays the bound on how many it sends.
Threads start only when calls arrive, so a large bound costs nothing while unused. Nothing happens
outside that host (the native plugin has its own pool, tests call providers in-process).

The same first call starts the engine watchdog (`watch_host_engine`): the SDK's host never notices that
the engine which started it is gone (a killed `pulumi`), and would otherwise run, holding its waits, forever.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

HOST_MODULE = "pulumi.dynamic.__main__"
ENV_VAR = "MLTRAIN_PROVIDER_THREADS"
DEFAULT_THREADS = 256
SDK_THREADS = 4  # what the SDK's host starts with

_lock = threading.Lock()


def threads() -> int:
    """The bound asked for: MLTRAIN_PROVIDER_THREADS, else 256 (at least the SDK's 4)."""
    given = os.environ.get(ENV_VAR, "")
    try:
        chosen = int(given) if given else DEFAULT_THREADS
    except ValueError as err:
        raise ValueError(f"{ENV_VAR} = {given!r}: give a whole number of threads (default {DEFAULT_THREADS})") from err
    return max(SDK_THREADS, chosen)


def in_host() -> bool:
    """Whether this process is the SDK's dynamic provider host (`python -m pulumi.dynamic`)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == HOST_MODULE


def _pool_of(thread: threading.Thread) -> ThreadPoolExecutor | None:
    """The pool a worker thread serves: its first argument is a weak reference to it (CPython 3.9+)."""
    args = getattr(thread, "_args", None)
    ref = args[0] if isinstance(args, tuple) and args else None
    pool = ref() if isinstance(ref, weakref.ref) else None
    return pool if isinstance(pool, ThreadPoolExecutor) else None


def widen() -> int | None:
    """Raise the bound of the host pool running this call; its new bound, or None outside the host."""
    if not in_host():
        return None
    pool = _pool_of(threading.current_thread())
    if pool is None or not isinstance(getattr(pool, "_max_workers", None), int):
        return None
    with _lock:
        pool._max_workers = max(pool._max_workers, threads())
        return pool._max_workers


_watched: set[str] = set()


def watch_engine(address: str, interval: float = 2.0, misses: int = 3,
                 before_exit: Callable[[], None] | None = None) -> bool:
    """Exit this process (after `before_exit`) once the engine at HOST:PORT has refused `misses`
    connections in a row, `interval` seconds apart: a killed `pulumi` must leave no plugin running.
    One daemon thread per address; False when one already watches it or the address has no port."""
    engine_host, _, port = address.rpartition(":")
    if not port.isdigit():
        return False
    with _lock:
        if address in _watched:
            return False
        _watched.add(address)

    def run() -> None:
        failed = 0
        while failed < misses:
            time.sleep(interval)
            try:
                socket.create_connection((engine_host or "127.0.0.1", int(port)), timeout=1).close()
                failed = 0
            except OSError:
                failed += 1
        if before_exit is not None:
            before_exit()
        os._exit(1)

    threading.Thread(target=run, name="engine-watchdog", daemon=True).start()
    return True


def watch_host_engine() -> bool:
    """In the SDK's dynamic provider host, watch its engine (`python -m pulumi.dynamic ENGINE`);
    whether a watchdog started. Any host that starts providers this way is covered, the official one too."""
    if not in_host() or len(sys.argv) < 2:
        return False
    return watch_engine(sys.argv[1])
