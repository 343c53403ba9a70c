"""Taking over an object that already exists: this resource's own one from an interrupted or timed-out
run (found by its owner mark), or one named by `adopt_id` or `pulumi import`.

Two rules hold for every take-over. The object must match the declaration (nothing is changed to make
it match, except where a platform says so). And a replacement never takes over the object it
replaces: created before its old object is deleted (a replacement_trigger or `pulumi up --replace` of
a plugin resource without deleteBeforeReplace), it would find that object by its owner mark, and the
delete that follows would remove what the state then records. So a create removes the objects its
mark finds first (`clear_own`), as a delete-before-replace would have, and only then makes its own; the
engine's delete of the old one then finds it gone.

An imported state holds the platform's complete copy of the object as its inputs; the first diff
against the program's declaration leaves out what the declaration leaves to the platform
(`imported_unchanged`), so importing and then running the program that `pulumi import` wrote changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from .. import spec as specs
from ..errors import MltrainError
from ..ownership import Mark, claim
from ..progress import Label, notice
from .protocol import Objects, R
from .removal import remove


def clear_own(objects: Objects[R], name: str, owner: Mark | None, label: Label,
              keep: Callable[[str], None] | None = None) -> None:
    """Before a create sends anything: an object named `name` that is not this resource's stops it
    (`ownership.claim`), and one that is (its owner mark) is removed first. A create never takes such an
    object over: it is the one a replacement replaces (created first: the engine gives a create no sign
    of that, nor of the state), or one whose create a killed `pulumi up` never recorded. A kept run record
    (lifecycle/records.py) is left while runs are kept as records (`keep`), unless the platform's names are
    unique (then it is deleted, said), and an unrecorded live one of ours is stopped and kept instead (on
    a platform of unique names it too is deleted, said: kept, it would hold the name the create sends);
    with keep_runs 0 (no `keep`) every one of ours is deleted, as before records existed. A cancelled or
    timed-out wait records its object instead (lifecycle/record.py). Take-overs go by ID: `adopt_id`,
    `pulumi import`, and the resume of an unfinished create."""
    found = objects.named(name)
    for item in found:
        claim(objects.noun, item.object_id, name, item.mark, owner)
    for item in found:
        if item.record and keep is not None and not objects.unique_names:
            continue  # a kept run record (lifecycle/records.py): never taken over, and it holds no name
        if keep is not None and objects.unique_names:
            # Kept, it would hold the name this create sends. A create that knows it replaces a run has a
            # name of its own (`Mark.run_name`), so an unrecorded one here is the run a `pulumi up --replace`
            # replaces (checked without the stored inputs) or one a killed `pulumi up` never recorded.
            if item.record:
                what = "is a kept record of an earlier run of this resource"
                why = "leave `name` unset to keep every run: each run then gets a name of its own"
            else:
                what = ("carries this resource's owner mark but is not recorded as it (the run a `pulumi up "
                        "--replace` replaces, or one a killed `pulumi up` never recorded)")
                why = "a changed replacement_trigger starts a new run under a name of its own and keeps the record"
            notice(f"{objects.noun} {item.object_id} {what}, and holds the name {name!r}, which {objects.platform} "
                   f"allows one job at a time: deleting it, not keeping it, so that the new run can have the name "
                   f"({why})", owner)
            remove(objects, item.object_id, label.doing_now(item.object_id, "deleting a job that holds the name"))
            continue
        if keep is not None:  # runs are kept as records (lifecycle/records.py): stopped and kept, not deleted
            notice(f"{objects.noun} {item.object_id} carries this resource's owner mark but is not recorded as it: "
                   "it is the run a replacement created first replaces, or one a killed `pulumi up` never "
                   "recorded; stopping it and keeping it as a record before the new one is made", owner)
            keep(item.object_id)
            continue
        notice(f"{objects.noun} {item.object_id} carries this resource's owner mark but is not recorded as it: "
               "it is the one a replacement created first replaces, or one a killed `pulumi up` never recorded; "
               "deleting it before the new one is made", owner)
        remove(objects, item.object_id, label.doing_now(item.object_id, "deleting an unrecorded object"))


def require_match(spec: specs.Spec, noun: str, object_id: str, remote: Mapping[str, object]) -> None:
    """Refuse to take a platform object that differs from the declaration, listing why."""
    diffs = specs.differences(spec, specs.from_wire(type(spec), remote, spec))
    if diffs:
        raise MltrainError(f"cannot adopt {noun} {object_id}: it differs from the declared inputs: "
                           + "; ".join(diffs))


def imported_unchanged(spec_type: type[specs.Spec], olds: Mapping[str, object], news: Mapping[str, object],
                       changed: Collection[str]) -> set[str]:
    """Of the `changed` keys of an imported state `olds`, the remote fields whose declared value (`news`) the
    imported copy satisfies (`spec.differing`): what the declaration leaves to the platform, the platform's
    spelling of a declared value, and what the platform never returns (which the import could not read)."""
    declared, _ = specs.validate(spec_type, specs.user_props(news, spec_type))
    held, _ = specs.validate(spec_type, specs.user_props(olds, spec_type))
    if declared is None or held is None:
        return set()
    metas = dict(specs.field_metas(spec_type))
    local = {name for name, meta in metas.items() if meta.on_change == "local"}
    unread = {name for name, meta in metas.items() if not meta.returned and getattr(held, name) in (None, [], {})}
    differ = specs.differing(declared, held)
    return {k for k in changed
            if k in spec_type.model_fields and k not in local and (k not in differ or k in unread)}
