"""Everything a test or a demo may tune at run time: keys, users, delays, failure patterns.

One pydantic model, so ``POST /_admin/settings`` can merge a partial JSON object and reject typos
(``extra="forbid"``) instead of silently ignoring them.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import defaults as d
from .modelarts import contract as mc


class IamUser(BaseModel):
    """An IAM user the token endpoint accepts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    password: str
    domain: str
    user_id: str = d.DEFAULT_USER_ID
    domain_id: str = d.DEFAULT_DOMAIN_ID


def _default_users() -> list[IamUser]:
    return [IamUser(name=d.DEFAULT_IAM_USER, password=d.DEFAULT_IAM_PASSWORD, domain=d.DEFAULT_IAM_DOMAIN)]


def _default_projects() -> dict[str, str]:
    return {d.DEFAULT_PROJECT_NAME: d.DEFAULT_PROJECT_ID, d.OTHER_PROJECT_NAME: d.OTHER_PROJECT_ID}


class EmulatorSettings(BaseModel):
    """Run-time knobs. Delays are seconds of the emulator clock (which tests can advance)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # Alaya NeW
    alaya_api_keys: list[str] = Field(default_factory=lambda: [d.DEFAULT_ALAYA_API_KEY])
    alaya_forbidden_products: list[str] = Field(default_factory=lambda: [d.PRODUCT_FORBIDDEN])
    subscription_delay: float = Field(default=1.0, ge=0)
    task_state_delay: float = Field(default=1.0, ge=0)
    fail_task_names: str | None = None  # regex (re.search): RUNNING → FAILED after task_state_delay
    succeed_after: float | None = Field(default=None, ge=0)  # RUNNING → SUCCEEDED after this long, if set
    delete_delay: float = Field(default=0.5, ge=0)  # deleted tasks/jobs stay visible this long
    # The task detail and list are not public: true answers a task's `env` as sent (the adopted
    # contract), false the other answer a client must survive.
    alaya_detail_env: bool = True

    # Huawei IAM
    iam_users: list[IamUser] = Field(default_factory=_default_users)
    iam_projects: dict[str, str] = Field(default_factory=_default_projects)  # name → project id
    token_ttl: float = Field(default=86400.0, gt=0)

    # ModelArts
    modelarts_phase_delay: float = Field(default=1.0, ge=0)
    modelarts_run_seconds: float = Field(default=3.0, ge=0)
    # How long a job stays Pending (queued for resources, secondary phase Queuing); None: modelarts_phase_delay.
    modelarts_pending_seconds: float | None = Field(default=None, ge=0)
    modelarts_fail_names: str | None = None  # regex: Running → Failed
    modelarts_abnormal_names: str | None = None  # regex: Running → Abnormal
    # false (as the real platform): job details and searches leave out what Huawei's Terraform provider
    # documents as not returned (modelarts.lifecycle.NOT_RETURNED); true answers the reference's full shape.
    modelarts_full_detail: bool = False
    # {name regex: {metric: value}}: the latest sample of those metrics, in every task of a job whose name
    # matches (re.search; the first matching pattern wins), once the job has started; e.g.
    # {"^low-": {"gpuUtil": 12.0}}. Values are doubles >= 0 (-1 stays "no data").
    modelarts_final_metrics: dict[str, dict[mc.MetricName, float]] = Field(default_factory=dict)
    # {name regex: {custom metric: value}}: the AOM series of those custom metrics of a job whose name matches
    # (re.search; the first matching pattern wins) and that declares spec.custom_metrics, once it has started,
    # with `value` as its latest sample; e.g. {"^ft-": {"loss": 0.42}}. Other custom metrics have no series.
    modelarts_custom_metrics: dict[str, dict[str, float]] = Field(default_factory=dict)

    # fault injection
    seed: int = 0

    @field_validator("fail_task_names", "modelarts_fail_names", "modelarts_abnormal_names")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:  # not a ValueError, so pydantic would not report it as one
                raise ValueError(f"not a regular expression: {exc}") from exc
        return value

    @field_validator("modelarts_final_metrics")
    @classmethod
    def _final_metrics(cls, value: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for pattern, fixed in value.items():
            cls._compiles(pattern)
            bad = [f"{k}={v}" for k, v in fixed.items() if not math.isfinite(v) or v < 0]
            if bad:
                raise ValueError(f"metric values are finite doubles >= 0: {', '.join(bad)}")
        return value

    @field_validator("modelarts_custom_metrics")
    @classmethod
    def _custom_metrics(cls, value: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for pattern, fixed in value.items():
            cls._compiles(pattern)
            bad = [f"{k}={v}" for k, v in fixed.items() if not re.match(mc.CUSTOM_METRIC_NAME, k)
                   or not math.isfinite(v)]
            if bad:
                raise ValueError(f"custom metrics are Prometheus names with finite values: {', '.join(bad)}")
        return value

    def merged(self, patch: dict[str, Any]) -> EmulatorSettings:
        """A validated copy with ``patch``'s top-level keys replacing whole values (lists and maps too)."""
        return EmulatorSettings.model_validate({**self.model_dump(), **patch})


def name_matches(pattern: str | None, name: str) -> bool:
    """Whether a configured regex selects ``name``; ``None`` selects nothing."""
    return pattern is not None and re.search(pattern, name) is not None
