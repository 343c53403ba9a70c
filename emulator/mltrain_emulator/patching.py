"""Out-of-band changes: ``POST /_admin/patch`` edits a stored object as someone would in the
platform's console, so tests can prove that ``pulumi refresh`` sees drift and ``up`` repairs it.

Paths are the wire names the platform answers with, dotted for nesting, with list indexes as
numbers (``storageConfigs.0.onlyRead``). An Alaya task is re-validated as a create body would be,
so a patch cannot store what the real API would refuse; ModelArts documents take values as given
(only identity and status are off limits, since the console cannot change them either).
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .alaya.errors import AlayaError
from .alaya.lifecycle import task_view
from .alaya.validation import normalise_create
from .modelarts.lifecycle import job_view
from .state import World

Json = dict[str, Any]
Kind = Literal["task", "job", "algorithm", "storage"]

# The spelling the seed uses in its field table; the task stores the corrected one.
_ALAYA_ALIASES = {"trainingFramwork": "trainingFramework"}
_FIXED = {
    "task": ("id", "status"),
    "job": ("kind", "metadata.id", "metadata.create_time", "status"),
    "algorithm": ("metadata.id", "metadata.create_time"),
    "storage": ("storageId",),
}


class PatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    platform: Literal["alaya", "modelarts"]
    kind: Kind
    id: str = Field(min_length=1)
    set: dict[str, Any] = Field(min_length=1)


class PatchNotFound(Exception):
    """The named object does not exist (the admin API answers 404)."""


class PatchRejected(Exception):
    """The patch is not one the platform would accept (the admin API answers 422)."""


_PLATFORM_OF: dict[str, str] = {"task": "alaya", "storage": "alaya", "job": "modelarts", "algorithm": "modelarts"}


def set_path(document: Json, path: str, value: Any) -> None:
    """Set ``value`` at a dotted path; objects on the way are created, list indexes must exist."""
    parts = path.split(".")
    node: Any = document
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        where = ".".join(parts[:depth + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise PatchRejected(f"{path}: {where} is not an index of a list of {len(node)} items")
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
            continue
        if not isinstance(node, dict):
            raise PatchRejected(f"{path}: {'.'.join(parts[:depth])} is not an object")
        if last:
            node[part] = value
        else:
            node = node.setdefault(part, {})


def _check_fixed(req: PatchRequest) -> None:
    for path in req.set:
        for fixed in _FIXED[req.kind]:
            if path == fixed or path.startswith(fixed + "."):
                raise PatchRejected(f"{path}: {fixed} cannot be changed")


def apply_patch(world: World, req: PatchRequest) -> Json:
    """Apply ``req`` and return the object as the platform's own GET now shows it."""
    if _PLATFORM_OF[req.kind] != req.platform:
        raise PatchRejected(f"kind {req.kind!r} belongs to platform {_PLATFORM_OF[req.kind]!r}")
    _check_fixed(req)
    if req.kind == "task":
        return _patch_task(world, req)
    if req.kind == "storage":
        return _patch_storage(world, req)
    if req.kind == "job":
        job = world.jobs.get(req.id)
        if job is None or job.deleting_since is not None:
            raise PatchNotFound(f"ModelArts training job {req.id} not found")
        job.document = _patched(job.document, req.set)
        return job_view(job, world.now())
    algorithm = world.algorithms.get(req.id)
    if algorithm is None:
        raise PatchNotFound(f"ModelArts algorithm {req.id} not found")
    algorithm.document = _patched(algorithm.document, req.set)
    return copy.deepcopy(algorithm.document)


def _patched(document: Json, changes: dict[str, Any]) -> Json:
    updated = copy.deepcopy(document)
    for path, value in changes.items():
        set_path(updated, path, copy.deepcopy(value))
    return updated


def _patch_task(world: World, req: PatchRequest) -> Json:
    task = world.tasks.get(req.id)
    if task is None or task.deleting_since is not None:
        raise PatchNotFound(f"Alaya training task {req.id} not found")
    changes = {_ALAYA_ALIASES.get(p, p): v for p, v in req.set.items()}
    body = _patched(task.spec, changes)
    try:
        task.spec = normalise_create(body)
    except AlayaError as err:
        raise PatchRejected(err.message) from None
    return task_view(task, with_secret=False)


def _patch_storage(world: World, req: PatchRequest) -> Json:
    row = world.storage_row(req.id)
    if row is None:
        raise PatchNotFound(f"Alaya storage {req.id} not found")
    world.storage_patches[req.id] = _patched(row, req.set)
    found = world.storage_row(req.id)
    assert found is not None
    return found
