"""What the emulator saw: its stored objects and the platform calls a command made (shared by the
in-process tests and the engine tests that check the same counts through the CLI)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from mltrain_emulator import EmulatorHandle

from .platforms import PLATFORMS


def calls_during(emulator: EmulatorHandle, command: Callable[[], Any]) -> Counter[str]:
    """The platform calls `command` made, by method and route (IDs as `*`)."""
    before = Counter(emulator.admin.requests()["endpoints"])
    command()
    after = Counter(emulator.admin.requests()["endpoints"])
    out: Counter[str] = Counter()
    for key, count in (after - before).items():
        method, _, route = key.partition(" ")
        parts = ["*" if p.startswith("{") and p != "{project_id}" else p for p in route.split("/")]
        out[f"{method} {'/'.join(parts)}"] += count
    return out


def tasks(emulator: EmulatorHandle) -> list[dict[str, Any]]:
    """Alaya NeW's training tasks, as the emulator stores them."""
    return PLATFORMS["alaya"].stored_jobs(emulator)


def jobs(emulator: EmulatorHandle) -> list[dict[str, Any]]:
    """ModelArts' training jobs, as the emulator stores them."""
    return PLATFORMS["modelarts"].stored_jobs(emulator)


def calls(emulator: EmulatorHandle, prefix: str = "") -> dict[str, int]:
    return {k: v for k, v in emulator.admin.requests()["endpoints"].items() if k.startswith(prefix)}
