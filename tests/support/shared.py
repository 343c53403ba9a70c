"""Work done once per test session and shared by its xdist workers: a test module's tests may run on
different workers (scripts/test.sh distributes with work stealing), and a session- or module-scoped
fixture would otherwise repeat a costly step (a wheel build, a venv's installs, a type checker's run) on
each of them."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's temporary root, which its workers share (the parent of each worker's basetemp) and
    which is new for every session: nothing is taken from an earlier run."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Path]) -> Path:
    """`make(folder)` run by the first worker to ask, under a lock; the others wait for it and get the
    path it returned. The folder is in the session's shared temporary root (`session_folder`)."""
    shared = session_folder(tmp_path_factory)
    folder, made = shared / name, shared / f"{name}.path"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            shutil.rmtree(folder, ignore_errors=True)  # left by a worker whose `make` failed
            folder.mkdir()
            made.write_text(str(make(folder)))
    return Path(made.read_text())
