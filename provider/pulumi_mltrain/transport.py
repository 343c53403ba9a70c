"""One HTTP layer for both platforms: httpx client, timeouts, retries with backoff, error mapping.

Reads are retried on 429 (honouring Retry-After), 5xx and transport errors. Writes that create
something are never retried blindly: a transport error, 500, 502 or 504 after sending raises
AmbiguousOutcome, and the caller looks the object up before trying again; 429 and 503 mean the
request was turned away, so those are retried like reads.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from .errors import AmbiguousOutcome, Retryable

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
USER_AGENT = "pulumi-mltrain/0.1"


@dataclass(frozen=True)
class Policy:
    """Retry and timeout policy; small in tests, generous in production."""

    timeout: float = 30.0
    max_retries: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 20.0
    verify_tls: bool = True


# A platform-specific reader: (response, method, path) -> parsed data, or raises ApiError.
Decoder = Callable[[httpx.Response, str, str], Any]


def new_client(base_url: str, policy: Policy, auth: httpx.Auth | None = None) -> httpx.Client:
    return httpx.Client(
        base_url=base_url.rstrip("/"),
        auth=auth,
        timeout=httpx.Timeout(policy.timeout, connect=min(policy.timeout, 10.0)),
        # Plain-HTTP endpoints (the emulator) need no TLS context, which costs ~50 ms to build.
        verify=policy.verify_tls and base_url.startswith("https"),
        headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        limits=httpx.Limits(max_connections=16, max_keepalive_connections=8),
    )


def _retry_after(err: BaseException) -> float | None:
    return err.retry_after if isinstance(err, Retryable) else None


def _parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


class _Wait:
    """Exponential backoff with jitter, but never shorter than the server's Retry-After."""

    def __init__(self, policy: Policy) -> None:
        self._backoff = wait_exponential_jitter(multiplier=policy.backoff_initial, max=policy.backoff_max)
        self._cap = max(policy.backoff_max, 60.0)

    def __call__(self, state: RetryCallState) -> float:
        base = float(self._backoff(state))
        err = state.outcome.exception() if state.outcome else None
        hint = _retry_after(err) if err else None
        return min(max(base, hint or 0.0), self._cap)


def call(
    client: httpx.Client,
    method: str,
    path: str,
    decode: Decoder,
    policy: Policy,
    *,
    idempotent: bool = True,
    **kwargs: Any,
) -> Any:
    """Send one request (retrying when safe) and return the decoded data or raise ApiError."""

    def attempt() -> Any:
        try:
            response = client.request(method, path, **kwargs)
        except httpx.TransportError as err:
            sent = not isinstance(err, httpx.ConnectError | httpx.ConnectTimeout)
            if sent and not idempotent:
                raise AmbiguousOutcome(
                    f"{method} {path}: the connection failed after the request was sent ({type(err).__name__}); "
                    "the platform may or may not have applied it"
                ) from None
            raise Retryable("network", method, path, 0, type(err).__name__, str(err) or repr(err)) from None
        try:
            return decode(response, method, path)
        except Retryable as err:
            refused = bool({429, 503} & {err.http_status, err.code})
            if not idempotent and not refused:
                # A 500/502/504 on a write: the platform may have committed it before failing. A 429
                # or 503 says the request was turned away, so sending it again is safe.
                raise AmbiguousOutcome(f"{err}; the request may or may not have been applied") from None
            err.retry_after = _parse_retry_after(response.headers.get("Retry-After"))
            raise

    retrying = Retrying(
        stop=stop_after_attempt(policy.max_retries + 1),
        wait=_Wait(policy),
        retry=retry_if_exception_type(Retryable),
        reraise=True,
    )
    return retrying(attempt)
