"""Helpers of the plugin's engine tests: the raw program, PATH for the plugin, declarations, look-ups
(a module of its own name: several test folders have a conftest.py, so `from conftest import` is ambiguous)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from support import stacks
from support.pulumi_cli import BIN, VENV, Stack

RAW = Path(__file__).parent / "programs" / "raw"
PLUGIN = VENV / "bin" / "pulumi-resource-mltrain"


def on_path(stack: Stack) -> Stack:
    """The engine finds the plugin on PATH (as an installed wheel's console script)."""
    assert PLUGIN.exists(), f"{PLUGIN} is missing: run `bash scripts/bootstrap.sh` (pip install -e .)"
    stack.env_extra["PATH"] = f"{BIN}{os.pathsep}{PLUGIN.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return stack


def declare(stack: Stack, resources: list[dict[str, Any]], **config: Any) -> None:
    """The raw program's `resources` (and other JSON config such as `providers` or `invokes`)."""
    stack.set_config_all({"resources": json.dumps(resources), **{k: json.dumps(v) for k, v in config.items()}})


def alaya_job(name: str = "job", **args: Any) -> dict[str, Any]:
    return {"type": "mltrain:alaya:TrainingJob", "name": name, "args": stacks.alaya_job_args(**args),
            "outputs": ["status", "name", "training_task_id"]}


def tasks(emulator: Any) -> list[dict[str, Any]]:
    """Alaya NeW tasks that are not on their way out."""
    return [t for t in emulator.admin.state()["alaya"]["tasks"] if not t.get("deleting")]


def output_of(result: Any) -> str:
    return str(result.stdout + result.stderr)


def managed(stack: Stack, prefix: str = "mltrain:") -> list[dict[str, Any]]:
    """The stack's resources whose type starts with `prefix` (the plugin's types; not providers)."""
    return [r for r in stack.export()["deployment"].get("resources", []) if r["type"].startswith(prefix)]
