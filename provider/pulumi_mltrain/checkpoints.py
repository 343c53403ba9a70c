"""Checkpoints: a new run of a training job starts from the checkpoint of the run it replaces.

ModelArts' automatic restart only relaunches a job (Huawei's guide "Resumable Training and Incremental
Training"): a script that does not reload its checkpoint starts from scratch. Its documented way to
resume is an output channel holding the checkpoints with predownload (`prefetch_to_local`), so that the
next job starts with them in its container. Alaya NeW documents nothing of the kind: a checkpoint there
is a directory on a writable NAS mount, which the script reads (the provider tells it where and whether
to, in environment variables).

A job's `checkpoint` input says where its runs keep checkpoints. The first run of a resource starts
fresh; each new run of it (a `replacement_trigger`, a change of inputs, a held failure run again) starts
from the checkpoint unless `checkpoint.resume` is false, and its `resumed_from` output names the run it
replaced: the lineage of the resource's runs.

How the create learns that run: a replace removes the previous job in this provider process, first or
after the new one's create. Whatever names it here (the diff of a replace, the delete of the old job)
leaves its ID (`Lineage`); the create of the new run takes it. A replacement
created first (a plugin resource replaced by a trigger, without deleteBeforeReplace) finds it as the
job of its name that carries its owner mark, the one its create removes first (`lifecycle.takeover`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

RESUMED_FROM = "resumed_from"
RESUMED_FROM_DESCRIPTION = (
    "With a checkpoint: the ID of the run (the job this one replaced) whose checkpoint this run started with; "
    "unset for a first run or a run started fresh (checkpoint.resume false). Kept through refreshes: the "
    "lineage of the resource's runs.")
RESUME_DESCRIPTION = (
    "Whether a new run of this resource (a replacement_trigger, a change of inputs, a held failure run again) "
    "starts from the checkpoint (true, the default) or fresh (false). A first run always starts fresh. A change "
    "of it alone starts no run: it is recorded, and applies to the next one.")

# What an Alaya NeW task's script is told (the platform has no checkpoint field of its own).
ENV_DIR = "MLTRAIN_CHECKPOINT_DIR"
ENV_RESUME = "MLTRAIN_RESUME"
ENV_RESUMED_FROM = "MLTRAIN_RESUMED_FROM"


@dataclass(frozen=True)
class Resume:
    """How one create starts its run: from the checkpoint (`resuming`), and of which previous run."""

    resuming: bool = False
    previous: str | None = None

    def outputs(self) -> dict[str, Any]:
        """What the create records: the previous run, when this one resumes from it (no key otherwise)."""
        return {RESUMED_FROM: self.previous} if self.resuming and self.previous else {}


class Lineage:
    """The previous run of each resource a replace removes in this provider process: left by a replace's
    diff (under the resource's URN) or the old job's delete (under the job's name: a delete is given no
    URN), taken by the new run's create (by its URN, else by its name)."""

    def __init__(self) -> None:
        self._previous: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()

    def note(self, object_id: str, *, urn: Any = None, name: Any = None) -> None:
        with self._lock:
            for key in _keys(urn, name):
                self._previous[key] = object_id

    def take(self, *, urn: Any = None, name: Any = None) -> str | None:
        with self._lock:
            found = [self._previous.pop(key, None) for key in _keys(urn, name)]
        return next((f for f in found if f), None)


def _keys(urn: Any, name: Any) -> list[tuple[str, str]]:
    return [(kind, value) for kind, value in (("urn", urn), ("name", name)) if isinstance(value, str) and value]


def resuming(spec: Any, new_run: bool) -> bool:
    """Whether a create of `spec` starts from its checkpoint: a new run of a resource (not its first), with
    a checkpoint whose `resume` is on."""
    checkpoint = getattr(spec, "checkpoint", None)
    return bool(new_run and checkpoint is not None and getattr(checkpoint, "resume", True))
