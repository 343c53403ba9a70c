"""Errors for people: each says which resource, which platform, what happened and what to do.

MltrainError
 ├ ConfigError            a credential or endpoint is missing or malformed
 ├ ApiError               the platform answered with an error (HTTP status and/or business code)
 │   ├ NotFound           the object does not exist: only the platform's own code says so (Alaya's
 │   │                    envelope with business status 404, ModelArts 400 + 2775/2755)
 │   ├ EndpointError      the answer is not the platform's (a framework 404, an HTML page, an API
 │   │                    gateway's APIG.xxxx): the endpoint is probably mistyped; never "not found"
 │   └ Retryable          429/5xx/transport trouble that survived every retry
 ├ UnexpectedAnswer       the platform answered, but not in the documented shape (a field missing or of
 │                        the wrong type); names the call and the field
 ├ AmbiguousOutcome       a write may or may not have happened (timeout, dropped connection)
 ├ RemoteFailure          an async operation ended in a failed state (subscription FAILED, job Failed)
 └ WaitTimeout            a wait ran past its deadline
"""

from __future__ import annotations

import traceback
from http import HTTPStatus


class MltrainError(Exception):
    """Base of every error this package raises on purpose: its message is all a person needs."""

    # The exception behind this one when that is not an MltrainError (a bug of ours, see `for_resource`).
    bug: BaseException | None = None


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
        if not http_status:  # nothing came back: the request failed in transit
            super().__init__(f"{method} {path}: {message}")
        else:
            super().__init__(f"{platform} rejected the request ({status}){code_part}: {message} ({method} {path})")


class NotFound(ApiError):
    pass


class Retryable(ApiError):
    retry_after: float | None = None


class EndpointError(ApiError):
    """An answer that did not come from the platform's API: the URL or the endpoint setting is wrong.

    Kept apart from NotFound on purpose: a mistyped endpoint must never make a refresh or a destroy
    believe that the objects are gone.
    """

    def __init__(self, platform: str, method: str, url: str, http_status: int, code: str | None,
                 what: str, config_key: str) -> None:
        status = f"{http_status} {_phrase(http_status)}".strip()
        code_part = f" [{code}]" if code else ""
        text = (f"{method} {url} answered {status}{code_part} with {what}: that is not the {platform} API; "
                f"check `{config_key}` (it must be the API's base URL)")
        super().__init__(platform, method, url, http_status, code, text)
        self.args = (text,)
        self.url = url
        self.config_key = config_key


class UnexpectedAnswer(MltrainError):
    """A platform answer that does not have the documented shape (text: `<platform> returned an
    unexpected answer to <call>: <field> <problem>`)."""

    def __init__(self, platform: str, call: str, problem: str) -> None:
        super().__init__(f"{platform} returned an unexpected answer to {call}: {problem}")
        self.platform = platform
        self.call = call
        self.problem = problem


class AmbiguousOutcome(MltrainError):
    """A write whose result is unknown: never repeat it blindly, look the object up first."""


class RemoteFailure(MltrainError):
    pass


class WaitTimeout(MltrainError):
    """`value`: the object as the wait last saw it (None when it saw nothing)."""

    def __init__(self, message: str, value: object = None) -> None:
        super().__init__(message)
        self.value = value


def for_resource(kind: str, name: str, err: BaseException) -> MltrainError:
    """Prefix an error with the resource it concerns: users read only the last line."""
    label = f"{kind} '{name}'" if name else kind
    text = str(err)
    out = MltrainError(text if text.startswith(label) else f"{label}: {text}")
    out.bug = err.bug if isinstance(err, MltrainError) else err
    return out


def readable(err: BaseException) -> str:
    """What a person reads for `err`: the message alone for an error raised on purpose; the
    traceback for a bug (any other exception, or the one an MltrainError wraps), which is ours to fix."""
    if not isinstance(err, MltrainError):
        return "".join(traceback.format_exception(err))
    text = str(err) or type(err).__name__
    if err.bug is None:
        return text
    return f"{text}\n\n{''.join(traceback.format_exception(err.bug)).rstrip()}"


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


# Said with every refused credential: after a rotation, commands that do not run the program
# (refresh, destroy) still use the settings the state holds from the last `pulumi up`.
ROTATION_HINT = ("; after rotating it, run `pulumi up` once (or `pulumi refresh --run-program` / "
                 "`pulumi destroy --run-program`), since refresh and destroy otherwise use the settings "
                 "stored by the last up")
