"""Alaya NeW Open API (api.md contract table, seed 000), served under each prefix in ``ALAYA_PREFIXES``.

Business errors answer HTTP 200 with the envelope's ``status`` set (400, 403, 404, 409); only auth
failures use HTTP 401, as observed on the real gateway.
"""

from __future__ import annotations

import itertools
import json
import uuid
from typing import Any

from fastapi import APIRouter, Depends, Request

from .. import defaults as d
from ..fault_rules import NEVER_RESOLVE_SCOPE_KEY
from ..state import World, world_of
from . import catalog
from . import contract as ac
from .errors import AlayaError, alaya_ok
from .lifecycle import ACTIVE, enter, subscription_view, task_view
from .records import AlayaTask, Subscription
from .validation import normalise_create

Json = dict[str, Any]
MAX_PAGE_SIZE = ac.MAX_PAGE_SIZE


async def require_api_key(request: Request) -> None:
    header = request.headers.get("authorization")
    if not header:
        raise AlayaError(ac.LOGIN_EXPIRED, "Login credential expired, please log in again", http_status=401)
    scheme, _, key = header.partition(" ")
    if scheme.lower() != "bearer" or key.strip() not in world_of(request).settings.alaya_api_keys:
        raise AlayaError(ac.API_KEY_NOT_FOUND, "API key not found", http_status=401)


def _query_int(request: Request, name: str, default: int, low: int, high: int | None = None) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if value < low or (high is not None and value > high):
        raise AlayaError(ac.BAD_REQUEST, f"{name}: must be an integer >= {low}" + (f" and <= {high}" if high else ""))
    return value


def _page(request: Request, rows: list[Json]) -> Json:
    page_no = _query_int(request, "pageNo", 1, 1)
    page_size = _query_int(request, "pageSize", 10, 1, MAX_PAGE_SIZE)
    start = (page_no - 1) * page_size
    return {"records": rows[start:start + page_size], "pageNo": page_no, "pageSize": page_size,
            "totalRows": len(rows)}


def _task(world: World, task_id: str) -> AlayaTask:
    task = world.tasks.get(task_id)
    if task is None:
        raise AlayaError(ac.NOT_FOUND, f"training task {task_id} not found")
    return task


async def create(request: Request) -> Json:
    world = world_of(request)
    try:
        body = json.loads(await request.body() or b"null")
    except ValueError as exc:
        raise AlayaError(ac.BAD_REQUEST, "body: invalid JSON") from exc
    spec = normalise_create(body)
    if spec["productCode"] in world.settings.alaya_forbidden_products:
        raise AlayaError(ac.FORBIDDEN, "Forbidden")
    key = str(uuid.uuid4())
    sub = Subscription(result_key=key, request=spec, created_at=world.now(),
                       never_resolve=bool(request.scope.get(NEVER_RESOLVE_SCOPE_KEY)))
    world.subscriptions[key] = sub
    world.commit(sub)
    return alaya_ok(key)


def _result(request: Request, key: str | None) -> Json:
    if not key:
        raise AlayaError(ac.BAD_REQUEST, "resultKey: is required")
    sub = world_of(request).subscriptions.get(key)
    if sub is None:
        raise AlayaError(ac.NOT_FOUND, f"resultKey {key} not found")
    return alaya_ok(subscription_view(sub, pending=bool(request.scope.get(NEVER_RESOLVE_SCOPE_KEY))))


async def result(request: Request) -> Json:
    return _result(request, request.query_params.get("resultKey"))


async def result_by_path(request: Request, result_key: str) -> Json:
    return _result(request, result_key)


async def detail(request: Request, task_id: str) -> Json:
    world = world_of(request)
    return alaya_ok(task_view(_task(world, task_id), with_env=world.settings.alaya_detail_env))


async def stop(request: Request, task_id: str) -> Json:
    world = world_of(request)
    task = _task(world, task_id)
    if task.deleting_since is not None or task.status not in ACTIVE:
        shown = d.TASK_DELETING if task.deleting_since is not None else task.status
        raise AlayaError(ac.CONFLICT, f"training task {task_id} cannot be stopped in status {shown}")
    enter(task, d.TASK_STOPPED, world.now(), "stopped by user")
    world.commit(task)
    return alaya_ok({})


async def delete(request: Request, task_id: str) -> Json:
    world = world_of(request)
    task = _task(world, task_id)
    if task.status in (d.TASK_STARTING, d.TASK_RUNNING):
        raise AlayaError(ac.CONFLICT, "stop the task before deleting it")
    if task.deleting_since is None:
        task.deleting_since = world.now()
        world.commit(task)
    return alaya_ok({})


async def list_tasks(request: Request) -> Json:
    """Newest first. Tasks are stored in creation order and indexed by name, so a page costs its
    own size, not a scan and a sort of every task."""
    world = world_of(request)
    name = request.query_params.get("name")
    tasks = world.tasks if not name else world.tasks_by_name.get(name, {})
    page_no = _query_int(request, "pageNo", 1, 1)
    page_size = _query_int(request, "pageSize", 10, 1, MAX_PAGE_SIZE)
    start = (page_no - 1) * page_size
    page = itertools.islice(reversed(tasks.values()), start, start + page_size)
    env = world.settings.alaya_detail_env
    return alaya_ok({"records": [task_view(t, with_secret=False, with_env=env) for t in page], "pageNo": page_no,
                     "pageSize": page_size, "totalRows": len(tasks)})


async def products(request: Request) -> Json:
    aidc = _query_int(request, "aidcId", 0, 0)
    return alaya_ok([p for p in catalog.products() if aidc in (0, p["aidcId"])])


async def storages(request: Request) -> Json:
    return alaya_ok(_page(request, world_of(request).storage_rows()))


async def check_enabled(request: Request) -> Json:
    return alaya_ok(True)


def build_router(prefix: str) -> APIRouter:
    """The Alaya routes under ``prefix``; built once per prefix so each route knows its full path."""
    router = APIRouter(prefix=prefix, dependencies=[Depends(require_api_key)])
    router.add_api_route(d.ALAYA_CREATE, create, methods=["POST"])
    router.add_api_route(d.ALAYA_RESULT, result, methods=["GET"])
    router.add_api_route(ac.RESULT_BY_KEY, result_by_path, methods=["GET"])
    router.add_api_route(d.ALAYA_TASK_LIST, list_tasks, methods=["GET"])
    router.add_api_route(d.ALAYA_CHECK_ENABLED, check_enabled, methods=["GET"])
    router.add_api_route(d.ALAYA_TASK_DETAIL, detail, methods=["GET"])
    router.add_api_route(d.ALAYA_TASK_STOP, stop, methods=["POST"])
    router.add_api_route(d.ALAYA_TASK_DELETE, delete, methods=["DELETE"])
    router.add_api_route(d.ALAYA_PRODUCTS, products, methods=["GET"])
    router.add_api_route(d.ALAYA_STORAGES, storages, methods=["GET"])
    return router
