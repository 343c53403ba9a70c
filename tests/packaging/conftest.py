"""Packaging fixtures: one wheel and one infra venv per test session, shared by its xdist workers
(`support.shared.once`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.packaging import build_wheel, fresh_venv
from support.shared import once


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once per session."""
    return once(tmp_path_factory, "mltrain-wheel", build_wheel)


@pytest.fixture(scope="session")
def emulator_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The emulator's wheel (mltrain-emulator, from emulator/), built once per session: no index has it, so
    an install of pulumi-mltrain[emulator] finds it with --find-links."""
    def build(folder: Path) -> Path:
        source, out = folder / "source", folder / "wheel"
        shutil.copytree(ROOT / "emulator", source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info",
                                                                                  "build"))
        run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, source)
        [built] = list(out.glob("mltrain_emulator-*.whl"))
        return built
    return once(tmp_path_factory, "emulator-wheel", build)


@pytest.fixture(scope="session")
def infra_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv outside the repository, as an infra repo has it: the wheel with its `policy` extra,
    beside another provider from PyPI (pulumi-random), each resolving its own dependency ranges. Made once
    and shared by the packaging tests."""
    return once(tmp_path_factory, "infra", lambda folder: fresh_venv(
        folder / "infra-venv", f"{wheel}[policy]", "pulumi-random"))
