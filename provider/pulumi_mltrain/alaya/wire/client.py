"""Alaya NeW client: one method per endpoint, both HTTP and business status read.

Only the platform's own envelope `{status, message, data}` with business status 404 means "not
found". Any other answer to a request (a framework's or gateway's 404, an HTML page, a JSON body that
is not the envelope) means the request did not reach the API: EndpointError, naming the URL and
`mltrain:alayaEndpoint`, so that a mistyped endpoint never makes refresh or destroy forget a task.
Answers are checked against the response models in `answers.py` before they leave the client.
"""

from __future__ import annotations

import functools
from typing import Any

import httpx

from ... import transport
from ...answers import MAX_TEXT, NOT_JSON, body_summary, cut, full_url, json_body, json_type, parse, plain, read, rows
from ...config import Settings
from ...errors import (
    ROTATION_HINT,
    AmbiguousOutcome,
    ApiError,
    EndpointError,
    NotFound,
    Retryable,
    UnexpectedAnswer,
)
from . import answers, contract

PLATFORM = "Alaya NeW"
ENDPOINT_KEY = "mltrain:alayaEndpoint"
MAX_KEY = 256  # a resultKey is a UUID; anything longer is not one


class BearerAuth(httpx.Auth):
    def __init__(self, api_key: str) -> None:
        self._header = f"Bearer {api_key}"

    def auth_flow(self, request: httpx.Request) -> Any:
        request.headers["Authorization"] = self._header
        yield request


def _is_envelope(body: Any) -> bool:
    return isinstance(body, dict) and "status" in body and "message" in body and not (
        answers.FOREIGN_KEYS & body.keys())


def _business(body: dict[str, Any], method: str, path: str) -> int:
    code = body["status"]
    if isinstance(code, str) and code.strip().isdigit():
        return int(code)
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    raise UnexpectedAnswer(PLATFORM, f"{method} {path}", f"status should be an integer, not {json_type(code)}")


def _not_the_api(response: httpx.Response, method: str, path: str, body: Any) -> ApiError:
    """The error for an answer without the envelope: retried when transient, else EndpointError."""
    status = response.status_code
    url = full_url(response, path)
    what = body_summary(response, body)
    code = str(body["error_code"]) if isinstance(body, dict) and body.get("error_code") else None
    json_type_header = "json" in response.headers.get("content-type", "")
    if status in transport.RETRY_STATUSES:
        return Retryable(PLATFORM, method, path, status, code, f"{what} from {url}")
    if body is NOT_JSON and response.is_success and json_type_header:
        return Retryable(PLATFORM, method, path, status, None,
                         f"unreadable response body: {response.text[:200]!r}")
    if status == 401:
        return ApiError(PLATFORM, method, path, status, code,
                        f"{what} from {url}; check the API key in `mltrain:alayaApiKey` (or MLTRAIN_ALAYA_API_KEY) "
                        f"and the endpoint in `{ENDPOINT_KEY}`{ROTATION_HINT}")
    return EndpointError(PLATFORM, method, url, status, code, what, ENDPOINT_KEY)


def decode(response: httpx.Response, method: str, path: str) -> Any:
    """Return `data` of the envelope, or raise; the business `status` may differ from HTTP."""
    body = json_body(response)
    if not _is_envelope(body):
        raise _not_the_api(response, method, path, body)
    business = _business(body, method, path)
    message = cut(str(body.get("message") or response.reason_phrase), MAX_TEXT)
    if response.is_success and business == contract.OK:
        return body.get("data")
    status = response.status_code if not response.is_success else business
    if status == 401:
        message += "; check the API key in `mltrain:alayaApiKey` (or MLTRAIN_ALAYA_API_KEY)" + ROTATION_HINT
    cls: type[ApiError] = ApiError
    if business == contract.NOT_FOUND:
        cls = NotFound  # the platform's own not-found: only its envelope says so
    elif status in transport.RETRY_STATUSES or business in transport.RETRY_STATUSES:
        cls = Retryable
    raise cls(PLATFORM, method, path, status, business if business != status else None, message)


class AlayaClient:
    """Methods return plain dicts and lists, checked against `answers` and with strings bounded."""

    def __init__(self, settings: Settings, http: httpx.Client | None = None) -> None:
        self.policy = transport.Policy.of(settings)
        key = settings.require("alaya_api_key", "Alaya NeW")
        self.http = http or transport.new_client(settings.alaya_endpoint, self.policy, BearerAuth(key))

    def _call(self, method: str, path: str, *, idempotent: bool = True, **kwargs: Any) -> Any:
        return transport.call(self.http, method, path, decode, self.policy, idempotent=idempotent, **kwargs)

    def create_task(self, body: dict[str, Any]) -> str:
        """POST the create call; returns the resultKey. Never retried blindly (see transport).

        An answer that cannot be read after the request was sent may hide a committed create: it
        raises AmbiguousOutcome, so the caller looks the task up by name before sending it again.
        """
        call = f"POST {contract.CREATE}"
        try:
            data = self._call("POST", contract.CREATE, json=body, idempotent=False)
            if not isinstance(data, str) or not data.strip() or len(data) > MAX_KEY:
                what = json_type(data) if not isinstance(data, str) else f"a string of {len(data)} characters"
                raise UnexpectedAnswer(PLATFORM, call, f"data should be the resultKey string, not {what}")
        except (UnexpectedAnswer, EndpointError) as err:
            if isinstance(err, EndpointError) and not 200 <= err.http_status < 300:
                raise
            raise AmbiguousOutcome(f"{err}; the task may or may not have been created") from None
        return data

    def result(self, result_key: str) -> dict[str, Any]:
        data = self._call("GET", contract.RESULT, params={"resultKey": result_key})
        return read(answers.SubscriptionResult, data, platform=PLATFORM, call=f"GET {contract.RESULT}",
                    prefix="data")

    def task(self, task_id: str) -> dict[str, Any]:
        path = contract.DETAIL.format(id=task_id)
        return read(answers.TaskDetail, self._call("GET", path), platform=PLATFORM, call=f"GET {path}",
                    prefix="data")

    def stop_task(self, task_id: str) -> None:
        self._call("POST", contract.STOP.format(id=task_id))

    def delete_task(self, task_id: str) -> None:
        self._call("DELETE", contract.DELETE.format(id=task_id))

    def find_tasks(self, name: str) -> list[dict[str, Any]]:
        """Tasks named exactly `name`. Raises on any answer that is not a task page: an empty
        list must mean "none", never "could not tell"."""
        data = self._call("GET", contract.LIST, params={"pageNo": 1, "pageSize": 100, "name": name})
        page = parse(answers.TaskPage, data, platform=PLATFORM, call=f"GET {contract.LIST}", prefix="data")
        return [plain(r) for r in page.records if r.name == name]

    def list_tasks(self, name_prefix: str = "", status: str | None = None) -> list[dict[str, Any]]:
        """Tasks whose name starts with `name_prefix` (and in `status`, any case), as LIST rows. LIST
        matches names exactly, so this pages through every task and filters here."""
        out: list[dict[str, Any]] = []
        page_no, seen = 1, 0
        while True:
            data = self._call("GET", contract.LIST, params={"pageNo": page_no, "pageSize": 100})
            page = parse(answers.TaskPage, data, platform=PLATFORM, call=f"GET {contract.LIST}", prefix="data")
            seen += len(page.records)
            for row in map(plain, page.records):
                if str(row.get("name") or "").startswith(name_prefix) \
                        and (not status or str(row.get("status") or "").upper() == status.upper()):
                    out.append(row)
            if not page.records or seen >= (page.total_rows or 0):
                return out
            page_no += 1

    def products(self) -> list[dict[str, Any]]:
        return rows(answers.ProductRow, self._call("GET", contract.PRODUCTS), platform=PLATFORM,
                    call=f"GET {contract.PRODUCTS}", prefix="data")

    def storages(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        page_no = 1
        while True:
            data = self._call("GET", contract.STORAGES, params={"pageNo": page_no, "pageSize": 100})
            page = parse(answers.StoragePage, data, platform=PLATFORM, call=f"GET {contract.STORAGES}",
                         prefix="data")
            out.extend(plain(r) for r in page.records)
            if not page.records or len(out) >= page.total_rows:
                return out
            page_no += 1


_SECRET_KEYS = tuple(k.lower() for k in contract.SECRET_DETAIL_KEYS)


@functools.lru_cache(maxsize=1024)
def _secret_key(key: str) -> bool:
    """Whether a detail key names a credential; answers repeat the same few dozen keys."""
    lower = key.lower()
    return any(s in lower for s in _SECRET_KEYS)


def scrub(detail: dict[str, Any]) -> dict[str, Any]:
    """Drop fields that carry credentials (an image-pull password) before they reach outputs."""
    out: dict[str, Any] = {}
    for key, value in detail.items():
        if _secret_key(key):
            continue
        out[key] = scrub(value) if isinstance(value, dict) else value
    return out
