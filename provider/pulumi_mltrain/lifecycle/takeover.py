"""Taking over an object that already exists: this resource's own one from an interrupted or timed-out
run (found by its owner mark), or one named by `adopt_id` or `pulumi import`.

Two rules hold for every take-over. The object must match the declaration (nothing is changed to make
it match, except where a platform says so). And a replacement never takes over the object it
replaces: created before its old object is deleted, it would find that object by its owner mark, and
the delete that follows would remove it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from .. import spec as specs
from ..errors import MltrainError

# Whether the create being served replaces a resource of the state (its inputs carry EXISTS_KEY).
_REPLACING: contextvars.ContextVar[bool] = contextvars.ContextVar("mltrain_replacing", default=False)


@contextmanager
def replacing(flag: bool) -> Iterator[None]:
    """Within the block, creates are (or are not) replacements of a resource the state holds."""
    token = _REPLACING.set(flag)
    try:
        yield
    finally:
        _REPLACING.reset(token)


def refuse_in_replace(noun: str, object_id: str) -> None:
    """Refuse to take over `object_id` in a replacement's create (nothing changes)."""
    if _REPLACING.get():
        raise MltrainError(
            f"this replacement would take over {noun} {object_id}, the one it replaces, which is then "
            "deleted: the engine creates the replacement first (a replacement_trigger or `--replace` does "
            "that unless told otherwise). Add delete_before_replace=True to this resource's options (the "
            "dynamic resources of pulumi_mltrain set it for training jobs)")


def require_match(spec: specs.Spec, noun: str, object_id: str, remote: Mapping[str, object]) -> None:
    """Refuse to take a platform object that differs from the declaration, listing why."""
    diffs = specs.differences(spec, specs.from_wire(type(spec), remote, spec))
    if diffs:
        raise MltrainError(f"cannot adopt {noun} {object_id}: it differs from the declared inputs: "
                           + "; ".join(diffs))
