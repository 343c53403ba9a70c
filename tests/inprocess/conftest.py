"""The in-process tier's shared fixtures.

``quick``: the emulator with the fast delays most in-process tests want (a task or job moves on within
a tenth of a second, a ModelArts run ends after 0.3 s, a deleted object is gone after 0.1 s), around a
fresh provider process's caches (no token, no catalogue answer). A file opts in with
``pytestmark = pytest.mark.usefixtures("quick")``; one that needs other values overrides it with a
fixture of the same name that takes ``quick`` and sets only what differs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mltrain_emulator import EmulatorHandle
from support import inprocess

# Seconds of the emulator clock.
QUICK = {"subscription_delay": 0.1, "task_state_delay": 0.1, "modelarts_phase_delay": 0.1,
         "modelarts_run_seconds": 0.3, "delete_delay": 0.1}


@pytest.fixture
def quick(emulator: EmulatorHandle) -> Iterator[EmulatorHandle]:
    """The emulator with the QUICK delays, in a fresh process before and after the test."""
    inprocess.fresh_process()
    emulator.admin.set_settings(**QUICK)
    yield emulator
    inprocess.fresh_process()
