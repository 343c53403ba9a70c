"""Which platform a path belongs to, and the route template a request counts under.

The template is resolved from our own routers (not from FastAPI's scope internals), so a request
cut short by a fault is counted under the same key as one the handler served.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from fastapi.routing import APIRoute

from . import defaults as d

Platform = Literal["alaya", "iam", "modelarts", "admin", "other"]


def canonical_path(path: str) -> str:
    """The path without Alaya's gateway prefix: ``/api/osm/v1/x`` and ``/v1/x`` are one endpoint."""
    if path.startswith(d.ALAYA_GATEWAY_PREFIX + "/v1/"):
        return path[len(d.ALAYA_GATEWAY_PREFIX):]
    return path


# AOM's paths (/v1/{project_id}/aom/...) share /v1 with Alaya NeW's: they are the Huawei side's (the custom
# metrics of ModelArts jobs, under an IAM token).
_AOM = re.compile(r"^/v1/[^/]+/aom/")


def platform_of(path: str) -> Platform:
    path = canonical_path(path)
    if _AOM.match(path):
        return "modelarts"
    if path.startswith("/v1/"):
        return "alaya"
    if path.startswith("/v3/"):
        return "iam"
    if path.startswith("/v2/"):
        return "modelarts"
    if path.startswith(d.ADMIN_PREFIX):
        return "admin"
    return "other"


class RouteTable:
    """Maps (method, path) to ``"METHOD /route/{template}"`` with the gateway prefix folded away."""

    def __init__(self, routes: Iterable[APIRoute]) -> None:
        self._routes = list(routes)

    def key(self, method: str, path: str) -> str:
        for route in self._routes:
            if route.path_regex.match(path) and method in (route.methods or ()):
                return f"{method} {canonical_path(route.path)}"
        return f"{method} {canonical_path(path)}"
