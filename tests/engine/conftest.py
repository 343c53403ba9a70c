"""Engine tests: the real Pulumi CLI against the emulator over loopback."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from support import stacks
from support.pulumi_cli import Stack

# No `pytestmark` here: pytest ignores it in a conftest.py. Each engine test (or module) carries
# `pytest.mark.engine`, so `-m "not engine"` selects exactly the in-process tier.


@pytest.fixture
def alaya_stack(emulator: Any, tmp_path: Path) -> Callable[..., Stack]:
    """A factory: a stack of a project (default: tests/engine/programs/alaya_job) wired to the emulator."""
    return partial(stacks.alaya_stack, emulator, tmp_path)


@pytest.fixture
def modelarts_stack(emulator: Any, tmp_path: Path) -> Callable[..., Stack]:
    """A factory like `alaya_stack`, for ModelArts; jobs move through their phases in fractions of a second."""
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
    return partial(stacks.modelarts_stack, emulator, tmp_path)
