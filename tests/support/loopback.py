"""Constants of the emulator tests, importable by module name (a test module's `from conftest import`
finds whichever tests/**/conftest.py was imported first, depending on what pytest collected)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STEP = 10.0  # every state step takes this long in these tests
RUN = 30.0  # a ModelArts job runs this long
# Plain HTTP on loopback: verify=False only skips building an SSL context (~50 ms per client).
LOOPBACK: dict[str, Any] = {"timeout": 10.0, "verify": False}


@dataclass(frozen=True)
class Timing:
    step: float = STEP
    run: float = RUN
