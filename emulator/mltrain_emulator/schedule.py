"""When each stored object next changes on its own, so a request advances only the objects that are due.

A heap of (time, sequence, key) entries; ``due`` maps each key to its one live time, and entries that
no longer match it (the object was rescheduled or removed) are skipped when popped. Work per request is
proportional to the objects that actually changed, not to the objects stored.
"""

from __future__ import annotations

import heapq
import itertools

Key = tuple[str, str]  # (kind, id)


class Schedule:
    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Key]] = []
        self._due: dict[Key, float] = {}
        self._seq = itertools.count()

    def clear(self) -> None:
        self._heap.clear()
        self._due.clear()

    def set(self, key: Key, at: float | None) -> None:
        """Schedule ``key`` at ``at``, or forget it when ``at`` is ``None``."""
        if at is None:
            self._due.pop(key, None)
            return
        if self._due.get(key) == at:
            return
        self._due[key] = at
        heapq.heappush(self._heap, (at, next(self._seq), key))
        if len(self._heap) > 64 and len(self._heap) > 4 * len(self._due):
            self._compact()

    def pop_due(self, now: float) -> Key | None:
        """The next key due at or before ``now`` (removed from the schedule), or ``None``."""
        while self._heap and self._heap[0][0] <= now:
            at, _, key = heapq.heappop(self._heap)
            if self._due.get(key) == at:
                del self._due[key]
                return key
        return None

    def _compact(self) -> None:
        """Drop dead entries; amortised, since it runs only when they outnumber live ones 3 to 1."""
        self._heap = [entry for entry in self._heap if self._due.get(entry[2]) == entry[0]]
        heapq.heapify(self._heap)
