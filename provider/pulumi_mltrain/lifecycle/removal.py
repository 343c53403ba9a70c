"""Stop, remove, and believe "gone" only on proof: the one path of every delete and roll-back.

`remove` stops the object, deletes it and waits until the platform answers its own not-found. An
object that has ended costs three calls (a refused stop, the delete, one read). Only when the
platform refuses the delete in the object's state (`Busy`), or its stop answer says it is stopping,
does the full path run: read it, stop it again if it is live, wait until it has settled, delete again.
No ownership check is made here: the ID comes from the resource's state or its own create.

`confirm_gone` is the rule for a not-found before any delete was accepted: a listing must agree.
"""

from __future__ import annotations

from .. import deadline
from ..errors import MltrainError, NotFound
from ..progress import Label
from ..waiter import wait_for
from .protocol import Busy, Listing, Objects, R, Stop

GONE = "(gone)"


def remove(objects: Objects[R], object_id: str, label: Label | None = None) -> bool:
    """Stop, delete and wait until gone. True once the platform accepted the delete and then answered its
    own not-found (the delete proves that the ID and the endpoint address this object, so that answer
    needs no listing); False when it was not found before its delete was accepted (ask a listing)."""
    try:
        stop = objects.stop(object_id)
        if stop in (Stop.STOPPING, Stop.CHANGED):
            settle(objects, object_id, label, look_first=stop is Stop.CHANGED)
        try:
            objects.delete(object_id)
        except Busy:
            settle(objects, object_id, label, look_first=True)
            objects.delete(object_id)
    except NotFound:
        return False

    def state() -> str:
        try:
            return objects.state_of(objects.get(object_id))
        except NotFound:
            return GONE

    wait_for(state, lambda s: s == GONE, until=deadline.operation(), what=f"deleting {objects.noun} {object_id}",
             backoff=objects.poll, label=label and label.doing_now(object_id, "deleting"))
    return True


def stop_in_place(objects: Objects[R], object_id: str, label: Label | None = None) -> None:
    """Stop the object and wait until it has settled (`stopped=True`); one that has ended is left as it is."""
    stop = objects.stop(object_id)
    if stop is not Stop.ENDED:
        settle(objects, object_id, label, look_first=stop is not Stop.STOPPING)


def settle(objects: Objects[R], object_id: str, label: Label | None, *, look_first: bool) -> None:
    """Wait until the object is in a state a delete is accepted in; with `look_first`, read it first and
    stop it once more if it is live (its state changed since the last stop)."""
    if look_first and objects.live(objects.state_of(objects.get(object_id))):
        objects.stop(object_id)
    wait_for(lambda: objects.get(object_id), lambda r: objects.settled(objects.state_of(r)),
             until=deadline.operation(), what=f"stopping {objects.noun} {object_id}", state_of=objects.state_of,
             backoff=objects.poll, label=label and label.doing_now(object_id, "stopping"))


def confirm_gone(objects: Listing, object_id: str, name: str, said: str) -> None:
    """Believe "not found" only when a listing agrees; otherwise keep everything and say why."""
    if name and objects.listed(object_id, name):
        raise MltrainError(
            f"the platform answered 'not found' for {objects.noun} {object_id} ({said}), yet still lists it; "
            "nothing was removed from the state or reported deleted. Check the endpoint settings and "
            "run the command again")
