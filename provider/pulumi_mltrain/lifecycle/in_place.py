"""What an update in place does before the platform's own update call, alike on every platform: a change
of `stopped` (true stops the run and keeps its ID; false is only recorded: a run is never started again),
and the fields a platform only records (it has no update call for them)."""

from __future__ import annotations

from typing import TypeVar

from .. import spec as specs
from ..ownership import Mark
from ..progress import Label, notice
from .protocol import Outs, Runs
from .removal import stop_in_place

R = TypeVar("R")
S = TypeVar("S", bound=specs.Spec)


def before_update(runs: Runs[S, R], kind: str, object_id: str, new: S, changed: list[str],
                  owner: Mark | None) -> Outs:
    """The outputs of a run stopped here (none otherwise); says what is only recorded."""
    name = str(getattr(new, "name", "") or "")
    outs: Outs = {}
    if "stopped" in changed and getattr(new, "stopped", False):
        stop_in_place(runs, object_id, Label.of(kind, new, owner, object_id=object_id, doing="stopping"))
        outs = runs.recorded(new, runs.get(object_id))
    elif "stopped" in changed:
        notice(f"{kind} {name!r}: stopped=false recorded; {runs.noun} {object_id} is not started again "
               "(to run the job again, change its replacement_trigger)", owner)
    recorded = [n for n, m in specs.field_metas(type(new)) if n in changed and m.on_change == "record"]
    if recorded:
        notice(f"{kind} {name!r}: {', '.join(recorded)} recorded in the state only: {runs.platform} has no "
               f"update call, so {runs.noun} {object_id} keeps the value it was created with (no new run; "
               "to run it again, use the replacement_trigger resource option)", owner)
    return outs
