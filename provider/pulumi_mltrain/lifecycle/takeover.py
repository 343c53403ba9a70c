"""Taking over an object that already exists: this resource's own one from an interrupted or timed-out
run (found by its owner mark), or one named by `adopt_id` or `pulumi import`.

Two rules hold for every take-over. The object must match the declaration (nothing is changed to make
it match, except where a platform says so). And a replacement never takes over the object it
replaces: created before its old object is deleted, it would find that object by its owner mark, and
the delete that follows would remove it.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import spec as specs
from ..errors import MltrainError


def refuse_in_replace(replacing: bool, noun: str, object_id: str) -> None:
    """Refuse to take over `object_id` in a replacement's create (`replacing`: the create replaces a
    resource the state holds, `Context.replacing`); nothing changes."""
    if replacing:
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
