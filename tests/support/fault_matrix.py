"""The fault matrix: the injected faults, the handlers they run against and the checks of no duplicate,
no orphan and no secret, shared by the in-process matrix (tests/inprocess/faults/test_fault_matrix.py)
and its engine run (tests/engine/faults/test_fault_matrix_engine.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mltrain_emulator import defaults as d

from . import inprocess
from .inprocess import AnyHandler
from .inprocess import platform_ids as platform_ids
from .platforms import PLATFORMS, with_env
from .pulumi_cli import Stack

CREATE = "/v1/subscription/training/create"
RESULT = "/v1/subscription/training/result"
DETAIL = "/v1/training/instance/*/detail"
JOBS = "/v2/*/training-jobs"


@dataclass(frozen=True)
class Case:
    name: str
    platform: str
    faults: list[dict[str, Any]]
    error: str | None = None  # None: `up` must succeed; else text the failure must contain
    job: dict[str, Any] = field(default_factory=dict)
    config: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    timeouts: dict[str, float] = field(default_factory=dict)  # customTimeouts, as seconds


CASES = [
    Case("429 with Retry-After on create", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "status", "status": 429, "retry_after": 1, "times": 2}]),
    Case("500 on the subscription result", "alaya",
         [{"method": "GET", "path": RESULT, "kind": "status", "status": 500, "times": 2}]),
    Case("502 on the task detail", "alaya",
         [{"method": "GET", "path": DETAIL, "kind": "status", "status": 502, "times": 2}]),
    Case("503 on create (not committed)", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "status", "status": 503, "times": 1}]),
    Case("HTTP 200 with business status 500 on create", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "business_500", "times": 1}]),
    Case("latency beyond the client timeout", "alaya",
         [{"method": "GET", "path": RESULT, "kind": "latency", "seconds": 2.5, "times": 1}],
         config={"mltrain:requestTimeout": "1"}),
    Case("connection dropped after the create was committed", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "drop_after_commit", "times": 1}]),
    Case("answer slower than the timeout after the create was committed", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "slow_after_commit", "seconds": 2.5, "times": 1}],
         config={"mltrain:requestTimeout": "1"}),
    Case("malformed JSON", "alaya", [{"method": "GET", "path": RESULT, "kind": "malformed", "times": 2}]),
    Case("a subscription that never resolves", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "never_resolve"}],
         error="still PROCESSING after", timeouts={"create": 4}),
    # Transient errors during a wait are retried until the create deadline, then named in the error.
    Case("persistent 503 on the subscription result", "alaya",
         [{"method": "GET", "path": RESULT, "kind": "status", "status": 503}],
         error="503 Service Unavailable", timeouts={"create": 8}),
    Case("403 for a product the key may not use", "alaya", [], error="403 Forbidden",
         settings={"alaya_forbidden_products": [d.PRODUCT_TRAIN_2]}),
    Case("ModelArts token expiry mid-run", "modelarts",
         [{"method": "*", "path": f"{JOBS}*", "kind": "token_expiry", "times": 1, "after": 1}]),
    Case("ModelArts 429 with Retry-After on create", "modelarts",
         [{"method": "POST", "path": JOBS, "kind": "status", "status": 429, "retry_after": 1, "times": 2}]),
    Case("ModelArts connection dropped after the create was committed", "modelarts",
         [{"method": "POST", "path": JOBS, "kind": "drop_after_commit", "times": 1}]),
    Case("ModelArts 500 on create (not committed)", "modelarts",
         [{"method": "POST", "path": JOBS, "kind": "status", "status": 500, "times": 1}]),
]


def stack_ids(stack: Stack, platform: str) -> list[str]:
    """The IDs of `platform`'s training jobs (dynamic resources) that the stack records, sorted."""
    return sorted(str(r["id"]) for r in stack.resources(PLATFORMS[platform].training_job.dynamic_type))


# Secret values every case sets (besides the platform credentials): none may appear in any output.
SECRET_ENV = {"WANDB_API_KEY": "wandb-fault-matrix-secret-4711"}


def secret_values(emulator: Any) -> list[str]:
    return [*SECRET_ENV.values(), *(v for p in PLATFORMS.values() for v in p.credentials(emulator).values())]


MODELARTS_JOB = PLATFORMS["modelarts"].job


OWNER = {"__mltrain_stack": "st-faults", "__mltrain_urn": "urn:pulumi:test::faults::TrainingJob::job"}


def _prepare(case: Case, emulator: Any) -> None:
    if case.settings:
        emulator.admin.set_settings(**case.settings)
    if case.platform == "modelarts":
        emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)


def make_handler(case: Case, emulator: Any) -> AnyHandler:
    """The training job handler of the case's platform as the engine's provider process holds it (a fresh
    one), configured like `make_stack`'s stack: the test stacks' settings and the case's config."""
    _prepare(case, emulator)
    return inprocess.handler(PLATFORMS[case.platform].training_job.kind, emulator, **case.config)


def job_props(case: Case) -> dict[str, Any]:
    args = with_env(case.platform, PLATFORMS[case.platform].job_args(**case.job), SECRET_ENV)
    return {**OWNER, "name": "job", **args, **({"timeouts": case.timeouts} if case.timeouts else {})}


ENGINE_CASES = {c.name: c for c in CASES if c.name in ("connection dropped after the create was committed",
                                                        "403 for a product the key may not use",
                                                        "ModelArts connection dropped after the create was committed")}
