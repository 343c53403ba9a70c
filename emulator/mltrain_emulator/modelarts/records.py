"""ModelArts' stored objects, algorithms and training jobs, and the IAM tokens issued for its calls.

A job keeps the time it entered its current phase, not a timer: ``lifecycle`` moves it forward lazily
to "now", so the world needs no background thread and a restart from the state file resumes exactly
where it was.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .. import defaults as d

Json = dict[str, Any]


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
