"""Packaging fixtures: one wheel per session (per xdist worker)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from support.packaging import run
from support.pulumi_cli import ROOT


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once per session (per xdist worker)."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    # Built from a copy: no build/ or egg-info in the working tree, no clash between workers.
    shutil.copytree(ROOT / "provider", source / "provider",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, source)
    [built] = list(out.glob("pulumi_mltrain-*.whl"))
    return built
