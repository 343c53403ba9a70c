"""Malformed and huge platform answers: the cases, the handlers they run against and the checks of their
errors, shared by the in-process tests (tests/inprocess/faults/test_answers.py) and their engine run
(tests/engine/faults/test_answers_engine.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pulumi_mltrain.answers import MAX_TEXT
from pulumi_mltrain.errors import MltrainError

from . import inprocess
from .fault_matrix import stack_ids as stack_ids
from .inprocess import AnyHandler
from .platforms import PLATFORMS

CREATE = "/v1/subscription/training/create"
RESULT = "/v1/subscription/training/result"
DETAIL = "/v1/training/instance/*/detail"
PRODUCTS = "/v1/product/list-for-training-task"
JOBS = "/v2/*/training-jobs"
FLAVORS = "/v2/*/training-job-flavors"
PYTHON_ERRORS = ("AttributeError", "KeyError", "TypeError", "ValueError", "IndexError")


# The SDK's dynamic provider host and our adapter, which calls the handler.
ALLOWED_FRAMES = ("pulumi/dynamic/__main__.py", "pulumi_mltrain/dynamic_provider.py")
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


MODELARTS_JOB = PLATFORMS["modelarts"].job


def make_handler(platform: str, emulator: Any) -> AnyHandler:
    """The training job handler of `platform` as `make_stack`'s stack would run it, in this process."""
    if platform == "modelarts":
        emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=600, delete_delay=0.2)
    return inprocess.handler(PLATFORMS[platform].training_job.kind, emulator)


def job_props(platform: str, job: dict[str, Any]) -> dict[str, Any]:
    return {**inprocess.OWNER, "name": "job", **PLATFORMS[platform].job_args(**job)}


def assert_our_own_error(err: MltrainError) -> None:
    """The error says what went wrong in our words: what it wraps on the way out is our own error too,
    never a Python exception from reading a field that is not there or not of its type."""
    inner = err.__context__
    assert inner is None or isinstance(inner, MltrainError), f"{type(inner).__name__}: {inner}"
    assert not [name for name in PYTHON_ERRORS if name in str(err)], str(err)


def assert_no_python_errors(output: str) -> None:
    """Only our own errors, as their message: no traceback, no Python exception names."""
    assert "Traceback (most recent call last)" not in output, output[-4000:]
    assert not [name for name in PYTHON_ERRORS if name in output], output[-4000:]
    frames = re.findall(r'File "([^"]+)", line \d+', output)
    stray = [f for f in frames if not f.endswith(ALLOWED_FRAMES)]
    assert stray == [], f"the error escaped from {stray}: {output[-4000:]}"
    raised = set(re.findall(r"^\s*([\w.]+): ", "\n".join(
        line for line in output.splitlines() if re.match(r"^\s*[\w.]+(Error|Exception|Answer|Outcome): ", line))))
    assert raised <= {"pulumi_mltrain.errors.MltrainError"}, raised


ENGINE_CASE = next(c for c in CASES if c.name == "ModelArts job detail with phase null")


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


def assert_bounded(outputs: dict[str, Any]) -> None:
    reason = str(outputs["reason"])
    assert f"… [cut at {MAX_TEXT} characters]" in reason
    platform_values = {k: v for k, v in outputs.items() if k != "__provider"}  # the pickled provider
    longest = max(len(s) for s in strings(platform_values))
    assert longest <= MAX_TEXT + 100, f"a string of {longest} characters reached the state"
