"""ModelArts v2 training API under ``/v2/{project_id}`` (api.md Part B, seed 002).

Status codes follow the documents, odd ones included: algorithm PUT 201, DELETEs 202 with no body,
job PUT 200 with ``null``, and "not found" as HTTP 400 with ModelArts.2755 / 2775.
"""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from .. import defaults as d
from ..state import World, world_of
from . import catalog, signing
from . import contract as mc
from .documents import (
    algorithm_not_found,
    build_algorithm,
    build_job,
    description_update,
    invalid,
    job_not_found,
    parse_json,
)
from .errors import ModelArtsError
from .lifecycle import TERMINABLE, enter, events, ft_artifacts, job_view, log_preview, log_url, metrics, tasks_of
from .records import Algorithm, TrainingJob

Json = dict[str, Any]


async def require_token(request: Request, project_id: str) -> None:
    """An IAM token scoped to the URL's project, or an AK/SK signature naming it in X-Project-Id."""
    world = world_of(request)
    if signing.is_signed(request):
        await signing.verify(request, world.now())
        if request.headers.get("x-project-id") != project_id or project_id not in world.settings.iam_projects.values():
            raise ModelArtsError(403, mc.PROJECT_MISMATCH, "the project ID in the URL does not match X-Project-Id.",
                                 "Send X-Project-Id with the project ID of the URL.")
        return
    token = request.headers.get(mc.AUTH_HEADER)
    if not token:
        raise ModelArtsError(401, mc.TOKEN_MISSING, "token is missing.", "Send an IAM token in X-Auth-Token.")
    record = world.find_token(token)
    if record is None:
        raise ModelArtsError(401, mc.TOKEN_INVALID, "token is invalid.", "Get a new token from IAM.")
    if record.revoked or world.now() >= record.expires_at:
        raise ModelArtsError(401, mc.TOKEN_EXPIRED, "token expired.", "Get a new token from IAM.")
    if record.project_id != project_id:
        raise ModelArtsError(403, mc.PROJECT_MISMATCH, "the project ID in the URL does not match the token.",
                             "Use a token scoped to this project.")


router = APIRouter(prefix=d.MODELARTS_PREFIX, dependencies=[Depends(require_token)])


def _query_int(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise invalid(f"{name} must be an integer between {low} and {high}")
    return int(raw)


def _order(value: Any) -> str:
    if value not in (None, "", "asc", "desc"):
        raise invalid("order must be asc or desc")
    return str(value or "desc")


def _algorithm(world: World, algorithm_id: str) -> Algorithm:
    found = world.algorithms.get(algorithm_id)
    if found is None:
        raise algorithm_not_found(algorithm_id)
    return found


def _job(world: World, job_id: str) -> TrainingJob:
    found = world.jobs.get(job_id)
    if found is None:
        raise job_not_found(job_id)
    return found


def _job_task(job: TrainingJob, task_id: str) -> str:
    if task_id not in tasks_of(job):
        raise invalid(f"task {task_id} is not one of {', '.join(tasks_of(job))}")
    return task_id


# --- catalogue ------------------------------------------------------------------------------------

@router.get(mc.FLAVORS)
async def flavors(request: Request) -> Json:
    kind = request.query_params.get("flavor_type")
    if kind not in (None, "", "CPU", "GPU", "Ascend"):
        raise invalid("flavor_type must be CPU, GPU or Ascend")
    rows = [f for f in catalog.flavors() if not kind or f["flavor_type"] == kind]
    return {"total_count": len(rows), "flavors": rows}


@router.get(mc.ENGINES)
@router.get(mc.ENGINES_SEED)
async def engines(request: Request) -> Json:
    rows = catalog.engines()
    return {"total": len(rows), "items": rows}


# --- algorithms -----------------------------------------------------------------------------------

@router.post(mc.ALGORITHMS)
async def create_algorithm(request: Request) -> Response:
    world = world_of(request)
    document = build_algorithm(parse_json(await request.body()), algorithm_id=str(uuid.uuid4()),
                               now_ms=world.clock.now_ms())
    name = document["metadata"]["name"]
    if world.algorithm_index.has_name(name):
        raise ModelArtsError(400, mc.DUPLICATE_ALGORITHM_NAME, f"algorithm name {name} already exists.")
    algorithm = Algorithm(id=document["metadata"]["id"], document=document)
    world.add_algorithm(algorithm)
    world.commit(algorithm)
    return JSONResponse(document, status_code=201)


@router.get(mc.ALGORITHMS)
async def list_algorithms(request: Request) -> Json:
    query = request.query_params
    offset = _query_int(request, "offset", 0, 0, 1_000_000)
    limit = _query_int(request, "limit", 10, 1, mc.PAGE_LIMIT)
    order = _order(query.get("order"))
    name_filter = ""
    for search in filter(None, (query.get("searches") or "").split(";")):
        key, _, value = search.partition(":")
        if key != "name":
            raise invalid(f"searches supports only name:<text>, not {key}")
        name_filter = value
    world = world_of(request)
    index, desc = world.algorithm_index, order == "desc"
    if name_filter:
        matches = index.ordered(index.containing(name_filter), desc=desc)
        total, ids = len(matches), matches[offset:offset + limit]
    else:
        total, ids = len(index), index.page(offset, offset + limit, desc=desc)
    page = [world.algorithms[i].document for i in ids]
    return {"total": total, "count": len(page), "limit": limit, "offset": offset,
            "sort_by": query.get("sort_by") or "create_time", "order": order,
            "group_by": query.get("group_by") or "", "items": page}


@router.get(mc.ALGORITHM)
async def get_algorithm(request: Request, algorithm_id: str) -> Json:
    return _algorithm(world_of(request), algorithm_id).document


@router.put(mc.ALGORITHM)
async def update_algorithm(request: Request, algorithm_id: str) -> Response:
    """Full-body replacement (as Terraform uses it). A changed name is refused with ModelArts.2788."""
    world = world_of(request)
    algorithm = _algorithm(world, algorithm_id)
    algorithm.document = build_algorithm(parse_json(await request.body()), algorithm_id=algorithm_id,
                                         now_ms=world.clock.now_ms(), previous=algorithm.document)
    world.commit(algorithm)  # name and create_time unchanged: the index stands
    return JSONResponse(algorithm.document, status_code=201)


@router.delete(mc.ALGORITHM)
async def delete_algorithm(request: Request, algorithm_id: str) -> Response:
    world = world_of(request)
    algorithm = _algorithm(world, algorithm_id)
    world.drop_algorithm(algorithm)
    world.commit(algorithm)
    return Response(status_code=202)


# --- training jobs --------------------------------------------------------------------------------

@router.post(mc.JOBS)
async def create_job(request: Request) -> Response:
    world = world_of(request)
    job_id, now = str(uuid.uuid4()), world.now()
    document = build_job(parse_json(await request.body()), job_id=job_id, now_ms=int(now * 1000),
                         algorithms=lambda i: a.document if (a := world.algorithms.get(i)) else None,
                         taken=world.job_index.names())
    job = TrainingJob(id=job_id, document=document, created_at=now, phase_since=now)
    world.add_job(job)
    world.commit(job)
    return JSONResponse(job_view(job, now, full=world.settings.modelarts_full_detail), status_code=201)


@router.get(mc.JOB)
async def get_job(request: Request, training_job_id: str) -> Json:
    world = world_of(request)
    return job_view(_job(world, training_job_id), world.now(), full=world.settings.modelarts_full_detail)


@router.put(mc.JOB)
async def update_job(request: Request, training_job_id: str) -> Response:
    world = world_of(request)
    job = _job(world, training_job_id)
    job.document["metadata"]["description"] = description_update(parse_json(await request.body()))
    world.commit(job)
    return JSONResponse(None)


@router.get(mc.JOB_TAGS)
async def job_tags(request: Request, training_job_id: str) -> Json:
    return {"tags": list(_job(world_of(request), training_job_id).tags)}


@router.post(mc.JOB_TAGS_CREATE)
async def tag_job(request: Request, training_job_id: str) -> Response:
    """Upsert by key; 204 like the platform."""
    world = world_of(request)
    job = _job(world, training_job_id)
    body = parse_json(await request.body())
    tags = body.get("tags") if isinstance(body, dict) else None
    if not isinstance(tags, list) or not all(isinstance(t, dict) and isinstance(t.get("key"), str)
                                             and isinstance(t.get("value"), str) for t in tags):
        raise ModelArtsError(400, mc.INVALID_FIELD, "tags must be a list of {key, value} strings.")
    if any(len(t["value"]) > mc.TAG_VALUE_MAX for t in tags):
        raise ModelArtsError(400, mc.INVALID_FIELD, f"a tag value holds at most {mc.TAG_VALUE_MAX} characters.")
    merged = {t["key"]: t["value"] for t in job.tags}
    merged.update({t["key"]: t["value"] for t in tags})
    job.tags = [{"key": k, "value": v} for k, v in merged.items()]
    world.commit(job)
    return Response(status_code=204)


@router.delete(mc.JOB_TAGS_DELETE)
async def untag_job(request: Request, training_job_id: str) -> Response:
    """Remove the given keys; 204 like the platform."""
    world = world_of(request)
    job = _job(world, training_job_id)
    body = parse_json(await request.body())
    tags = body.get("tags") if isinstance(body, dict) else None
    if not isinstance(tags, list) or not all(isinstance(t, dict) and isinstance(t.get("key"), str) for t in tags):
        raise ModelArtsError(400, mc.INVALID_FIELD, "tags must be a list of {key} objects.")
    keys = {t["key"] for t in tags}
    job.tags = [t for t in job.tags if t["key"] not in keys]
    world.commit(job)
    return Response(status_code=204)


@router.delete(mc.JOB)
async def delete_job(request: Request, training_job_id: str) -> Response:
    """202 at once; the job stays readable, phase unchanged, until ``delete_delay`` has passed."""
    world = world_of(request)
    job = _job(world, training_job_id)
    if job.deleting_since is None:
        job.deleting_since = world.now()
        world.commit(job)
    return Response(status_code=202)


@router.post(mc.JOB_ACTIONS)
async def job_action(request: Request, training_job_id: str) -> Response:
    world = world_of(request)
    job = _job(world, training_job_id)
    body = parse_json(await request.body())
    action = body.get("action_type") if isinstance(body, dict) else None
    if action != mc.TERMINATE:
        raise ModelArtsError(400, mc.UNSUPPORTED_ACTION, f"unsupported action_type {action!r}.")
    if job.phase not in TERMINABLE:
        raise ModelArtsError(409, mc.CANNOT_TERMINATE, f"a training job in phase {job.phase} cannot be stopped.")
    enter(job, d.PHASE_TERMINATING, world.now(), "terminating on user request")
    world.commit(job)
    return JSONResponse(job_view(job, world.now(), full=world.settings.modelarts_full_detail), status_code=202)


_FILTER_KEYS = ("name", "phase", "kind", "algorithm_name", "create_time")
Rule = tuple[str, str, list[Any]]


def _rule(rule: Any) -> Rule:
    """(key, operator, values) of a well-formed filter; every filter is checked before any job."""
    if not isinstance(rule, dict) or not isinstance(rule.get("value"), list):
        raise invalid("each filter needs key, operator and a value array")
    key, operator, values = rule.get("key"), rule.get("operator"), rule["value"]
    if not isinstance(key, str) or key not in _FILTER_KEYS:
        raise invalid(f"filter key {key!r} is not supported")
    if operator not in ("like", "in", "not") and not (operator == "between" and len(values) == 2):
        raise invalid(f"filter operator {operator!r} is not supported for {key}")
    return key, str(operator), values


def _field(job: TrainingJob, key: str) -> Any:
    doc = job.document
    if key == "phase":
        return job.phase
    if key == "kind":
        return doc["kind"]
    if key == "algorithm_name":
        return doc["algorithm"].get("name", "")
    return doc["metadata"][key]  # name, create_time


def _passes(job: TrainingJob, rules: list[Rule]) -> bool:
    for key, operator, values in rules:
        field = _field(job, key)
        if operator == "like":
            ok = any(str(v) in str(field) for v in values)
        elif operator == "in":
            ok = field in values
        elif operator == "not":
            ok = field not in values
        else:
            ok = bool(values[0] <= field <= values[1])
        if not ok:
            return False
    return True


def _by_name(world: World, rules: list[Rule]) -> set[str] | None:
    """The jobs a name filter (``like`` or ``in``) allows, from the index; None without one."""
    index, best = world.job_index, None
    for key, operator, values in rules:
        if key != "name" or operator not in ("like", "in"):
            continue
        if operator == "like":
            found = {i for v in values for i in index.containing(str(v))}
        else:
            found = {i for v in values if isinstance(v, str) for i in index.named(v)}
        if best is None or len(found) < len(best):
            best = found
    return best


@router.post(mc.JOB_SEARCHES)
async def search_jobs(request: Request) -> Json:
    """``offset`` is a page index here, unlike the algorithm list (api.md B.6 #6).

    Without filters a page is read off the creation-order index; a name filter (``like``/``in``)
    takes its candidates from the name index; other filters alone are checked against every job
    (on stored fields, no view is built). Only the matches are sorted, and only the page is rendered."""
    world = world_of(request)
    body = parse_json(await request.body()) or {}
    if not isinstance(body, dict):
        raise invalid("body must be an object")
    offset, limit = body.get("offset", 0), body.get("limit", 10)
    if not isinstance(offset, int) or offset < 0 or not isinstance(limit, int) or not 1 <= limit <= mc.PAGE_LIMIT:
        raise invalid(f"offset must be >= 0 and limit between 1 and {mc.PAGE_LIMIT}")
    order = _order(body.get("order"))
    filters = body.get("filters") or []
    if not isinstance(filters, list):
        raise invalid("filters must be an array")
    rules = [_rule(rule) for rule in filters]
    index, desc, start = world.job_index, order == "desc", offset * limit
    if not rules:
        total, ids = len(index), index.page(start, start + limit, desc=desc)
    else:
        pool = _by_name(world, rules)
        matches = index.ordered([i for i in (index.all() if pool is None else pool)
                                 if _passes(world.jobs[i], rules)], desc=desc)
        total, ids = len(matches), matches[start:start + limit]
    now = world.now()
    full = world.settings.modelarts_full_detail
    page = [job_view(world.jobs[i], now, full=full) for i in ids]
    return {"total": total, "count": len(page), "limit": limit, "offset": offset,
            "sort_by": body.get("sort_by") or "create_time", "order": order,
            "group_by": body.get("group_by") or "", "workspace_id": body.get("workspace_id") or "0",
            "ai_project": "default-ai-project", "items": page}


@router.get(mc.JOB_LOG_URL)
async def job_log_url(request: Request, training_job_id: str, task_id: str) -> Response:
    """While Creating, api.md B.4 documents 204 with ModelArts.2776 (logs not ready). A 204 cannot
    carry a body in HTTP/1.1, so the answer is a bare 204: clients retry later."""
    world = world_of(request)
    job = _job(world, training_job_id)
    task = _job_task(job, task_id)
    if job.phase == d.PHASE_CREATING:
        return Response(status_code=204)
    return JSONResponse({"obs_url": log_url(job, task, world.now())})


@router.get(mc.JOB_LOG_PREVIEW)
async def job_log_preview(request: Request, training_job_id: str, task_id: str) -> Response:
    """The latest part of a task's log; a bare 204 while Creating (not ready, as for the log URL)."""
    world = world_of(request)
    job = _job(world, training_job_id)
    task = _job_task(job, task_id)
    if job.phase == d.PHASE_CREATING:
        return Response(status_code=204)
    return JSONResponse(log_preview(job, task, world.now()))


@router.get(mc.JOB_EVENTS)
async def job_events(request: Request, training_job_id: str) -> Json:
    """ListTrainingJobEvents: ?offset&limit (1-100, default 50)&order (asc|desc, default desc)."""
    job = _job(world_of(request), training_job_id)
    offset = _query_int(request, "offset", 0, 0, 1_000_000)
    limit = _query_int(request, "limit", 50, 1, mc.EVENTS_LIMIT)
    rows = events(job)
    if _order(request.query_params.get("order") or "desc") == "desc":
        rows.reverse()
    return {"events": rows[offset:offset + limit], "total": len(rows)}


@router.get(mc.JOB_METRICS)
async def job_metrics(request: Request, training_job_id: str, task_id: str) -> Json:
    world = world_of(request)
    job = _job(world, training_job_id)
    return metrics(job, _job_task(job, task_id), world.now(), world.settings)


@router.get(mc.JOB_FT_ARTIFACTS)
async def job_ft_artifacts(request: Request, training_job_id: str) -> Json:
    """ListFtArtifacts: ?offset&limit (and filters by steps, epoch, loss, status, which the emulator ignores).
    A job that is no fine-tune job, or has not completed, has none."""
    job = _job(world_of(request), training_job_id)
    offset = _query_int(request, "offset", 0, 0, 1_000_000)
    limit = _query_int(request, "limit", 10, 1, 100)
    rows = ft_artifacts(job)
    return {"total": len(rows), "artifact_info": rows[offset:offset + limit]}
