"""Alaya NeW's error shape: the ``{status, message, data}`` envelope, whose business ``status`` may
differ from the HTTP one.
"""

from __future__ import annotations

from typing import Any

from . import contract as ac

Json = dict[str, Any]


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
