"""Roll back what a failed create made, so that the platform and the state agree.

One budget for every roll-back: the clean-up budget of the create's deadline (`Deadline.clean_up`: the
resource's delete timeout, from the `timeouts` input, else the default), as its own deadline, since the
create's may have run out already.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import deadline
from ..errors import MltrainError
from .protocol import Objects, R
from .removal import remove


@dataclass(frozen=True)
class RolledBack:
    """What became of a rolled-back object: `removed`, the sentence that says so (`str()`), and why
    the delete failed when it did (`error`)."""

    removed: bool
    text: str
    error: str = ""

    def __str__(self) -> str:
        return self.text


def roll_back(objects: Objects[R], object_id: str, operation: deadline.Deadline, *,
              unmarked: bool = False) -> RolledBack:
    """Delete this resource's own `object_id`, whose create (under the deadline `operation`) fails; say
    what became of it. `unmarked`: the object carries no owner mark (writing it is what failed), so a
    later run cannot tell it is ours."""
    budget = operation.clean_up(f"deleting failed {objects.noun} {object_id}")
    try:
        with deadline.scope(budget, override=True):
            remove(objects, object_id)
    except MltrainError as err:
        then = ("it carries no owner mark, so the next `pulumi up` deletes it only under a name the provider "
                "chose, and otherwise stops at its name until it is gone" if unmarked else
                "or run `pulumi up` again, which finds it by its owner mark and deletes it before it makes a new one")
        return RolledBack(False, f"Deleting it failed too ({err}); delete {objects.noun} {object_id} in "
                                 f"{objects.platform}{':' if unmarked else ','} {then}", str(err))
    return RolledBack(True, "It was deleted so that nothing is left behind; fix the cause and run `pulumi up` again")
