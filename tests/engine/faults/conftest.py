"""Fault tests: stacks of programs/mixed_jobs, whose Alaya NeW and ModelArts jobs share one engine run."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from support import stacks
from support.pulumi_cli import Stack

MIXED = Path(__file__).parent / "programs" / "mixed_jobs"


def mixed_stack(emulator: Any, home: Path, objects: dict[str, Any], secrets: dict[str, Any] | None = None,
                **config: Any) -> Stack:
    """A stack of programs/mixed_jobs declaring `objects`, wired to both platforms of the emulator."""
    return stacks.modelarts_stack(emulator, home, MIXED, {"mltrain:alayaApiKey": emulator.alaya_api_key,
                                                          **(secrets or {})},
                                  objects=json.dumps(objects), **{"mltrain:alayaEndpoint": emulator.url}, **config)


@pytest.fixture
def mixed(emulator: Any, tmp_path: Path) -> Callable[..., Stack]:
    """A factory: `mixed(objects, secrets=None, **config)`; jobs of both platforms move through their states in
    fractions of a second."""
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2,
                                subscription_delay=0.2, task_state_delay=0.2)
    return partial(mixed_stack, emulator, tmp_path)
