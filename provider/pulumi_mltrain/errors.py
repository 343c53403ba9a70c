"""Errors for people: each says which resource, which platform, what happened and what to do.

MltrainError
 ├ ConfigError            a credential or endpoint is missing or malformed
 ├ ApiError               the platform answered with an error (HTTP status and/or business code)
 │   ├ NotFound           the object does not exist (Alaya 404, ModelArts 400 + 2775/2755)
 │   └ Retryable          429/5xx/transport trouble that survived every retry
 ├ AmbiguousOutcome       a write may or may not have happened (timeout, dropped connection)
 ├ RemoteFailure          an async operation ended in a failed state (subscription FAILED, job Failed)
 └ WaitTimeout            a wait ran past its deadline
"""

from __future__ import annotations

from http import HTTPStatus


class MltrainError(Exception):
    """Base of every error this package raises on purpose."""


class ConfigError(MltrainError):
    pass


class ApiError(MltrainError):
    """The platform rejected a request; carries both the HTTP status and the business code."""

    def __init__(
        self,
        platform: str,
        method: str,
        path: str,
        http_status: int,
        code: str | int | None,
        message: str,
    ) -> None:
        self.platform = platform
        self.method = method
        self.path = path
        self.http_status = http_status
        self.code = code
        self.message = message
        reason = _phrase(http_status)
        status = f"{http_status} {reason}".strip()
        code_part = f" [{code}]" if code not in (None, "", http_status) else ""
        super().__init__(
            f"{platform} rejected the request ({status}){code_part}: {message} ({method} {path})"
        )


class NotFound(ApiError):
    pass


class Retryable(ApiError):
    retry_after: float | None = None


class AmbiguousOutcome(MltrainError):
    """A write whose result is unknown: never repeat it blindly, look the object up first."""


class RemoteFailure(MltrainError):
    pass


class WaitTimeout(MltrainError):
    pass


def for_resource(kind: str, name: str, err: BaseException) -> MltrainError:
    """Prefix an error with the resource it concerns: users read only the last line."""
    label = f"{kind} '{name}'" if name else kind
    text = str(err)
    return MltrainError(text if text.startswith(label) else f"{label}: {text}")


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
