"""The release the tests install from: `bash scripts/release.sh VERSION --out DIR`, run once per test
session into the session's shared temporary folder, and started in the background as soon as a worker
sees that one of its tests needs it (tests/conftest.py), so that the build (8 s with the frozen plugin
cached, about 35 s without) overlaps the other tests. Nothing of it is written into the repository.

`release(tmp_path_factory)` waits for it and returns the folder (the `release` fixture). No server here:
tests/support/release_host.py serves the folder to the engine."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from .pulumi_cli import ROOT
from .shared import session_folder

VERSION = str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])
TIMEOUT = 900.0  # a cold build (wheels, the frozen plugin, npm) takes well under a minute here
NAME = "release"


@dataclass(frozen=True)
class Build:
    """The session's one release build: files in the session's shared folder say where it is."""

    folder: Path

    @property
    def dist(self) -> Path:
        return self.folder / "dist"

    @property
    def log(self) -> Path:
        return self.folder / "release.log"

    @property
    def rc(self) -> Path:
        return self.folder / "release.rc"

    @property
    def pid(self) -> Path:
        return self.folder / "release.pid"

    def start(self) -> bool:
        """Start the release unless a worker did already (under a lock); whether this call started it."""
        self.folder.mkdir(exist_ok=True)
        with (self.folder / "release.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.pid.exists():
                return False
            # The wrapper writes the exit status once the release ends, whichever worker waits for it.
            script = 'bash "$1" "$2" --out "$3" > "$4" 2>&1; echo $? > "$5.tmp" && mv "$5.tmp" "$5"'
            process = subprocess.Popen(
                ["sh", "-c", script, "sh", str(ROOT / "scripts" / "release.sh"), VERSION, str(self.dist),
                 str(self.log), str(self.rc)],
                cwd=ROOT, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
            self.pid.write_text(str(process.pid))
            return True

    def wait(self, timeout: float = TIMEOUT) -> Path:
        """The dist folder once the release has written it; a failure with the release's log otherwise."""
        if not self.pid.exists():
            self.start()
        deadline = time.monotonic() + timeout
        while not self.rc.exists():
            if time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"the release did not end within {timeout:.0f} s:\n{self.tail()}")
            time.sleep(0.2)
        if self.rc.read_text().strip() != "0":
            pytest.fail(f"bash scripts/release.sh {VERSION} failed:\n{self.tail()}")
        return self.dist

    def stop(self) -> None:
        """End the release's process group (the one `start` made), if it still runs."""
        if not self.rc.exists() and self.pid.exists():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(self.pid.read_text()), signal.SIGTERM)

    def tail(self) -> str:
        return self.log.read_text()[-6000:] if self.log.exists() else "(no log)"


def build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    return Build(session_folder(tmp_path_factory) / NAME)


def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's release (started here if no worker started it yet), once it is written."""
    return build(tmp_path_factory).wait()
