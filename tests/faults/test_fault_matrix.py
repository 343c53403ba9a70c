"""Whatever the network or the platform does, after `pulumi up` the state and the platform agree.

Each case injects one fault kind into the emulator, runs the real engine, and then checks: the IDs
in the stack equal the objects on the platform (no duplicates, no orphans), and a failure names its
cause. Every case ends with a fault-free `pulumi destroy` that must leave the platform empty.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pulumi_mltrain.emulator import defaults as d
from support import stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

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
         error="still PROCESSING after", config={"customTimeouts": json.dumps({"create": "4s"})}),
    # Transient errors during a wait are retried until the create deadline, then named in the error.
    Case("persistent 503 on the subscription result", "alaya",
         [{"method": "GET", "path": RESULT, "kind": "status", "status": 503}],
         error="503 Service Unavailable", config={"customTimeouts": json.dumps({"create": "8s"})}),
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


def platform_ids(emulator: Any, platform: str) -> list[str]:
    state = emulator.admin.state()
    if platform == "alaya":
        return sorted(str(t["id"]) for t in state["alaya"]["tasks"])
    return sorted(str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"])


def stack_ids(stack: Stack, platform: str) -> list[str]:
    return sorted(str(r["id"]) for r in stack.resources(f"dynamic/{platform}:TrainingJob"))


# Secret values every case sets (besides the platform credentials): none may appear in any output.
SECRET_ENV = {"WANDB_API_KEY": "wandb-fault-matrix-secret-4711"}


def secret_values(emulator: Any) -> list[str]:
    return [*SECRET_ENV.values(), emulator.alaya_api_key, emulator.iam_password]


def make_stack(case: Case, emulator: Any, home: Path) -> Stack:
    if case.settings:
        emulator.admin.set_settings(**case.settings)
    if case.platform == "alaya":
        return stacks.alaya_stack(emulator, home, job=stacks.alaya_job_args(**case.job),
                                  secrets={"secretEnv": SECRET_ENV}, **case.config)
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
    job = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
           "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], **case.job}
    return stacks.modelarts_stack(emulator, home, jobs={"job": job}, secrets={"sensitiveEnv": SECRET_ENV},
                                  **case.config)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fault(case: Case, emulator: Any, tmp_path: Path) -> None:
    stack = make_stack(case, emulator, tmp_path)
    emulator.admin.set_faults(case.faults)

    result = stack.up(check=False)
    output = result.stdout + result.stderr
    if case.error is None:
        assert result.returncode == 0, output[-4000:]
        assert len(stack_ids(stack, case.platform)) == 1
    else:
        assert result.returncode != 0
        assert case.error in output, output[-4000:]
        assert "TrainingJob 'job" in output, "the error names the resource"
    leaked = [v for v in secret_values(emulator) if v in output]
    assert not leaked, f"secret values in the output: {leaked}"
    if case.faults:
        assert emulator.admin.requests()["faults"]["total"] >= 1, "the fault was injected"
    assert platform_ids(emulator, case.platform) == stack_ids(stack, case.platform), \
        "no duplicate and no orphan: the stack and the platform hold the same jobs"

    emulator.admin.clear_faults()
    stack.destroy()
    assert platform_ids(emulator, case.platform) == []


def test_destroy_survives_faults(emulator: Any, tmp_path: Path) -> None:
    stack = stacks.alaya_stack(emulator, tmp_path, job=stacks.alaya_job_args())
    stack.up()
    emulator.admin.set_faults([
        {"method": "POST", "path": "/v1/training/instance/*/stop", "kind": "status", "status": 503, "times": 1},
        {"method": "DELETE", "path": "/v1/training/instance/*/delete", "kind": "status", "status": 500, "times": 2},
        {"method": "GET", "path": DETAIL, "kind": "malformed", "times": 1},
    ])
    stack.destroy()
    assert platform_ids(emulator, "alaya") == []
    assert stack.resources("dynamic/alaya:TrainingJob") == []
