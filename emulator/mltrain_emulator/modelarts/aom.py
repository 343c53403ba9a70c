"""AOM's PromQL range query, where ModelArts puts what a job's ``spec.custom_metrics`` collects.

Evidence: ModelArts' own metrics API (``/v2/{project_id}/training-jobs/{id}/metrics/{task}``,
ShowTrainingJobMetrics) documents six resource metrics only; Huawei's guide "Viewing Monitoring Metrics of a
Training Job" (develop-modelarts-1424, 2026) says custom metrics (loss, step time, ...) collected over HTTP or by a
command are tracked in AOM; AOM's API reference (ListRangeQueryAomPromGet / ListRangeQueryAomPromPost) serves
``/v1/{project_id}/aom/api/v1/query_range`` with ``query``, ``start``, ``end`` and ``step`` (seconds, as query
parameters) and an IAM token, answering Prometheus' ``{status, data: {resultType, result}}``. The real AOM is
``aom.{region}.myhuaweicloud.com``; the emulator serves it on its one port.

What is assumed where the documents are silent: the labels a job's custom series carry (``contract.AOM_JOB_LABEL``
with the job's ID, and ``task_name``); errors in Prometheus' own shape (``{status: "error", errorType, error}``,
HTTP 400); and PromQL limited to a bare selector with ``=`` matchers (``loss{service_id="..."}``), which is what
a gate reads. Auth is the ModelArts routes' own (an IAM token for the URL's project, or an AK/SK signature).
"""

from __future__ import annotations

import math
import re
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from ..state import world_of
from . import contract as mc
from .api import require_token
from .lifecycle import custom_series

Json = dict[str, Any]

router = APIRouter(dependencies=[Depends(require_token)])

_SELECTOR = re.compile(r"^\s*(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)?\s*(?:\{(?P<matchers>[^{}]*)\})?\s*$")
_MATCHER = re.compile(r'^\s*(?P<label>[a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*$')


class BadQuery(Exception):
    """A query the emulator refuses, answered 400 in Prometheus' error shape."""


def _bad(message: str) -> Response:
    return JSONResponse({"status": "error", "errorType": "bad_data", "error": message}, status_code=400)


def parse_selector(query: str) -> tuple[str, dict[str, str]]:
    """(metric name, {label: value}) of ``name{label="value", ...}`` or ``{__name__="name", ...}``."""
    found = _SELECTOR.match(query or "")
    if found is None:
        raise BadQuery(f"unsupported query {query!r}: the emulator evaluates a bare selector such as "
                       'loss{service_id="<job id>"}')
    labels: dict[str, str] = {}
    for part in filter(str.strip, (found.group("matchers") or "").split(",")):
        matcher = _MATCHER.match(part)
        if matcher is None:
            raise BadQuery(f"unsupported matcher {part.strip()!r}: the emulator takes label=\"value\" only")
        labels[matcher.group("label")] = matcher.group("value").replace('\\"', '"')
    name = found.group("name") or labels.pop("__name__", "")
    if not name:
        raise BadQuery("a query needs a metric name")
    return name, labels


def _seconds(request: Request, key: str) -> float:
    raw = request.query_params.get(key)
    try:
        value = float(raw) if raw is not None else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise BadQuery(f"{key} is required: a Unix timestamp in seconds" if key != "step" else
                       "step is required: seconds > 0")
    return value


async def _range(request: Request) -> Response:
    try:
        name, labels = parse_selector(request.query_params.get("query") or "")
        start, end, step = (_seconds(request, k) for k in ("start", "end", "step"))
        if step <= 0 or end < start:
            raise BadQuery("end must not be before start, and step must be > 0")
    except BadQuery as err:
        return _bad(str(err))
    world = world_of(request)
    now = world.now()
    result = []
    for job in world.jobs.values():
        for series in custom_series(job, name, now, world.settings):
            if any(series["metric"].get(k) != v for k, v in labels.items()):
                continue
            values = [v for v in series["values"] if start <= v[0] <= end]
            if values:
                result.append({"metric": series["metric"], "values": values})
    return JSONResponse({"status": "success", "data": {"resultType": "matrix", "result": result}})


@router.get(mc.AOM_QUERY_RANGE)
async def query_range(request: Request) -> Response:
    return await _range(request)


@router.post(mc.AOM_QUERY_RANGE)
async def query_range_post(request: Request) -> Response:
    """The POST form AOM recommends: the same query parameters."""
    return await _range(request)
