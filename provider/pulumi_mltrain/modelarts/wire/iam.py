"""Huawei IAM password tokens as an `httpx.Auth`: fetched once, cached, refreshed once on a 401.

A token is obtained once per (IAM endpoint, user, domain, project) in a process and shared by
every client and thread there; it is renewed shortly before its `expires_at` (a tenth of its
lifetime early, at most five minutes), and once more when ModelArts answers 401 to it (revoked,
or expired early). The token is sent only in `X-Auth-Token`: it is never printed, logged, put in an
error or written to the state.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from ... import transport
from ...answers import (
    MAX_STRING,
    MAX_TEXT,
    NOT_JSON,
    body_summary,
    cut,
    full_url,
    json_body,
    looks_like_a_page,
    parse,
    plain,
)
from ...config import Settings
from ...errors import ROTATION_HINT, ApiError, ConfigError, EndpointError, Retryable, UnexpectedAnswer
from . import answers, contract, signer

_REFRESH_EARLY_MAX = 300.0  # seconds before expiry at most
_UNKNOWN_LIFETIME = 3600.0  # when IAM's answer gives no usable times
CREDENTIAL_KEYS = "mltrain:huaweiUser, mltrain:huaweiDomain and mltrain:huaweiPassword"
ENDPOINT_KEY = "mltrain:huaweiIamEndpoint"


@dataclass(eq=False)
class _Entry:
    """One cached token; `repr=False` everywhere so that nothing prints it by accident."""

    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    value: str | None = field(default=None, repr=False)
    refresh_at: float = 0.0
    project_id: str | None = None


_CACHE: dict[tuple[str, ...], _Entry] = {}
_CACHE_LOCK = threading.Lock()


def _entry(key: tuple[str, ...]) -> _Entry:
    with _CACHE_LOCK:
        return _CACHE.setdefault(key, _Entry())


def forget_tokens() -> None:
    """Drop every cached token of this process (tests; a changed password)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _moment(value: Any, parse: Callable[[str], datetime]) -> float | None:
    """`value` read by `parse` as epoch seconds; None when it is not a string `parse` reads."""
    try:
        return parse(value).timestamp() if isinstance(value, str) and value else None
    except (TypeError, ValueError):
        return None


def lifetime(body: Any, date_header: str | None = None) -> float:
    """Seconds a token is valid, from its own issued_at/expires_at (immune to clock skew); without
    issued_at, from the answer's Date header, else this machine's clock."""
    token = body.get("token", {}) if isinstance(body, dict) else {}
    expires = _moment(token.get("expires_at"), datetime.fromisoformat)
    if expires is None:
        return _UNKNOWN_LIFETIME
    issued = (_moment(token.get("issued_at"), datetime.fromisoformat) or _moment(date_header, parsedate_to_datetime)
              or time.time())
    return max(0.0, expires - issued)


def refresh_after(seconds: float) -> float:
    """When to renew a token valid for `seconds`: a tenth early, at most five minutes early."""
    return max(0.0, seconds - min(_REFRESH_EARLY_MAX, seconds * 0.1))


def _iam_error(body: Any) -> tuple[str | None, str | None]:
    """(code, message) of one of IAM's own error bodies, or (None, None) for any other body."""
    if not isinstance(body, dict):
        return None, None
    err = body.get("error")
    if isinstance(err, dict) and ("code" in err or "message" in err):
        code, text = err.get("code"), err.get("message") or err.get("title")
        return (str(code) if isinstance(code, str | int) else None), (str(text) if text is not None else "")
    code = body.get("error_code")
    if isinstance(code, str) and code.startswith("IAM."):
        text = body.get("error_msg")
        return code, str(text) if text is not None else ""
    return None, None


def decode_token(response: httpx.Response, method: str, path: str) -> dict[str, Any]:
    """IAM's answer: 201 with the token in X-Subject-Token (an HTML page did not come from IAM:
    EndpointError naming `mltrain:huaweiIamEndpoint`), or `_failure`."""
    call, body = f"{method} {path}", json_body(response)
    if response.is_success:
        if body is NOT_JSON and looks_like_a_page(response):
            raise EndpointError(contract.IAM_PLATFORM, method, full_url(response, path), response.status_code, None,
                                body_summary(response, body), ENDPOINT_KEY)
        answer = plain(parse(answers.TokenAnswer, body, platform=contract.IAM_PLATFORM, call=call))
        token = response.headers.get(contract.TOKEN_HEADER)
        if not token or len(token) > MAX_STRING:
            raise UnexpectedAnswer(contract.IAM_PLATFORM, call, f"the {contract.TOKEN_HEADER} header is required")
        project = answer["token"].get("project") or {}
        return {"token": token, "lifetime": lifetime(answer, response.headers.get("Date")),
                "project_id": project.get("id")}
    raise _failure(response, method, path, body, CREDENTIAL_KEYS)


def _failure(response: httpx.Response, method: str, path: str, body: Any, credentials: str) -> ApiError:
    """The error of an IAM call that failed: a gateway's refusal of the credentials, or IAM's own 401, names
    the `credentials` to check; retried when transient; any other body that is not IAM's own error did not
    come from IAM (EndpointError naming its endpoint key)."""
    status = response.status_code
    code, message = _iam_error(body)
    gateway = body.get("error_code") if isinstance(body, dict) else None
    if status in (401, 403) and isinstance(gateway, str) and gateway.startswith(("APIG.", "APIGW.")):
        # The API gateway refused the credentials (APIG.0301 / APIGW.0301 ...).
        message = cut(str(body.get("error_msg") or ""), MAX_TEXT).rstrip(".")
        return ApiError(contract.IAM_PLATFORM, method, path, status, gateway,
                        f"{message}: check {credentials}{ROTATION_HINT}")
    if status in transport.RETRY_STATUSES:
        return Retryable(contract.IAM_PLATFORM, method, path, status, code, message or response.reason_phrase)
    if message is None:
        foreign = str(body["error_code"]) if isinstance(body, dict) and body.get("error_code") else None
        return EndpointError(contract.IAM_PLATFORM, method, full_url(response, path), status, foreign,
                             body_summary(response, body), ENDPOINT_KEY)
    message = cut(message or response.reason_phrase, MAX_TEXT)
    if status == 401:
        message = f"{message} (check {credentials}{ROTATION_HINT})"
    elif status in (400, 404) and "project" in message.lower():
        message = f"{message} (check mltrain:huaweiProjectName / mltrain:huaweiProjectId)"
    return ApiError(contract.IAM_PLATFORM, method, path, status, code if code != str(status) else None, message)


class IamTokenAuth(httpx.Auth):
    """Adds `X-Auth-Token` to every request; safe to share between threads."""

    def __init__(self, settings: Settings, policy: transport.Policy) -> None:
        purpose = "Huawei ModelArts (IAM token)"
        self._endpoint, self._user, self._domain, self._password = (
            settings.require(key, purpose) for key in ("iam_endpoint", "user", "domain", "password"))
        self._project_name, self._project_id = settings.project_name, settings.project_id
        if not self._project_name and not self._project_id:
            settings.require("project_name", purpose)  # raises a ConfigError that says what to set
        self._policy = policy
        self._http = transport.new_client(self._endpoint, policy)
        secret = hashlib.sha256(self._password.encode()).hexdigest()[:16]
        self._key = (self._endpoint.rstrip("/"), self._user, self._domain,
                     self._project_name or "", self._project_id or "", secret)

    def _body(self) -> dict[str, Any]:
        project = {"name": self._project_name} if self._project_name else {"id": self._project_id}
        return {"auth": {
            "identity": {"methods": ["password"], "password": {"user": {
                "name": self._user, "password": self._password, "domain": {"name": self._domain}}}},
            "scope": {"project": project},
        }}

    def token(self) -> str:
        """A valid token: the cached one, or a new one from IAM (one fetch at a time per key)."""
        entry = _entry(self._key)
        with entry.lock:
            if entry.value is not None and time.monotonic() < entry.refresh_at:
                return entry.value
            try:
                got = transport.call(self._http, "POST", contract.TOKENS, decode_token, self._policy,
                                     json=self._body())
            except Retryable as err:
                # Already retried here: do not let the ModelArts call around us retry it all again.
                raise ApiError(err.platform, err.method, err.path, err.http_status, err.code,
                               f"{err.message} (IAM kept failing; try again later)") from None
            entry.value = str(got["token"])
            entry.refresh_at = time.monotonic() + refresh_after(float(got["lifetime"]))
            entry.project_id = got.get("project_id") or entry.project_id
            return entry.value

    def resolve_project_id(self) -> str:
        """The configured project ID, or the one IAM scoped the token to."""
        if self._project_id:
            return self._project_id
        self.token()
        found = _entry(self._key).project_id
        if not found:
            raise ConfigError("IAM did not say which project the token is for: set mltrain:huaweiProjectId")
        return found

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        used = self.token()
        request.headers[contract.AUTH_HEADER] = used
        response = yield request
        if response.status_code == 401:
            entry = _entry(self._key)
            with entry.lock:
                if entry.value == used:  # unless another thread has already replaced it
                    entry.value = None
            request.headers[contract.AUTH_HEADER] = self.token()
            yield request


# ----- AK/SK ---------------------------------------------------------------------------------------
AKSK_KEYS = "mltrain:huaweiAccessKey / mltrain:huaweiSecretKey (and mltrain:huaweiSecurityToken for a temporary key)"


def decode_projects(response: httpx.Response, method: str, path: str) -> list[dict[str, Any]]:
    """IAM's project list: `{"projects": [{"id", "name", ...}]}`, or an error for people."""
    body = json_body(response)
    if response.is_success:
        projects = body.get("projects") if isinstance(body, dict) else None
        if not isinstance(projects, list) or not all(isinstance(p, dict) and isinstance(p.get("id"), str)
                                                     for p in projects):
            raise UnexpectedAnswer(contract.IAM_PLATFORM, f"{method} {path}",
                                   "projects should be an array of {id, name}")
        return [dict(p) for p in projects]
    raise _failure(response, method, path, body, AKSK_KEYS)


class AkSkAuth(signer.Signer):
    """Signs ModelArts calls with AK/SK and names their project in `X-Project-Id`; no token is fetched.

    The project ID is `mltrain:huaweiProjectId`, or else looked up once by name in IAM's project
    list (that call signed with the same keys).
    """

    def __init__(self, settings: Settings, policy: transport.Policy) -> None:
        purpose = "Huawei ModelArts (AK/SK)"
        super().__init__(settings.require("access_key", purpose), settings.require("secret_key", purpose),
                         settings.security_token.get_secret_value() if settings.security_token else None,
                         settings.project_id)
        self._project_name = settings.project_name
        if not self.project_id:
            settings.require("project_name", purpose)  # raises a ConfigError that says what to set
            self._iam_endpoint = settings.require("iam_endpoint", f"{purpose}, to look up the project ID")
        self._policy = policy
        self._lock = threading.Lock()

    def resolve_project_id(self) -> str:
        """The project ID: configured, or IAM's `GET /v3/projects?name=` (signed) once."""
        with self._lock:
            if self.project_id:
                return self.project_id
            keys = signer.Signer(self.access_key, self.secret_key, self.security_token, clock=self.clock)
            with transport.new_client(self._iam_endpoint, self._policy, keys) as http:
                found = transport.call(http, "GET", contract.PROJECTS, decode_projects, self._policy,
                                       params={"name": self._project_name})
            ids = [p["id"] for p in found if p.get("name") == self._project_name]
            if not ids:
                raise ConfigError(f"IAM has no project named {self._project_name!r} for this access key: check "
                                  f"mltrain:huaweiProjectName (or set mltrain:huaweiProjectId)")
            self.project_id = ids[0]
            return self.project_id

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        self.resolve_project_id()
        yield from super().auth_flow(request)
