"""Alaya NeW client: one method per endpoint, both HTTP and business status read."""

from __future__ import annotations

from typing import Any

import httpx

from .. import transport
from ..config import Settings
from ..errors import ApiError, NotFound, Retryable
from . import contract

PLATFORM = "Alaya NeW"


class BearerAuth(httpx.Auth):
    def __init__(self, api_key: str) -> None:
        self._header = f"Bearer {api_key}"

    def auth_flow(self, request: httpx.Request) -> Any:
        request.headers["Authorization"] = self._header
        yield request


def decode(response: httpx.Response, method: str, path: str) -> Any:
    """Return `data` of the envelope, or raise; the business `status` may differ from HTTP."""
    try:
        body = response.json()
    except ValueError:
        err_type = Retryable if response.status_code >= 500 or response.is_success else ApiError
        raise err_type(PLATFORM, method, path, response.status_code, None,
                       f"unreadable response body: {response.text[:200]!r}") from None
    if not isinstance(body, dict):
        raise Retryable(PLATFORM, method, path, response.status_code, None, f"unexpected body {str(body)[:200]}")
    code = body.get("status")
    message = str(body.get("message") or response.reason_phrase)
    business = int(code) if isinstance(code, int | float | str) and str(code).isdigit() else None
    if response.is_success and business in (None, contract.OK):
        return body.get("data")
    status = response.status_code if not response.is_success else (business or response.status_code)
    if status == 401:
        message += "; check the API key in `mltrain:alayaApiKey` (or MLTRAIN_ALAYA_API_KEY)"
    cls: type[ApiError] = ApiError
    if status == contract.NOT_FOUND or business == contract.NOT_FOUND:
        cls = NotFound
    elif status in transport.RETRY_STATUSES or business in transport.RETRY_STATUSES:
        cls = Retryable
    raise cls(PLATFORM, method, path, status, business if business != status else None, message)


class AlayaClient:
    def __init__(self, settings: Settings, http: httpx.Client | None = None) -> None:
        self.policy = transport.Policy(
            timeout=settings.request_timeout,
            max_retries=settings.max_retries,
            verify_tls=not settings.insecure_skip_tls_verify,
        )
        key = settings.require("alaya_api_key", "Alaya NeW")
        self.http = http or transport.new_client(settings.alaya_endpoint, self.policy, BearerAuth(key))

    def _call(self, method: str, path: str, *, idempotent: bool = True, **kwargs: Any) -> Any:
        return transport.call(self.http, method, path, decode, self.policy, idempotent=idempotent, **kwargs)

    def create_task(self, body: dict[str, Any]) -> str:
        """POST the create call; returns the resultKey. Never retried blindly (see transport)."""
        return str(self._call("POST", contract.CREATE, json=body, idempotent=False))

    def result(self, result_key: str) -> dict[str, Any]:
        return dict(self._call("GET", contract.RESULT, params={"resultKey": result_key}))

    def task(self, task_id: str) -> dict[str, Any]:
        return dict(self._call("GET", contract.DETAIL.format(id=task_id)))

    def stop_task(self, task_id: str) -> None:
        self._call("POST", contract.STOP.format(id=task_id))

    def delete_task(self, task_id: str) -> None:
        self._call("DELETE", contract.DELETE.format(id=task_id))

    def find_tasks(self, name: str) -> list[dict[str, Any]]:
        data = self._call("GET", contract.LIST, params={"pageNo": 1, "pageSize": 100, "name": name})
        return [r for r in (data or {}).get("records", []) if r.get("name") == name]

    def products(self) -> list[dict[str, Any]]:
        return list(self._call("GET", contract.PRODUCTS) or [])

    def storages(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        page = 1
        while True:
            data = self._call("GET", contract.STORAGES, params={"pageNo": page, "pageSize": 100}) or {}
            records = data.get("records", [])
            rows.extend(records)
            if not records or len(rows) >= int(data.get("totalRows", 0)):
                return rows
            page += 1


def scrub(detail: dict[str, Any]) -> dict[str, Any]:
    """Drop fields that carry credentials (an image-pull password) before they reach outputs."""
    out: dict[str, Any] = {}
    for key, value in detail.items():
        if any(s.lower() in key.lower() for s in contract.SECRET_DETAIL_KEYS):
            continue
        out[key] = scrub(value) if isinstance(value, dict) else value
    return out
