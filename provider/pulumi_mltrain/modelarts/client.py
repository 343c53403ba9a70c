"""Huawei ModelArts v2 client: one method per endpoint, IAM token auth, errors for people.

ModelArts answers errors as `{error_code, error_msg, error_solution}`; "not found" is HTTP 400 with
ModelArts.2775 (job) or ModelArts.2755 (algorithm), which become NotFound here so that refresh and
delete treat them as "gone". 429 (ModelArts.2799, APIG.0308) and 5xx are retried by the transport.
"""

from __future__ import annotations

import threading
from typing import Any

import httpx

from .. import transport
from ..config import Settings
from ..errors import ApiError, NotFound, Retryable
from . import contract
from .iam import IamTokenAuth


def decode(response: httpx.Response, method: str, path: str) -> Any:
    """The JSON body of a success (None when empty or `null`), or the matching ApiError."""
    if response.is_success:
        if response.status_code == 204 or not response.content.strip():
            return None
        try:
            return response.json()
        except ValueError:
            raise Retryable(contract.PLATFORM, method, path, response.status_code, None,
                            f"unreadable response body: {response.text[:200]!r}") from None
    status = response.status_code
    code: str | None = None
    message = response.reason_phrase or "error"
    try:
        body = response.json()
    except ValueError:
        body = None
        if response.text.strip():
            message = f"{message}: {response.text[:200]!r}"
    if isinstance(body, dict):
        raw_code = body.get("error_code") or body.get("code")
        code = str(raw_code) if raw_code else None
        message = str(body.get("error_msg") or body.get("message") or message).strip()
    cls: type[ApiError] = ApiError
    if code in contract.NOT_FOUND_CODES:
        cls = NotFound
    elif status in transport.RETRY_STATUSES or code in contract.RETRYABLE_CODES:
        cls = Retryable
    raise cls(contract.PLATFORM, method, path, status, code, message.rstrip("."))


class ModelArtsClient:
    """Thread-safe: one per settings in a provider process, shared by its threads."""

    def __init__(self, settings: Settings, http: httpx.Client | None = None) -> None:
        self.policy = transport.Policy(
            timeout=settings.request_timeout,
            max_retries=settings.max_retries,
            verify_tls=not settings.insecure_skip_tls_verify,
        )
        endpoint = settings.require("modelarts_endpoint", "Huawei ModelArts")
        self.auth = IamTokenAuth(settings, self.policy)
        self.http = http or transport.new_client(endpoint, self.policy, self.auth)
        self._project_id: str | None = None
        self._lock = threading.Lock()

    @property
    def project_id(self) -> str:
        with self._lock:
            if self._project_id is None:
                self._project_id = self.auth.project_id()
            return self._project_id

    def _path(self, template: str, **parts: str) -> str:
        return template.format(project_id=self.project_id, **parts)

    def _call(self, method: str, path: str, *, idempotent: bool = True, **kwargs: Any) -> Any:
        return transport.call(self.http, method, path, decode, self.policy, idempotent=idempotent, **kwargs)

    # ----- catalogues ----------------------------------------------------------------------------
    def flavors(self, flavor_type: str | None = None) -> list[dict[str, Any]]:
        params = {"flavor_type": flavor_type} if flavor_type else None
        data = self._call("GET", self._path(contract.FLAVORS), params=params) or {}
        return list(data.get("flavors") or [])

    def engines(self) -> list[dict[str, Any]]:
        data = self._call("GET", self._path(contract.ENGINES)) or {}
        return list(data.get("items") or [])

    # ----- algorithms ----------------------------------------------------------------------------
    def create_algorithm(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST; never retried blindly (a lost answer raises AmbiguousOutcome)."""
        return dict(self._call("POST", self._path(contract.ALGORITHMS), json=body, idempotent=False))

    def algorithm(self, algorithm_id: str) -> dict[str, Any]:
        return dict(self._call("GET", self._path(contract.ALGORITHM, id=algorithm_id)))

    def update_algorithm(self, algorithm_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Full-body PUT (lists sent empty are cleared); answers 201 with the algorithm."""
        return dict(self._call("PUT", self._path(contract.ALGORITHM, id=algorithm_id), json=body) or {})

    def delete_algorithm(self, algorithm_id: str) -> None:
        self._call("DELETE", self._path(contract.ALGORITHM, id=algorithm_id))

    def find_algorithms(self, name: str) -> list[dict[str, Any]]:
        """Algorithms named exactly `name` (the list's `searches=name:` matches substrings)."""
        rows: list[dict[str, Any]] = []
        offset = 0
        while True:
            params = {"offset": offset, "limit": contract.PAGE_LIMIT, "searches": f"name:{name}"}
            data = self._call("GET", self._path(contract.ALGORITHMS), params=params) or {}
            items = list(data.get("items") or [])
            rows += [a for a in items if (a.get("metadata") or {}).get("name") == name]
            offset += len(items)
            if len(items) < contract.PAGE_LIMIT or offset >= int(data.get("total") or 0):
                return rows

    # ----- training jobs -------------------------------------------------------------------------
    def create_job(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST; never retried blindly (a lost answer raises AmbiguousOutcome)."""
        return dict(self._call("POST", self._path(contract.JOBS), json=body, idempotent=False))

    def job(self, job_id: str) -> dict[str, Any]:
        return dict(self._call("GET", self._path(contract.JOB, id=job_id)))

    def update_job_description(self, job_id: str, description: str) -> None:
        self._call("PUT", self._path(contract.JOB, id=job_id), json={"description": description})

    def delete_job(self, job_id: str) -> None:
        self._call("DELETE", self._path(contract.JOB, id=job_id))

    def terminate_job(self, job_id: str) -> dict[str, Any] | None:
        data = self._call("POST", self._path(contract.JOB_ACTIONS, id=job_id),
                          json={"action_type": contract.TERMINATE})
        return dict(data) if isinstance(data, dict) else None

    def find_jobs(self, name: str) -> list[dict[str, Any]]:
        """Jobs named exactly `name`, newest first (`offset` is a page index here)."""
        rows: list[dict[str, Any]] = []
        page = 0
        while True:
            body = {"offset": page, "limit": contract.PAGE_LIMIT, "sort_by": "create_time", "order": "desc",
                    "filters": [{"key": "name", "operator": "like", "value": [name]}]}
            data = self._call("POST", self._path(contract.JOB_SEARCHES), json=body) or {}
            items = list(data.get("items") or [])
            rows += [j for j in items if (j.get("metadata") or {}).get("name") == name]
            page += 1
            if len(items) < contract.PAGE_LIMIT or page * contract.PAGE_LIMIT >= int(data.get("total") or 0):
                return rows

    def log_url(self, job_id: str, task: str) -> str | None:
        """A temporary preview link to a task's log; None while the logs are not ready."""
        try:
            data = self._call("GET", self._path(contract.JOB_LOG_URL, id=job_id, task=task),
                              headers={"Content-Type": "text/plain"})
        except ApiError as err:
            if err.code in contract.NOT_READY_CODES:
                return None
            raise
        url = (data or {}).get("obs_url") if isinstance(data, dict) else None
        return str(url) if url else None

    def metrics(self, job_id: str, task: str) -> list[dict[str, Any]] | None:
        """Per-minute samples per metric ({metric, value[]}); None while not ready."""
        try:
            data = self._call("GET", self._path(contract.JOB_METRICS, id=job_id, task=task))
        except ApiError as err:
            if err.code in contract.NOT_READY_CODES:
                return None
            raise
        if not isinstance(data, dict):
            return None
        return list(data.get("metrics") or [])
