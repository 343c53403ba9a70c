"""Admin API under ``/_admin``: what tests use to prove "no duplicates, no orphans", steer the
clock, change settings and arm faults. No auth: the server only ever binds to loopback.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import TypeAdapter, ValidationError

from . import defaults as d
from .alaya.lifecycle import format_time, subscription_view, task_view
from .fault_rules import FaultRule
from .modelarts.iam import iso
from .modelarts.lifecycle import job_view
from .patching import PatchNotFound, PatchRejected, PatchRequest, apply_patch
from .state import World, world_of

Json = dict[str, Any]
_RULES = TypeAdapter(list[FaultRule])

router = APIRouter(prefix=d.ADMIN_PREFIX)


class _BadRequest(Exception):
    def __init__(self, detail: Any) -> None:
        super().__init__(str(detail))
        self.detail = detail


async def _body(request: Request) -> Any:
    try:
        return json.loads(await request.body() or b"null")
    except ValueError as exc:
        raise _BadRequest(f"invalid JSON: {exc}") from exc


def _errors(exc: ValidationError) -> Any:
    return json.loads(exc.json(include_url=False))


def _rejected(detail: Any) -> Response:
    return JSONResponse({"detail": detail}, status_code=422)


def _clock(world: World) -> Json:
    return {"now": iso(world.now()), "now_epoch": world.now(), "offset": world.clock.offset}


@router.get("/state")
async def state(request: Request) -> Json:
    """Every stored object; deleted ones are gone, ones being deleted are flagged."""
    world = world_of(request)
    now = world.now()
    subscriptions = [
        {**subscription_view(s), "name": s.request["name"], "productCode": s.request["productCode"],
         "createdTime": format_time(s.created_at), "neverResolve": s.never_resolve}
        for s in world.subscriptions.values()
    ]
    tasks = [{**task_view(t, with_secret=False), "deleting": t.deleting_since is not None}
             for t in world.tasks.values()]
    # Jobs as stored (the reference's full shape) with their tags, which the platform keeps beside them.
    jobs = [{**job_view(j, now), "tags": list(j.tags), "deleting": j.deleting_since is not None}
            for j in world.jobs.values()]
    return {
        "clock": _clock(world),
        "alaya": {"subscriptions": subscriptions, "tasks": tasks},
        "modelarts": {"algorithms": [a.document for a in world.algorithms.values()], "jobs": jobs},
        "iam": {"tokens": len(world.tokens)},
    }


@router.get("/requests")
async def requests(request: Request) -> Json:
    return world_of(request).requests.describe()


@router.post("/reset")
async def reset(request: Request) -> Json:
    world_of(request).reset()
    return {"reset": True}


@router.get("/settings")
async def get_settings(request: Request) -> Json:
    return world_of(request).settings.model_dump(mode="json")


@router.post("/settings")
async def set_settings(request: Request) -> Response:
    """Partial merge: only the keys given change. Unknown keys or bad values → 422, nothing changes."""
    world = world_of(request)
    try:
        patch = await _body(request)
        if not isinstance(patch, dict):
            raise _BadRequest("expected a JSON object of settings")
        world.set_settings(patch)
    except ValidationError as exc:
        return _rejected(_errors(exc))
    except _BadRequest as exc:
        return _rejected(exc.detail)
    return JSONResponse(world.settings.model_dump(mode="json"))


@router.get("/clock")
async def clock(request: Request) -> Json:
    return _clock(world_of(request))


@router.post("/clock/advance")
async def advance(request: Request) -> Response:
    """``{"seconds": N}``: move the emulator clock forward; objects follow on the next request."""
    world = world_of(request)
    try:
        body = await _body(request)
        seconds = body.get("seconds") if isinstance(body, dict) else None
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise _BadRequest('expected {"seconds": <number >= 0>}')
    except _BadRequest as exc:
        return _rejected(exc.detail)
    world.clock.advance(float(seconds))
    world.sync()
    world.commit()
    return JSONResponse(_clock(world))


@router.get("/faults")
async def get_faults(request: Request) -> Json:
    return {"rules": world_of(request).faults.describe()}


@router.post("/faults")
async def set_faults(request: Request) -> Response:
    """Replace the rules: a JSON list of rules, or ``{"rules": [...]}``; counters start at zero."""
    world = world_of(request)
    try:
        body = await _body(request)
        rules = _RULES.validate_python(body["rules"] if isinstance(body, dict) and "rules" in body else body)
    except ValidationError as exc:
        return _rejected(_errors(exc))
    except _BadRequest as exc:
        return _rejected(exc.detail)
    world.faults.replace(rules)
    return JSONResponse({"rules": world.faults.describe()})


@router.delete("/faults")
async def clear_faults(request: Request) -> Json:
    world = world_of(request)
    world.faults.replace([])
    return {"rules": []}


@router.post("/patch")
async def patch(request: Request) -> Response:
    """Change a stored object out of band, as the platform's console would (see ``patching``).

    ``{"platform", "kind", "id", "set": {"<dotted.wire.path>": value}}`` → the object as the
    platform's GET now shows it; 404 for an unknown ID, 422 for a change the platform would refuse.
    """
    world = world_of(request)
    try:
        req = PatchRequest.model_validate(await _body(request))
        world.sync()
        view = apply_patch(world, req)
    except ValidationError as exc:
        return _rejected(_errors(exc))
    except (_BadRequest, PatchRejected) as exc:
        return _rejected(exc.detail if isinstance(exc, _BadRequest) else str(exc))
    except PatchNotFound as exc:
        return JSONResponse({"detail": str(exc)}, status_code=404)
    world.commit()
    return JSONResponse(view)
