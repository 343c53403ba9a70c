"""Run records: a replaced or destroyed run's job stays on the platform as the run's record.

A training job is a run, and a sweep's runs are its results: so the delete of a run (a replace, `pulumi
destroy`) keeps its job instead of deleting it, while the resource's `keep_runs` (else the provider's
`mltrain:keepRuns`, default 5) is above 0. `keep` stops the job if it still runs (the `stopped` input's
stop and wait, `removal.stop_in_place`), marks it as a record where the platform allows a mark after the
create (ModelArts: job tags; an Alaya NeW task cannot be changed after its create, so there a record is
an ended task that carries the owner mark), and prunes: the records of the same stack and resource
beyond `keep_runs`, oldest first, are deleted (`prune`; also at the resource's next new run, `after_run`,
and by `mltrain-runs prune`). Only objects that carry this resource's owner mark are ever pruned.

A record is never taken over: a create's first look (`lifecycle/create.py`) skips records, and where the
platform's names are unique among all its jobs (ModelArts) a new run gets a name of its own
(`ownership.Mark.run_name`), so a record never blocks the next run.
"""

from __future__ import annotations

import contextlib

from .. import cancel
from ..errors import MltrainError, NotFound
from ..ownership import Mark
from ..progress import Label, notice
from .protocol import Keeps, Kept, R
from .removal import remove, stop_in_place


def keep(objects: Keeps[R], object_id: str, label: Label | None, *, name: str, reason: str | None,
         keep_runs: int) -> None:
    """The delete of a run whose records are kept: stop it (and wait) if it still runs, mark it as a record,
    then delete this resource's records beyond `keep_runs`. Raises NotFound when it is gone already."""
    stop_in_place(objects, object_id, label and label.doing_now(object_id, "stopping"))
    owner = objects.owner_of(object_id)
    if owner is None:
        notice(f"{objects.noun} {object_id} was kept on {objects.platform}, ended; it carries no owner mark (it "
               "was adopted), so no history lists it and no prune deletes it: delete it yourself when done", None)
        return
    objects.keep(object_id, owner, reason)
    pruned = prune(objects, owner, name, keep_runs)
    more = f"; {len(pruned)} older record(s) deleted ({', '.join(pruned)})" if pruned else ""
    notice(f"{objects.noun} {object_id} kept on {objects.platform} as the run's record, ended (keep_runs="
           f"{keep_runs}: `mltrain-runs history` lists it){more}", owner)


def prune(objects: Keeps[R], owner: Mark, name: str, keep_runs: int, *, besides: str = "") -> list[str]:
    """Delete the records of `owner` beyond the newest `keep_runs` (`besides`: a live run not to count);
    the IDs deleted."""
    found = sorted((k for k in objects.records(owner, name) if k.object_id != besides), key=_age, reverse=True)
    gone: list[str] = []
    for record in found[keep_runs:]:
        if cancel.requested():
            break
        with contextlib.suppress(NotFound):  # gone already: as good as pruned
            remove(objects, record.object_id)
        gone.append(record.object_id)
    return gone


def after_run(objects: Keeps[R], object_id: str, owner: Mark | None, name: str, keep_runs: int) -> None:
    """After a new run's create: the newest record of this resource that names no successor is noted as
    replaced by `object_id`, and records beyond `keep_runs` are deleted. A failure here fails no create:
    it is said, and the next delete or `mltrain-runs prune` prunes again."""
    if owner is None:
        return
    try:
        found = sorted((k for k in objects.records(owner, name) if k.object_id != object_id), key=_age,
                       reverse=True)
        if found and found[0].replaced_by is None:
            objects.replaced(found[0].object_id, object_id)
        if len(found) > keep_runs:
            pruned = prune(objects, owner, name, keep_runs, besides=object_id)
            notice(f"{len(pruned)} record(s) of earlier runs deleted (keep_runs={keep_runs}): {', '.join(pruned)}",
                   owner)
    except MltrainError as err:
        notice(f"the records of earlier runs could not be noted or pruned ({err}); the next delete or "
               "`mltrain-runs prune` does it", owner)


def _age(record: Kept) -> tuple[float, str]:
    """Newest first when sorted in reverse; a record without a time counts as the oldest."""
    return (record.created or 0.0, record.object_id)
