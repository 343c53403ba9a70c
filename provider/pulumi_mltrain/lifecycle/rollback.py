"""Roll back what a failed create made, so that the platform and the state agree.

One budget for every roll-back: the resource's delete timeout (the `timeouts` input, else the
engine's, else the default), as its own deadline, since the create's may have run out already.
"""

from __future__ import annotations

from .. import deadline
from ..errors import MltrainError
from .protocol import Objects, R
from .removal import remove


def roll_back(objects: Objects[R], object_id: str, seconds: float) -> str:
    """Delete this resource's own `object_id`, whose create fails; say what became of it."""
    budget = deadline.Deadline.after(seconds, f"deleting failed {objects.noun} {object_id}")
    try:
        with deadline.scope(budget, override=True):
            remove(objects, object_id)
    except MltrainError as err:
        return (f"Deleting it failed too ({err}); delete {objects.noun} {object_id} in {objects.platform}, or run "
                "`pulumi up` again, which finds it by its owner mark and adopts it")
    return "It was deleted so that nothing is left behind; fix the cause and run `pulumi up` again"

