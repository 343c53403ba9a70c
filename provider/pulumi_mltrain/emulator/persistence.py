"""Optional JSON state file, so a demo survives an emulator restart.

Writes are atomic (temp file in the same directory, fsync, rename): a crash mid-write leaves the
previous state, never a torn file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .records import Snapshot


def load(path: Path) -> Snapshot | None:
    """The stored snapshot, or ``None`` when the file does not exist yet."""
    if not path.exists():
        return None
    try:
        return Snapshot.model_validate_json(path.read_bytes())
    except ValueError as exc:
        raise ValueError(f"emulator state file {path} is not a valid snapshot: {exc}") from exc


def save(path: Path, snapshot: Snapshot) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(snapshot.model_dump_json(indent=1).encode())
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
