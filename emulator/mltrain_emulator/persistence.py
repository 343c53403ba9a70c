"""Optional state file, so a demo survives an emulator restart, at a cost per request that does not
grow with the world: a snapshot (``F``) and an append-only journal (``F.journal``) with one line per
request that changed something, holding the objects it changed (or the IDs of those it removed).

Guarantee: when a request that changed something ends, its line is written, flushed and fsynced, so a
crash (even ``kill -9``) loses at most the requests in flight. Loading reads the snapshot and replays
the journal lines after it; a torn last line (a crash mid-append) is dropped. Compaction (a bare
commit, every ``max(COMPACT_MIN, 2 * objects)`` lines, at start after a replay, and on a clean
shutdown) writes the snapshot atomically (temp file, fsync, rename) and then empties the journal.
Lines are numbered and the snapshot records the last number it includes, so a crash between those two
steps replays nothing twice.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .records import Snapshot

Json = dict[str, Any]
COMPACT_MIN = 1000
# The field that identifies an object in each list of the snapshot.
KEYS = {"subscriptions": "result_key", "tasks": "id", "algorithms": "id", "jobs": "id", "tokens": "digest"}


def journal_path(path: Path) -> Path:
    return path.with_name(path.name + ".journal")


@dataclass
class Loaded:
    snapshot: Snapshot | None  # None when neither file exists yet
    seq: int  # the number of the last journal line applied
    replayed: int  # journal lines applied on top of the snapshot


def load(path: Path) -> Loaded:
    """The stored world: the snapshot with the journal's newer lines applied."""
    journal = journal_path(path)
    if not path.exists() and not journal.exists():
        return Loaded(None, 0, 0)
    try:
        raw: Json = json.loads(path.read_bytes()) if path.exists() else {}
        if not isinstance(raw, dict):
            raise ValueError("the snapshot is not a JSON object")
        seq = int(raw.get("journal_seq", 0))
        stores = {store: {row[key]: row for row in raw.get(store, [])} for store, key in KEYS.items()}
        replayed = 0
        for entry in _entries(journal):
            if entry["seq"] <= seq:
                continue
            seq = entry["seq"]
            replayed += 1
            raw["clock_offset"] = entry["clock_offset"]
            for store, ident, obj in entry["changes"]:
                if obj is None:
                    stores[store].pop(ident, None)
                else:
                    stores[store][ident] = obj
        raw.update({store: list(rows.values()) for store, rows in stores.items()})
        raw["journal_seq"] = seq
        return Loaded(Snapshot.model_validate(raw), seq, replayed)
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"emulator state file {path} is not a valid snapshot: {exc}") from exc


def _entries(journal: Path) -> list[Json]:
    if not journal.exists():
        return []
    lines = journal.read_bytes().split(b"\n")
    entries: list[Json] = []
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except ValueError:
            if number == len(lines) - 1:  # torn by a crash mid-append: that request never finished
                break
            raise ValueError(f"journal line {number + 1} is not JSON") from None
    return entries


class Journal:
    """Appends to ``F.journal``; ``compact`` folds it into the snapshot ``F``."""

    def __init__(self, path: Path, seq: int, compact_min: int = COMPACT_MIN) -> None:
        self.path = path
        self.compact_min = compact_min
        self.journal = journal_path(path)
        self.seq = seq
        self.entries = 0  # lines since the last compaction

    def has_lines(self) -> bool:
        return self.journal.exists() and self.journal.stat().st_size > 0

    def due_for_compaction(self, objects: int) -> bool:
        """Amortised constant: a full write every ``max(compact_min, 2 * objects)`` lines."""
        return self.entries >= max(self.compact_min, 2 * objects)

    def append(self, clock_offset: float, changes: list[tuple[str, str, Json | None]]) -> None:
        if not changes:
            return
        self.seq += 1
        line = json.dumps({"seq": self.seq, "clock_offset": clock_offset, "changes": changes},
                          separators=(",", ":")).encode() + b"\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.journal, "ab") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())
        self.entries += 1

    def compact(self, snapshot: Snapshot) -> None:
        snapshot.journal_seq = self.seq
        save(self.path, snapshot)
        if self.journal.exists():
            with open(self.journal, "wb") as out:
                os.fsync(out.fileno())
        self.entries = 0


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
