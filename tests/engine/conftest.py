"""Engine tests: the real Pulumi CLI against the emulator over loopback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pulumi_mltrain.emulator import defaults
from support.pulumi_cli import ROOT, Stack

PROGRAMS = Path(__file__).parent / "programs"

pytestmark = pytest.mark.engine


@pytest.fixture
def alaya_stack(emulator: Any, tmp_path: Path) -> Callable[..., Stack]:
    """A factory: a stack of a project (default: tests/engine/programs/alaya_job) wired to the emulator."""

    def make(project: Path | str = PROGRAMS / "alaya_job", **config: Any) -> Stack:
        stack = Stack.from_project(Path(project) if Path(project).is_absolute() else ROOT / project, tmp_path)
        stack.set_config("mltrain:alayaEndpoint", emulator.url)
        stack.set_config("mltrain:alayaApiKey", defaults.DEFAULT_ALAYA_API_KEY, secret=True)
        stack.set_config("mltrain:requestTimeout", "5")
        stack.set_config("mltrain:maxRetries", "3")
        for key, value in config.items():
            stack.set_config(key, value if isinstance(value, str) else json.dumps(value))
        return stack

    return make


def job_args(**overrides: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "product_code": "PRD-TRAIN-2",
        "worker_count": 2,
        "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
        "training_framework": "pytorch",
        "start_command": "python3 train.py",
        "timeout_hours": 12,
    }
    args.update(overrides)
    return args
