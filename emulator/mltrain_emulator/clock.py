"""The emulator's clock: wall time plus an offset that tests advance instead of sleeping.

Wall time (not monotonic) because timestamps are shown to clients and survive a restart via the
state file; every object's state is a function of this clock, so advancing it moves the world.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class Clock:
    """``now()`` = ``source()`` + offset; the offset only ever grows."""

    def __init__(self, offset: float = 0.0, source: Callable[[], float] = time.time) -> None:
        self._source = source
        self.offset = offset

    def now(self) -> float:
        return self._source() + self.offset

    def now_ms(self) -> int:
        return int(self.now() * 1000)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock cannot go backwards")
        self.offset += seconds

    def reset(self) -> None:
        self.offset = 0.0
