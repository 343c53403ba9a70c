"""The engine watchdog, one for every process the engine starts: the dynamic provider host
(`host.watch_host_engine`), the native plugin (`plugin/sdk.serve`) and the repository's language host.

Neither the SDK's dynamic provider host nor its provider server notices that the engine which started
it is gone (a killed `pulumi`); without this they would run, holding their waits, forever.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable

_lock = threading.Lock()
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
