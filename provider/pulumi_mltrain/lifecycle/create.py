"""The create of every resource, once: find own -> submit with resend -> resolve -> mark -> record.

1. Find own (`takeover.clear_own`): an object of the name that is not this resource's stops the create;
   one that carries its mark but that no state can be shown to record is deleted first (the object a
   replacement created first replaces, or one a killed run left); a kept run record is left alone
   (`records.py`), unless the platform's names are unique and it holds the name.
2. Submit with resend (`resend.submit`): an answer that is lost is looked for by name (`made`) before
   the create is ever sent again; a refusal because the name is taken looks too.
3. Resolve: a platform that answers with a token (Alaya NeW's resultKey) gives the ID later; a resolve
   that fails removes what the create may have made (`clean_up`), so the platform and the state agree.
4. Duplicates that a late first request made after a resend are removed.
5. Mark: the owner mark where the create could not carry it (ModelArts' job tags); an object that cannot
   be marked is rolled back (left unmarked under a name the user chose, no later run could tell it is ours).
6. Record: the caller waits for a run (`record.py`); the outputs of anything else come with the answer.

Take-overs go by ID only (`take_over`, `adopt`): the resume of an unfinished create, `adopt_id`, `pulumi import`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .. import cancel, deadline
from ..errors import MltrainError, RemoteFailure
from ..ownership import Mark, claim, owns
from ..progress import Label, notice
from .protocol import Creates, Listing, Outs, R
from .removal import remove
from .resend import submit
from .rollback import roll_back
from .takeover import clear_own

S = TypeVar("S")


def create(kind: Creates[S, R], spec: S, owner: Mark | None, *, name: str, grace: float, label: Label,
           operation: deadline.Deadline, keep: Callable[[str], None] | None = None) -> tuple[str, Outs]:
    """Make the object of `spec` (named `name`): its ID, and the outputs the platform's answer gave.
    `grace`: how long an unanswered create is looked for (within `operation`, the create's deadline, which
    also gives a roll-back its budget); `keep`: how an unrecorded object of ours is kept as a run record
    (records.py) instead of being deleted first."""
    clear_own(kind, name, owner, label, keep)
    submitted = submit(lambda: kind.submit(spec, owner), lambda just_sent: made(kind, name, owner, just_sent),
                       noun=kind.noun, name=name, grace=grace, operation=operation, owner=owner,
                       duplicate=kind.duplicate)
    outs: Outs = {}
    if submitted.found is not None:
        object_id = submitted.found
    else:
        assert submitted.sent is not None
        outs = submitted.sent.outputs
        object_id = submitted.sent.object_id or resolved(kind, spec, owner, name, submitted.sent.pending or "",
                                                         operation)
    if submitted.attempts > 1:
        for other in owned(kind, name, owner):
            if other != object_id:
                notice(f"removing {other}, a duplicate of {object_id} from the unanswered first request", owner)
                remove(kind, other)
    try:
        kind.mark(object_id, spec, owner)
    except MltrainError as err:
        undone = roll_back(kind, object_id, operation, unmarked=True)
        raise RemoteFailure(f"{kind.noun} {name!r} ({object_id}) was created, but writing its owner mark failed: "
                            f"{err}. {undone}") from None
    return object_id, outs


def made(kind: Creates[S, R], name: str, owner: Mark | None, just_sent: bool) -> str | None:
    """The object of `name` after an unanswered create, once shown to be this create's: `just_sent`, a
    request of this create may have made it, so a missing mark is no refusal; else its mark decides
    (`ownership.claim`: one that is not ours stops the create)."""
    for item in kind.named(name):
        if item.record:
            continue  # an earlier run's kept record (lifecycle/records.py): never this create's
        if not (just_sent and item.mark is None):
            claim(kind.noun, item.object_id, name, item.mark, owner)
        return item.object_id
    return None


def owned(kind: Listing, name: str, owner: Mark | None) -> list[str]:
    """The IDs of the objects of `name` that are this resource's (`ownership.owns`; never anyone else's)."""
    return [item.object_id for item in kind.named(name) if not item.record and owns(owner, item.mark, name)]


def resolved(kind: Creates[S, R], spec: S, owner: Mark | None, name: str, pending: str,
             operation: deadline.Deadline) -> str:
    """The ID the pending create yields; when it fails, what it may have made is removed (`clean_up`)."""
    try:
        return kind.resolve(spec, owner, pending)
    except MltrainError as err:
        if cancel.requested():
            raise  # the resolve says what it left; a clean-up now would hold the cancelled update
        raise MltrainError(f"{err}. {clean_up(kind, name, owner, operation)}") from None


def clean_up(kind: Creates[S, R], name: str, owner: Mark | None, operation: deadline.Deadline) -> str:
    """The create (under the deadline `operation`) was accepted but its ID cannot be recorded: remove our
    object if it exists, so that the platform and the state agree; otherwise say what the next run does with it."""
    budget = operation.clean_up(f"cleaning up after {kind.noun} {name!r}")
    try:
        with deadline.scope(budget, override=True):
            found = owned(kind, name, owner)
            for object_id in found:
                remove(kind, object_id)
    except MltrainError as err:
        return (f"Could not check for the {kind.noun} it may have created ({err}); the next `pulumi up` finds the "
                f"{kind.noun} named {name!r} that carries this resource's mark and deletes it before it makes "
                "its own, so none is left unrecorded")
    if found:
        return f"The {kind.noun} the request had created ({', '.join(found)}) was deleted, so nothing is left behind"
    return (f"no {kind.noun} was created yet; if one named {name!r} appears later, the next `pulumi up` deletes it "
            "(it carries this resource's mark) before it makes its own")
