"""Answers of the wrong shape: readable errors, no orphans, bounded state.

Each case makes the emulator answer one call with a malformed body (the `respond` fault; with
`commit` the write happens first) and checks: a failure names the resource and the field, the error
raised is our own (never an AttributeError, KeyError or TypeError wrapped on the way out), and the
jobs on the platform are the jobs recorded. Every case ends with a fault-free delete that leaves the
platform empty. The last tests check that a 1 MB platform string never reaches the state.

How the provider reads an answer is its own logic, so every case runs in-process (the provider
against the emulator over loopback HTTP; what `create` returns is what the engine records, what
`read` returns what a refresh stores). The engine keeps one run for what it decides, one stack
with a job of each platform: for ModelArts, what `pulumi up` prints for a malformed answer (our error, no
stray traceback frames); for Alaya NeW, the size of the state a refresh writes after a 1 MB reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from mltrain_emulator import defaults as d
from pulumi_mltrain.alaya.training_job import TrainingJobProvider as AlayaJobs
from pulumi_mltrain.answers import MAX_TEXT
from pulumi_mltrain.dynamic_provider import MltrainProvider
from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.modelarts.training_job import TrainingJobProvider as ModelArtsJobs
from support import inprocess, stacks
from support.inprocess import platform_ids
from support.pulumi_cli import Stack

CREATE = "/v1/subscription/training/create"
RESULT = "/v1/subscription/training/result"
DETAIL = "/v1/training/instance/*/detail"
PRODUCTS = "/v1/product/list-for-training-task"
JOBS = "/v2/*/training-jobs"
FLAVORS = "/v2/*/training-job-flavors"
PYTHON_ERRORS = ("AttributeError", "KeyError", "TypeError", "ValueError", "IndexError")
# The SDK wrapper, the lazy provider that delegates to the real one, and the generic provider.
ALLOWED_FRAMES = ("pulumi/dynamic/__main__.py", "pulumi_mltrain/program_resource.py",
                  "pulumi_mltrain/dynamic_provider.py")
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


MODELARTS_JOB = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                 "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}


def stack_ids(stack: Stack, platform: str) -> list[str]:
    return sorted(str(r["id"]) for r in stack.resources(f"dynamic/{platform}:TrainingJob"))


def make_provider(platform: str, emulator: Any) -> MltrainProvider[Any]:
    """The provider as `make_stack`'s stack would run it, in this process."""
    if platform == "alaya":
        return inprocess.configured(AlayaJobs(), "alaya", emulator)
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=600, delete_delay=0.2)
    return inprocess.configured(ModelArtsJobs(), "modelarts", emulator)


def job_props(platform: str, job: dict[str, Any]) -> dict[str, Any]:
    args = stacks.alaya_job_args(**job) if platform == "alaya" else {**MODELARTS_JOB, **job}
    return {**inprocess.OWNER, "name": "job", **args}


def assert_our_own_error(err: MltrainError) -> None:
    """The error says what went wrong in our words: what it wraps on the way out is our own error too,
    never a Python exception from reading a field that is not there or not of its type."""
    inner = err.__context__
    assert inner is None or isinstance(inner, MltrainError), f"{type(inner).__name__}: {inner}"
    assert not [name for name in PYTHON_ERRORS if name in str(err)], str(err)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_malformed_answer(case: Case, emulator: Any) -> None:
    if case.settings:
        emulator.admin.set_settings(**case.settings)
    provider = make_provider(case.platform, emulator)
    emulator.admin.set_faults(case.faults)

    recorded: list[str] = []
    inputs = inprocess.checked(provider, job_props(case.platform, case.job))
    try:
        recorded.append(str(provider.create(inputs).id))
        output = ""
    except MltrainError as err:  # what the engine shows the user; nothing is recorded
        assert_our_own_error(err)
        output = str(err)
    assert emulator.admin.requests()["faults"]["total"] >= 1, "the fault was injected"
    if case.error is None:
        assert output == "" and len(recorded) == 1, output
    else:
        assert not recorded, "the create was expected to fail"
        assert case.error in output, output
        assert output.startswith("TrainingJob 'job"), "the error names the resource"
    emulator.admin.clear_faults()
    emulator.admin.advance(30)  # anything a create set in motion has happened by now
    assert platform_ids(emulator, case.platform) == sorted(recorded), \
        "no duplicate and no orphan: what is recorded and the platform hold the same jobs"

    for job_id in recorded:
        provider.delete(job_id, inputs)
    assert platform_ids(emulator, case.platform) == []


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


@pytest.mark.engine
@pytest.mark.slow
def test_malformed_and_huge_answers_through_the_engine(emulator: Any, mixed: Callable[..., Stack]) -> None:
    """One stack: a ModelArts job whose create meets a malformed answer, and an Alaya NeW job whose 1 MB reason
    a refresh meets."""
    stack = mixed({"job-modelarts": {"kind": "modelarts", "args": {**MODELARTS_JOB, **ENGINE_CASE.job}},
                   "job-alaya": {"kind": "alaya", "args": stacks.alaya_job_args()}})
    emulator.admin.set_settings(modelarts_run_seconds=600)

    # What `pulumi up` prints for a malformed answer is our error naming the field, with no traceback from
    # below the resource (was test_a_malformed_answer_through_the_engine).
    emulator.admin.set_faults(ENGINE_CASE.faults)
    result = stack.up("--continue-on-error", check=False)
    output = result.stdout + result.stderr
    assert emulator.admin.requests()["faults"]["total"] >= 1, "the fault was injected"
    assert_no_python_errors(output)
    assert result.returncode != 0, output[-4000:]
    assert str(ENGINE_CASE.error) in output and "TrainingJob 'job-modelarts" in output, output[-4000:]
    emulator.admin.clear_faults()
    emulator.admin.advance(30)
    assert platform_ids(emulator, "modelarts") == stack_ids(stack, "modelarts") == []

    # The state the engine writes after refreshing a 1 MB reason stays small
    # (was test_a_huge_reason_keeps_the_state_small).
    [job_id] = stack_ids(stack, "alaya")
    emulator.admin.set_faults([huge_detail("alaya", job_id)])
    result = stack.refresh(check=False)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    [resource] = stack.resources("dynamic/alaya:TrainingJob")
    assert_bounded(resource["outputs"])
    size = len(json.dumps(stack.export()))
    assert size < 500_000, f"a state of {size} characters"


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


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_a_huge_reason_is_cut_before_the_state(platform: str, emulator: Any) -> None:
    provider = make_provider(platform, emulator)
    inputs = inprocess.checked(provider, job_props(platform, {}))
    created = provider.create(inputs)
    job_id = str(created.id)
    state = {**inputs, **dict(created.outs or {})}

    emulator.admin.set_faults([huge_detail(platform, job_id)])
    read = provider.read(job_id, state)  # what a refresh stores
    assert read.id == job_id
    assert_bounded(dict(read.outs or {}))

    emulator.admin.clear_faults()
    provider.delete(job_id, state)
    assert platform_ids(emulator, platform) == []
