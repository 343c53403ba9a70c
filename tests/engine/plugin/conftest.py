"""Engine tests of the native provider plugin `mltrain`: the real Pulumi CLI runs
`pulumi-resource-mltrain` (the console script in the venv, found on PATH) against the emulator.
Helpers: plugin_support.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from plugin_support import RAW, declare, on_path

from support import stacks
from support.pulumi_cli import Stack

# No `pytestmark` here: pytest ignores it in a conftest.py. Each engine test (or module) carries
# `pytest.mark.engine`, so `-m "not engine"` selects exactly the in-process tier.


@pytest.fixture
def alaya_plugin_stack(emulator: Any, tmp_path: Path) -> Callable[..., Stack]:
    """A factory: a stack of the raw program, the default `mltrain` provider pointed at the emulator's
    Alaya NeW API; `resources` and other keyword arguments as in `declare`."""

    def make(resources: list[dict[str, Any]] | None = None, **config: Any) -> Stack:
        stack = on_path(stacks.alaya_stack(emulator, tmp_path, RAW))
        declare(stack, resources or [], **config)
        return stack

    return make


@pytest.fixture
def modelarts_plugin_stack(emulator: Any, tmp_path: Path) -> Callable[..., Stack]:
    """Like `alaya_plugin_stack`, for ModelArts; jobs move through their phases in fractions of a second."""
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)

    def make(resources: list[dict[str, Any]] | None = None, **config: Any) -> Stack:
        stack = on_path(stacks.modelarts_stack(emulator, tmp_path, RAW))
        declare(stack, resources or [], **config)
        return stack

    return make
