"""Helpers of tests/packaging: fresh virtualenvs outside the repository, resolving the wheel's
dependency ranges from the package index (the wheels themselves come from the release, tests/support/release.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from importlib.metadata import version
from pathlib import Path

import yaml

from .pulumi_cli import ROOT, Stack


def run(*argv: str | Path, timeout: float = 600) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing of the repository leaks in
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, check=False,
                            env=env)
    assert result.returncode == 0, f"{' '.join(map(str, argv))} exited {result.returncode}:\n" \
                                   f"{(result.stdout + result.stderr)[-4000:]}"
    return result.stdout


def fresh_venv(folder: Path, *requirements: str | Path) -> Path:
    """A new virtualenv at `folder` (outside the repository) with `requirements` installed by pip, which
    resolves their ranges from the package index. The pip that runs the tests (the locked one) installs
    into it (`pip --python`), itself included at its own version, so the venv has a pip of its own for
    `pip list`, `pip check` and the Pulumi host: the same pip install, without `ensurepip` bootstrapping
    the interpreter's bundled pip first (6 CPU-s) and without that older pip's slower install (13 CPU-s
    against 8 for this one). `--no-compile`: what the tests import is compiled at first import, not
    every module at install (half of the install's CPU)."""
    assert not folder.resolve().is_relative_to(ROOT), f"{folder} must be outside {ROOT}"
    venv.create(folder, with_pip=False)
    python = folder / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--disable-pip-version-check", "--no-compile",
        f"pip=={version('pip')}", *requirements, timeout=900)
    return folder


def use_venv(stack: Stack, folder: Path) -> None:
    """Point the copied project's program and its dynamic providers at `folder`."""
    path = stack.workdir / "Pulumi.yaml"
    spec = yaml.safe_load(path.read_text())
    spec["runtime"]["options"]["virtualenv"] = str(folder)
    path.write_text(yaml.safe_dump(spec))
    stack.env_extra.update(PULUMI_RUNTIME_VIRTUALENV=str(folder), PYTHONPATH="")
