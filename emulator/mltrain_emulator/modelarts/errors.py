"""The error shapes of ModelArts, ``{error_code, error_msg, error_solution}``, and of IAM,
``{"error": {code, title, message}}``.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from . import contract as mc

Json = dict[str, Any]

CHECK_REQUEST = "Check the request parameters and try again."
CHECK_PROJECT = "Check whether the training project information in the request is valid."


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


# What a gateway-level failure looks like on ModelArts (used by the "status" fault).
_MODELARTS_CODES = {429: (mc.TOO_MANY_REQUESTS, "services too many requests")}


def modelarts_failure(http_status: int) -> Json:
    phrase = HTTPStatus(http_status).phrase
    code, message = _MODELARTS_CODES.get(http_status, (mc.INTERNAL_ERROR, phrase.lower()))
    return ModelArtsError(http_status, code, message, "Try again later.").body()
