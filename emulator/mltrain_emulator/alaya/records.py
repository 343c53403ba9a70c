"""Alaya NeW's stored objects: a create request waiting for its task (``Subscription``) and the task.

Each keeps the time it entered its current state, not a timer: ``lifecycle`` moves it forward lazily to
"now", so the world needs no background thread and a restart from the state file resumes exactly where
it was.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .. import defaults as d

Json = dict[str, Any]


class Subscription(BaseModel):
    """An Alaya create request waiting to be scheduled (the ``resultKey``)."""

    result_key: str
    request: Json  # normalised create body
    created_at: float
    status: str = d.SUB_PROCESSING
    task_id: str | None = None
    message: str = "the request is being processed"
    never_resolve: bool = False  # set by the ``never_resolve`` fault


class AlayaTask(BaseModel):
    """An Alaya training task; it exists from the moment its subscription succeeds."""

    id: str
    result_key: str
    spec: Json
    created_at: float
    status: str = d.TASK_QUEUED
    status_since: float
    start_at: float | None = None
    end_at: float | None = None
    reason: str = ""
    retry_count: int = 0
    deleting_since: float | None = None
    pull_password: str | None = None  # only for imageType "private"
