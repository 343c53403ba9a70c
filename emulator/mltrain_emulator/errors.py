"""Error shapes of the three platforms, as exceptions handlers raise and bodies faults reuse.

Alaya: ``{status, message, data}`` envelope whose business ``status`` may differ from the HTTP one.
ModelArts: ``{error_code, error_msg, error_solution}``. IAM: ``{"error": {code, title, message}}``.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from .alaya import contract as ac
from .modelarts import contract as mc
from .routes import Platform

Json = dict[str, Any]

CHECK_REQUEST = "Check the request parameters and try again."
CHECK_PROJECT = "Check whether the training project information in the request is valid."


def alaya_envelope(status: int, message: str, data: Any) -> Json:
    return {"status": status, "message": message, "data": data}


def alaya_ok(data: Any) -> Json:
    return alaya_envelope(ac.OK, "OK", data)


class AlayaError(Exception):
    """A non-success Alaya answer. Business errors travel with HTTP 200, auth errors with 401."""

    def __init__(self, status: int, message: str, *, http_status: int = 200) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.http_status = http_status


class ModelArtsError(Exception):
    """A ModelArts error: note that "not found" is HTTP 400 with a specific code, as documented."""

    def __init__(self, http_status: int, code: str, message: str, solution: str = CHECK_REQUEST) -> None:
        super().__init__(f"{code}: {message}")
        self.http_status = http_status
        self.code = code
        self.message = message
        self.solution = solution

    def body(self) -> Json:
        return {"error_code": self.code, "error_msg": self.message, "error_solution": self.solution}


class IamError(Exception):
    def __init__(self, http_status: int, message: str) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.message = message


def iam_body(http_status: int, message: str) -> Json:
    return {"error": {"code": http_status, "title": HTTPStatus(http_status).phrase, "message": message}}


# What a gateway-level failure looks like on each platform (used by the "status" fault).
_MODELARTS_CODES = {429: (mc.TOO_MANY_REQUESTS, "services too many requests")}


def platform_error(platform: Platform, http_status: int) -> Json:
    phrase = HTTPStatus(http_status).phrase
    if platform == "alaya":
        return alaya_envelope(http_status, phrase, {})
    if platform == "iam":
        return iam_body(http_status, phrase)
    code, message = _MODELARTS_CODES.get(http_status, (mc.INTERNAL_ERROR, phrase.lower()))
    return ModelArtsError(http_status, code, message, "Try again later.").body()


def install_error_handlers(app: FastAPI) -> None:
    async def on_alaya(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, AlayaError)
        return JSONResponse(alaya_envelope(exc.status, exc.message, {}), status_code=exc.http_status)

    async def on_modelarts(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, ModelArtsError)
        return JSONResponse(exc.body(), status_code=exc.http_status)

    async def on_iam(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, IamError)
        return JSONResponse(iam_body(exc.http_status, exc.message), status_code=exc.http_status)

    app.add_exception_handler(AlayaError, on_alaya)
    app.add_exception_handler(ModelArtsError, on_modelarts)
    app.add_exception_handler(IamError, on_iam)
