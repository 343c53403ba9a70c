"""Fault rules: what to break, where, and how often — and the seeded choice of which call breaks.

Kept apart from the middleware (``faults.py``) so the CLI and the admin API can parse and validate
rules without the ASGI machinery. The RNG is seeded, so a probabilistic run is reproducible.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .routes import Platform

FaultKind = Literal[
    "status",
    "business_500",
    "latency",
    "drop_after_commit",
    "slow_after_commit",
    "malformed",
    "token_expiry",
    "never_resolve",
    "slow_drip",
    "respond",
]

# Set in the ASGI scope by the ``never_resolve`` fault; read by the Alaya subscription handlers.
NEVER_RESOLVE_SCOPE_KEY = "mltrain.never_resolve"

# Kinds that only make sense on one platform; elsewhere the rule simply does not match.
_ONLY_ON: dict[str, Platform] = {
    "business_500": "alaya", "never_resolve": "alaya", "token_expiry": "modelarts",
}
# Compact-syntax kinds whose ``=value`` is a parameter: status=503, latency=2, slow_after_commit=5,
# slow_drip=1 (bytes per second), respond=404.
_VALUE_PARAM = {"status": "status", "latency": "seconds", "slow_after_commit": "seconds",
                "slow_drip": "rate", "respond": "status"}


class FaultRule(BaseModel):
    """One rule. ``path`` is a glob matched on the path without Alaya's ``/api/osm`` prefix."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: str = "*"
    path: str
    kind: FaultKind
    times: int | None = Field(default=None, ge=1)  # apply to the next N matching calls; None = unlimited
    probability: float = Field(default=1.0, ge=0, le=1)
    after: int = Field(default=0, ge=0)  # let the first K matching calls through
    status: int | None = Field(default=None, ge=100, le=599)  # kinds "status" (400-599) and "respond" (200)
    retry_after: float | None = Field(default=None, ge=0)  # Retry-After header (always sent on 429, default 1)
    # With ``retry_after``: each answer's Retry-After is drawn (seeded) from whole seconds in
    # [retry_after, retry_after_max], e.g. 1-3 s.
    retry_after_max: float | None = Field(default=None, ge=0)
    seconds: float = Field(default=0.0, ge=0)  # "latency", "slow_after_commit"; "slow_drip": stop after (0 = never)
    rate: float = Field(default=2.0, gt=0)  # kind "slow_drip": bytes per second
    body: Any = None  # kind "respond": any JSON value but null, sent as application/json
    text: str | None = None  # kind "respond": raw text, sent with ``content_type``
    content_type: str = "text/html"
    commit: bool = False  # kind "respond": run the handler first (the write happens), then replace its answer
    for_seconds: float | None = Field(default=None, gt=0)  # match only this long (emulator clock) after being set

    @model_validator(mode="after")
    def _check(self) -> FaultRule:
        if self.kind == "status" and (self.status is None or self.status < 400):
            raise ValueError("kind 'status' needs a 'status' (400-599)")
        if self.body is not None and self.text is not None:
            raise ValueError("kind 'respond' takes either 'body' (JSON) or 'text', not both")
        if self.retry_after_max is not None and self.retry_after_max < (self.retry_after or 0):
            raise ValueError("'retry_after_max' must not be below 'retry_after'")
        return self

    def matches(self, method: str, path: str, platform: Platform) -> bool:
        only = _ONLY_ON.get(self.kind)
        return (
            (only is None or only == platform)
            and self.method in ("*", method.upper())
            and fnmatchcase(path, self.path)
        )


def parse_fault_spec(spec: str) -> FaultRule:
    """Parse the CLI form ``"[METHOD ]PATH:KIND[=VALUE][:key=value...]"``.

    Examples: ``"POST /v1/subscription/training/create:status=503:times=2"``,
    ``"* /v2/*/training-jobs:drop_after_commit:times=1"``, ``"GET /v1/*:latency=0.5:probability=0.2"``,
    ``"GET /v1/*:status=503:for_seconds=40"``, ``"GET /v2/*:respond=404:text=<html>gone</html>"``.
    A ``body=`` value is parsed as JSON when it is JSON (else kept as a string); values with colons need
    the JSON (admin API) form.
    """
    target, _, rest = spec.partition(":")
    method, _, path = target.strip().rpartition(" ")
    if not rest or not path:
        raise ValueError(f"fault {spec!r}: expected '[METHOD ]PATH:KIND[=VALUE][:key=value...]'")
    kind_part, *params = rest.split(":")
    kind, _, value = kind_part.partition("=")
    fields: dict[str, Any] = {"method": (method or "*").upper(), "path": path, "kind": kind.strip()}
    if value:
        if kind not in _VALUE_PARAM:
            raise ValueError(f"fault {spec!r}: kind {kind!r} takes no value")
        fields[_VALUE_PARAM[kind]] = value
    for param in params:
        key, eq, val = param.partition("=")
        if not eq:
            raise ValueError(f"fault {spec!r}: expected key=value, got {param!r}")
        key, val = key.strip(), val.strip()
        if key == "body":
            fields[key] = _json_or_text(val)
        else:
            fields[key] = None if val.lower() in ("", "none", "null") else val
    return FaultRule.model_validate(fields)


def _json_or_text(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


@dataclass
class _Armed:
    rule: FaultRule
    armed_at: float
    seen: int = 0
    applied: int = 0

    def in_window(self, now: float) -> bool:
        window = self.rule.for_seconds
        return window is None or now - self.armed_at <= window


class FaultBook:
    """The active rules with their counters. The first rule that fires wins. ``now``: the emulator's
    clock, on which a ``for_seconds`` window runs, as the objects' states do: an outage ends when the
    clock a test advances passes it, as a task runs."""

    def __init__(self, seed: int = 0, now: Callable[[], float] = time.time) -> None:
        self._rng = random.Random(seed)
        self._now = now
        self._armed: list[_Armed] = []

    def replace(self, rules: list[FaultRule]) -> None:
        now = self._now()
        self._armed = [_Armed(rule, now) for rule in rules]

    def reseed(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def select(self, method: str, path: str, platform: Platform) -> FaultRule | None:
        for armed in self._armed:
            rule = armed.rule
            if not rule.matches(method, path, platform) or not armed.in_window(self._now()):
                continue
            armed.seen += 1
            if armed.seen <= rule.after:
                continue
            if rule.times is not None and armed.applied >= rule.times:
                continue
            if rule.probability < 1 and self._rng.random() >= rule.probability:
                continue
            armed.applied += 1
            return rule
        return None

    def retry_after(self, rule: FaultRule) -> int | None:
        """The whole seconds of Retry-After for one answer of ``rule`` (None: no header)."""
        if rule.status != 429 and rule.retry_after is None:
            return None
        low = math.ceil(1 if rule.retry_after is None else rule.retry_after)
        if rule.retry_after_max is None:
            return low
        return self._rng.randint(low, max(low, math.floor(rule.retry_after_max)))

    def describe(self) -> list[dict[str, Any]]:
        now = self._now()
        return [
            {**armed.rule.model_dump(), "seen": armed.seen, "applied": armed.applied,
             "active": armed.in_window(now)} for armed in self._armed
        ]
