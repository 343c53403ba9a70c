"""Error shapes of the three platforms, as exceptions handlers raise and bodies faults reuse.

Alaya: ``{status, message, data}`` envelope whose business ``status`` may differ from the HTTP one
(``alaya.errors``). ModelArts: ``{error_code, error_msg, error_solution}``. IAM: ``{"error": {code,
title, message}}`` (both ``modelarts.errors``). Here: the app's handlers for the three exceptions, and
the body a gateway-level failure has on each platform.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from .alaya.errors import AlayaError, alaya_envelope
from .modelarts.errors import IamError, ModelArtsError, iam_body, modelarts_failure
from .routes import Platform

Json = dict[str, Any]


def platform_error(platform: Platform, http_status: int) -> Json:
    """What a gateway-level failure looks like on each platform (used by the "status" fault)."""
    phrase = HTTPStatus(http_status).phrase
    if platform == "alaya":
        return alaya_envelope(http_status, phrase, {})
    if platform == "iam":
        return iam_body(http_status, phrase)
    return modelarts_failure(http_status)


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
