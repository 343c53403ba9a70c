"""Stored objects. Each keeps the time it entered its current state, not a timer: the lifecycle
modules move it forward lazily to "now", so the world needs no background thread and a restart
from the state file resumes exactly where it was.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from . import defaults as d

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


class Algorithm(BaseModel):
    """A ModelArts algorithm; ``document`` is the response body as rendered at the last write."""

    id: str
    document: Json


class TrainingJob(BaseModel):
    """A ModelArts training job; ``document`` is the response body minus ``status``."""

    id: str
    document: Json
    created_at: float
    phase: str = d.PHASE_CREATING
    phase_since: float
    start_at: float | None = None
    end_at: float | None = None
    reason: str = ""
    deleting_since: float | None = None
    tags: list[dict[str, str]] = []  # the job tags API, apart from the job document


class Token(BaseModel):
    """An issued IAM token, keyed by its SHA-256 so the plain token is never stored."""

    digest: str
    user: str
    user_id: str
    domain: str
    domain_id: str
    project_id: str
    project_name: str
    issued_at: float
    expires_at: float
    revoked: bool = False  # set by the ``token_expiry`` fault


class Snapshot(BaseModel):
    """What the state file holds."""

    version: int = 1
    clock_offset: float = 0.0
    journal_seq: int = 0  # the last journal line this snapshot includes (persistence.py)
    subscriptions: list[Subscription] = Field(default_factory=list)
    tasks: list[AlayaTask] = Field(default_factory=list)
    algorithms: list[Algorithm] = Field(default_factory=list)
    jobs: list[TrainingJob] = Field(default_factory=list)
    tokens: list[Token] = Field(default_factory=list)
