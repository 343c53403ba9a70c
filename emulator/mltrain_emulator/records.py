"""What the state file holds: the stored objects of both platforms (``alaya.records``,
``modelarts.records``) and the clock's offset, as one snapshot.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from .alaya.records import AlayaTask, Subscription
from .modelarts.records import Algorithm, Token, TrainingJob


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
