"""A short-lived cache of catalogue calls (products, storages, flavors, engines).

`check` consults the catalogues for every new or changed resource of a preview; one call per
catalogue and minute is enough, and the provider process's threads share the answers.
"""

from __future__ import annotations

import threading
import time
from typing import Any

TTL = 60.0
_cache: dict[tuple[int, str], tuple[float, Any]] = {}
_lock = threading.Lock()


def cached(api: Any, what: str, ttl: float = TTL) -> Any:
    """`getattr(api, what)()`, answered from the cache while younger than `ttl` seconds."""
    key = (id(api), what)
    with _lock:
        hit = _cache.get(key)
        if hit and time.monotonic() - hit[0] < ttl:
            return hit[1]
    value = getattr(api, what)()
    with _lock:
        _cache[key] = (time.monotonic(), value)
    return value
