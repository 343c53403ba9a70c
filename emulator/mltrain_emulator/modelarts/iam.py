"""Huawei IAM password login (``POST /v3/auth/tokens``): 201 with the token in ``X-Subject-Token``;
the project list (``GET /v3/projects``) for AK/SK-signed callers that know only a project's name.

Tokens are long random strings starting "MII" like the real ones; only their SHA-256 is stored,
and nothing here logs them.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from .. import defaults as d
from ..settings import EmulatorSettings, IamUser
from ..state import token_digest, world_of
from . import contract as mc
from . import signing
from .errors import IamError
from .records import Token

Json = dict[str, Any]
WRONG_CREDENTIALS = "The username or password is wrong."

router = APIRouter()


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _user(body: Any, settings: EmulatorSettings) -> IamUser:
    methods = _get(body, "auth", "identity", "methods")
    if not isinstance(methods, list) or "password" not in methods:
        raise IamError(400, "auth.identity.methods must contain 'password'.")
    user = _get(body, "auth", "identity", "password", "user")
    name, password, domain = _get(user, "name"), _get(user, "password"), _get(user, "domain", "name")
    if not all(isinstance(v, str) and v for v in (name, password, domain)):
        raise IamError(400, "auth.identity.password.user needs name, password and domain.name.")
    for known in settings.iam_users:
        if (known.name, known.password, known.domain) == (name, password, domain):
            return known
    raise IamError(401, WRONG_CREDENTIALS)


def _project(body: Any, settings: EmulatorSettings) -> tuple[str, str]:
    project = _get(body, "auth", "scope", "project")
    name, project_id = _get(project, "name"), _get(project, "id")
    for known_name, known_id in settings.iam_projects.items():
        if name == known_name or project_id == known_id:
            return known_name, known_id
    if not name and not project_id:
        raise IamError(400, "a project-scoped token is required: set auth.scope.project.name or .id.")
    raise IamError(400, f"project {name or project_id} not found.")


@router.post(d.IAM_TOKENS)
async def issue_token(request: Request) -> Response:
    world = world_of(request)
    try:
        body = json.loads(await request.body() or b"null")
    except ValueError as exc:
        raise IamError(400, "The request body is not valid JSON.") from exc
    user = _user(body, world.settings)
    project_name, project_id = _project(body, world.settings)
    token = "MII" + secrets.token_urlsafe(768)
    now = world.now()
    record = Token(digest=token_digest(token), user=user.name, user_id=user.user_id, domain=user.domain,
                   domain_id=user.domain_id, project_id=project_id, project_name=project_name,
                   issued_at=now, expires_at=now + world.settings.token_ttl)
    world.tokens[record.digest] = record
    world.commit(record)
    domain = {"id": user.domain_id, "name": user.domain}
    content = {"token": {
        "expires_at": iso(record.expires_at), "issued_at": iso(now), "methods": ["password"],
        "project": {"id": project_id, "name": project_name, "domain": domain},
        "user": {"id": user.user_id, "name": user.name, "domain": domain, "password_expires_at": ""},
        "roles": [{"id": "0", "name": "te_admin"}],
        "catalog": [],
    }}
    return JSONResponse(content, status_code=201, headers={mc.TOKEN_HEADER: token})


@router.get(d.IAM_PROJECTS)
async def list_projects(request: Request) -> Json:
    """The projects an AK/SK-signed caller (or a token holder) may see, optionally ``?name=`` only."""
    world = world_of(request)
    if signing.is_signed(request):
        await signing.verify(request, world.now())
    else:
        record = world.find_token(request.headers.get("x-auth-token", ""))
        if record is None or record.revoked or world.now() >= record.expires_at:
            raise IamError(401, "The request you have made requires authentication.")
    name = request.query_params.get("name")
    base = str(request.base_url).rstrip("/")
    projects = [{"id": pid, "name": pname, "domain_id": d.DEFAULT_DOMAIN_ID, "enabled": True, "is_domain": False,
                 "parent_id": d.DEFAULT_DOMAIN_ID, "description": "",
                 "links": {"self": f"{base}{d.IAM_PROJECTS}/{pid}"}}
                for pname, pid in world.settings.iam_projects.items() if not name or pname == name]
    return {"projects": projects, "links": {"self": f"{base}{d.IAM_PROJECTS}", "next": None, "previous": None}}
