"""Packaging fixtures: one infra venv per test session, shared by its xdist workers (`support.shared.once`);
the wheels are tests/conftest.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.packaging import fresh_venv
from support.shared import once


@pytest.fixture(scope="session")
def infra_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv outside the repository, as an infra repo has it: the wheel with its `policy` extra,
    beside another provider from PyPI (pulumi-random), each resolving its own dependency ranges. Made once
    and shared by the packaging tests."""
    return once(tmp_path_factory, "infra", lambda folder: fresh_venv(
        folder / "infra-venv", f"{wheel}[policy]", "pulumi-random"))
