"""Answers of the wrong shape, through the real engine: readable errors, no orphans, bounded state.

Each case makes the emulator answer one call with a malformed body (the `respond` fault; with
`commit` the write happens first), runs `pulumi up`, and checks: a failure names the resource and the
field, no Python exception escapes (the SDK prints a traceback for every provider error: it must be
our own error raised where the provider reports it, never an AttributeError, KeyError or TypeError),
and the jobs on the platform are the jobs in the stack. Every case ends with a fault-free destroy that
leaves the platform empty. The last tests check that a 1 MB platform string never reaches the state.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pulumi_mltrain.answers import MAX_TEXT
from pulumi_mltrain.emulator import defaults as d
from support import stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

CREATE = "/v1/subscription/training/create"
RESULT = "/v1/subscription/training/result"
DETAIL = "/v1/training/instance/*/detail"
PRODUCTS = "/v1/product/list-for-training-task"
JOBS = "/v2/*/training-jobs"
FLAVORS = "/v2/*/training-job-flavors"
PYTHON_ERRORS = ("AttributeError", "KeyError", "TypeError", "ValueError", "IndexError")
# The SDK wrapper, the lazy provider that delegates to the real one, and the generic provider.
ALLOWED_FRAMES = ("pulumi/dynamic/__main__.py", "pulumi_mltrain/program.py", "pulumi_mltrain/resource.py")
MEGABYTE = 1_000_000


def ok(data: Any) -> dict[str, Any]:
    return {"status": 200, "message": "OK", "data": data}


def respond(method: str, path: str, **rule: Any) -> dict[str, Any]:
    return {"method": method, "path": path, "kind": "respond", **rule}


@dataclass(frozen=True)
class Case:
    name: str
    platform: str
    faults: list[dict[str, Any]]
    error: str | None = None  # None: `up` must succeed; else text the failure must contain
    job: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)


CASES = [
    # An unreadable subscription result proves nothing: the task is found by its owner mark and recorded.
    Case("subscription result without status", "alaya",
         [respond("GET", RESULT, body=ok({"resultKey": "k", "trainingTaskId": "tt-000000000001"}))],
         settings={"subscription_delay": 0}),
    Case("subscription result with null data", "alaya", [respond("GET", RESULT, body=ok(None))],
         settings={"subscription_delay": 0}),
    Case("task detail with a status of the wrong type", "alaya",
         [respond("GET", DETAIL, body=ok({"id": "tt-000000000001", "status": 3}))]),
    Case("task detail with a status of the wrong type while waiting for running", "alaya",
         # The wait meets the malformed answer; the roll-back that follows reads the task again.
         [respond("GET", DETAIL, body=ok({"id": "tt-000000000001", "status": 3}), times=1)],
         error="data.status should be a string, not a number", job={"wait_for": "running"}),
    Case("create answered with data=123 after commit", "alaya",
         [respond("POST", CREATE, body=ok(123), commit=True, times=1)]),
    Case("create answered with an HTML page after commit", "alaya",
         [respond("POST", CREATE, status=200, text="<html><body>OK</body></html>", commit=True, times=1)]),
    Case("catalogue rows of the wrong type", "alaya", [respond("GET", PRODUCTS, body=ok([1, "PRD-TRAIN-2"]))]),
    Case("ModelArts create answer without metadata.id after commit", "modelarts",
         [respond("POST", JOBS, status=201, body={"kind": "job", "status": {"phase": "Creating"}}, commit=True,
                  times=1)]),
    Case("ModelArts job detail with phase null", "modelarts",
         [respond("GET", f"{JOBS}/*", body={"metadata": {"id": "x"}, "status": {"phase": None}}, times=1)],
         error="status.phase should be a string, not null"),
    Case("ModelArts flavors of the wrong type", "modelarts", [respond("GET", FLAVORS, body={"flavors": [1]})]),
]


def platform_ids(emulator: Any, platform: str) -> list[str]:
    state = emulator.admin.state()
    if platform == "alaya":
        return sorted(str(t["id"]) for t in state["alaya"]["tasks"])
    return sorted(str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"])


def stack_ids(stack: Stack, platform: str) -> list[str]:
    return sorted(str(r["id"]) for r in stack.resources(f"dynamic/{platform}:TrainingJob"))


def make_stack(platform: str, emulator: Any, home: Path, job: dict[str, Any]) -> Stack:
    if platform == "alaya":
        return stacks.alaya_stack(emulator, home, job=stacks.alaya_job_args(**job))
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=600, delete_delay=0.2)
    args = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
            "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], **job}
    return stacks.modelarts_stack(emulator, home, jobs={"job": args})


def assert_no_python_errors(output: str) -> None:
    """Only our own errors: no Python exception names, no frames below the resource's re-raise."""
    assert not [name for name in PYTHON_ERRORS if name in output], output[-4000:]
    frames = re.findall(r'File "([^"]+)", line \d+', output)
    stray = [f for f in frames if not f.endswith(ALLOWED_FRAMES)]
    assert stray == [], f"the error escaped from {stray}: {output[-4000:]}"
    raised = set(re.findall(r"^\s*([\w.]+): ", "\n".join(
        line for line in output.splitlines() if re.match(r"^\s*[\w.]+(Error|Exception|Answer|Outcome): ", line))))
    assert raised <= {"pulumi_mltrain.errors.MltrainError"}, raised


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_malformed_answer(case: Case, emulator: Any, tmp_path: Path) -> None:
    if case.settings:
        emulator.admin.set_settings(**case.settings)
    stack = make_stack(case.platform, emulator, tmp_path, case.job)
    emulator.admin.set_faults(case.faults)

    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert emulator.admin.requests()["faults"]["total"] >= 1, "the fault was injected"
    assert_no_python_errors(output)
    if case.error is None:
        assert result.returncode == 0, output[-4000:]
        assert len(stack_ids(stack, case.platform)) == 1
    else:
        assert result.returncode != 0, output[-4000:]
        assert case.error in output, output[-4000:]
        assert "TrainingJob 'job" in output, "the error names the resource"
    emulator.admin.clear_faults()
    emulator.admin.advance(30)  # anything a create set in motion has happened by now
    assert platform_ids(emulator, case.platform) == stack_ids(stack, case.platform), \
        "no duplicate and no orphan: the stack and the platform hold the same jobs"

    stack.destroy()
    assert platform_ids(emulator, case.platform) == []


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def huge_detail(platform: str, job_id: str) -> dict[str, Any]:
    """A detail of the real job whose free text is 1 MB long."""
    if platform == "alaya":
        return respond("GET", f"/v1/training/instance/{job_id}/detail", body=ok(
            {"id": job_id, "name": "job", "status": "FAILED", "reason": "r" * MEGABYTE}))
    return respond("GET", f"{JOBS}/{job_id}", body={
        "kind": "job", "metadata": {"id": job_id, "name": "job"},
        "status": {"phase": "Failed", "reason": "r" * MEGABYTE, "tasks": ["worker-0"],
                   "task_statuses": [{"task": "worker-0", "exit_code": 1, "message": "m" * MEGABYTE}]}})


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_a_huge_reason_is_cut_before_the_state(platform: str, emulator: Any, tmp_path: Path) -> None:
    stack = make_stack(platform, emulator, tmp_path, {})
    stack.up()
    [job_id] = stack_ids(stack, platform)

    emulator.admin.set_faults([huge_detail(platform, job_id)])
    result = stack.refresh(check=False)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    [resource] = stack.resources(f"dynamic/{platform}:TrainingJob")
    reason = str(resource["outputs"]["reason"])
    assert f"… [cut at {MAX_TEXT} characters]" in reason
    platform_values = {k: v for k, v in resource["outputs"].items() if k != "__provider"}  # the pickled provider
    longest = max(len(s) for s in strings(platform_values))
    assert longest <= MAX_TEXT + 100, f"a string of {longest} characters reached the state"
    size = len(json.dumps(stack.export()))
    assert size < 500_000, f"a state of {size} characters"

    emulator.admin.clear_faults()
    stack.destroy()
    assert platform_ids(emulator, platform) == []
