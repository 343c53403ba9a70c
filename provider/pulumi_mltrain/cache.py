"""What a process keeps between calls: one client per platform and settings, and catalogue answers.

Both faces use it: the provider (its `check` consults the catalogues for every new or changed
resource of a preview) and the look-up functions in a Pulumi program. Catalogues (products,
storages, flavors, engines) change rarely, so one call per catalogue and minute is enough, and the
threads of a process share the answers. Jobs, logs and events are never cached.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

TTL = 60.0
_clients: dict[tuple[str, str], Any] = {}
_answers: dict[tuple[int, str, tuple[Any, ...]], tuple[float, Any]] = {}
_lock = threading.Lock()


def client(family: str, fingerprint: str, build: Callable[[], Any]) -> Any:
    """The `family` client of the settings whose `Settings.fingerprint()` is `fingerprint`, built once."""
    key = (family, fingerprint)
    with _lock:
        found = _clients.get(key)
        if found is None:
            found = _clients[key] = build()
        return found


def cached(api: Any, what: str, *args: Any, ttl: float = TTL) -> Any:
    """`getattr(api, what)(*args)`, answered from the cache while younger than `ttl` seconds."""
    key = (id(api), what, args)
    with _lock:
        hit = _answers.get(key)
        if hit and time.monotonic() - hit[0] < ttl:
            return hit[1]
    value = getattr(api, what)(*args)
    with _lock:
        _answers[key] = (time.monotonic(), value)
    return value


def rows(api: object, what: str) -> list[dict[str, Any]]:
    """A catalogue's rows, `cached`: its client checked them (one object per row)."""
    found: list[dict[str, Any]] = cached(api, what)
    return found


def forget() -> None:
    """Drop every catalogue answer (a new process's view); clients stay, they hold no answers."""
    with _lock:
        _answers.clear()
