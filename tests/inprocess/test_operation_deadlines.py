"""Every handler operation has one deadline, the untimed ones too: a refresh, a check, an import's first
read and the look for a failed create's object against a platform that stops answering end at their
deadline, with a message naming the resource and the operation; no request outlasts it, whatever the
request timeout. In process against the emulator over loopback HTTP (its `latency` fault holds an
answer back for as long as the test says)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain import deadline, progress
from pulumi_mltrain.errors import MltrainError
from support import inprocess
from support.inprocess import OWNER, AnyHandler
from support.stacks import alaya_job_args

pytestmark = pytest.mark.usefixtures("quick")

ALAYA_JOBS = "alaya:TrainingJob"
DETAIL, LIST = "/v1/training/instance/*/detail", "/v1/training/instance/list"
PRODUCTS = "/v1/product/list-for-training-task"
# A platform that stops answering: every matching call is held back longer than any test waits.
SILENT = {"kind": "latency", "seconds": 30}
# The budget the tests give an untimed operation, well below the request timeout (`slow`): the deadline,
# not the request timeout nor the retries, ends the operation.
BUDGET = 1.5
# What a loaded machine may add to the budget: still far below the 20 s request timeout and the 30 s
# silence that would end the operation if the deadline did not.
SLACK = 8.0


@pytest.fixture
def slow() -> dict[str, str]:
    """A request timeout and retries that alone would let a silent platform hold an operation for minutes."""
    return {"mltrain:requestTimeout": "20", "mltrain:maxRetries": "5"}


def budgets(handler: AnyHandler, monkeypatch: pytest.MonkeyPatch, **seconds: float) -> None:
    """Give the handler's resource kind these fixed budgets (`PlatformCalls.fixed_timeouts`)."""
    monkeypatch.setattr(handler.calls, "fixed_timeouts", {**handler.calls.fixed_timeouts, **seconds})


def timed(call: Callable[[], Any]) -> tuple[BaseException | None, float, Any]:
    started = time.monotonic()
    try:
        result = call()
    except MltrainError as err:
        return err, time.monotonic() - started, None
    return None, time.monotonic() - started, result


@pytest.fixture
def said() -> Iterator[list[tuple[str, str | None]]]:
    """What the provider says (`progress.emit`: the engine's Log in a provider process), as (line, URN)."""
    lines: list[tuple[str, str | None]] = []
    real = progress.emit
    progress.emit = lambda line, urn: lines.append((line, urn))  # type: ignore[assignment]
    try:
        yield lines
    finally:
        progress.emit = real  # type: ignore[assignment]


def created_task(emulator: EmulatorHandle, name: str = "job") -> tuple[AnyHandler, inprocess.Created]:
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    return jobs, inprocess.Created(jobs, alaya_job_args(wait_for="created"), name=name)


def test_a_refresh_of_a_silent_platform_ends_at_its_deadline_naming_the_resource_and_refresh(
        emulator: EmulatorHandle, slow: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    _, job = created_task(emulator)
    jobs = inprocess.handler(ALAYA_JOBS, emulator, **slow)  # the next command's provider process
    budgets(jobs, monkeypatch, read=BUDGET)
    emulator.admin.set_faults([{"method": "GET", "path": DETAIL, **SILENT}])
    err, seconds, _ = timed(lambda: jobs.read(job.id, job.state))
    assert err is not None, "the refresh cannot succeed while the platform is silent"
    text = str(err)
    assert text.startswith("TrainingJob 'job': "), text
    assert f"no answer within the {BUDGET:g}s deadline of refreshing TrainingJob 'job' ({job.id})" in text, text
    assert "customTimeouts do not cover a refresh" in text, "the advice is true of a refresh"
    assert BUDGET - 0.1 <= seconds < BUDGET + SLACK, f"{seconds:.1f}s: the deadline, not the 20 s request timeout"
    assert job.id in inprocess.platform_ids(emulator, "alaya"), "nothing is dropped or deleted"


def test_a_refresh_whose_listing_is_silent_keeps_the_resource_at_its_deadline(
        emulator: EmulatorHandle, slow: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A not-found is believed only when a listing agrees: a listing that never answers ends at the same
    deadline, and the resource is kept (an error, not a None that would drop it)."""
    _, job = created_task(emulator)
    job.delete()  # gone: the platform answers its own not-found
    jobs = inprocess.handler(ALAYA_JOBS, emulator, **slow)
    budgets(jobs, monkeypatch, read=BUDGET)
    emulator.admin.set_faults([{"method": "GET", "path": LIST, **SILENT}])
    err, seconds, _ = timed(lambda: jobs.read(job.id, job.state))
    assert err is not None and "refreshing TrainingJob 'job'" in str(err), err
    assert seconds < BUDGET + SLACK, f"{seconds:.1f}s"


def test_a_check_with_silent_catalogues_ends_at_its_deadline_and_says_why_it_skipped_them(
        emulator: EmulatorHandle, slow: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        said: list[tuple[str, str | None]]) -> None:
    jobs = inprocess.handler(ALAYA_JOBS, emulator, **slow)
    budgets(jobs, monkeypatch, check=BUDGET)
    emulator.admin.set_faults([{"method": "GET", "path": PRODUCTS, **SILENT}])
    err, seconds, checked = timed(lambda: jobs.check({}, {**OWNER, **alaya_job_args(name="job")}))
    assert err is None and checked.failures == (), "an unreadable catalogue is skipped, not a failure"
    assert BUDGET - 0.1 <= seconds < BUDGET + SLACK, f"{seconds:.1f}s: the deadline, not the 20 s request timeout"
    skipped = [(line, urn) for line, urn in said if "catalogue check skipped" in line]
    assert len(skipped) == 1, said
    line, urn = skipped[0]
    assert urn == OWNER["__mltrain_urn"], "said under the resource"
    assert "checking TrainingJob 'job'" in line and "customTimeouts do not cover a check" in line, line


def test_an_import_of_a_silent_platform_ends_within_a_refreshs_budget(
        emulator: EmulatorHandle, slow: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    _, job = created_task(emulator)
    jobs = inprocess.handler(ALAYA_JOBS, emulator, **slow)
    budgets(jobs, monkeypatch, read=BUDGET)
    emulator.admin.set_faults([{"method": "GET", "path": DETAIL, **SILENT}])
    err, seconds, _ = timed(lambda: jobs.import_object(job.id, OWNER))
    assert err is not None and f"reading TrainingJob {job.id} to import it" in str(err), err
    assert "customTimeouts do not cover an import" in str(err), err
    assert seconds < BUDGET + SLACK, f"{seconds:.1f}s: the first read's budget, not the create's 20 minutes"


def test_the_look_for_a_failed_creates_object_ends_at_its_budget(
        emulator: EmulatorHandle, slow: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    jobs, job = created_task(emulator)
    jobs = inprocess.handler(ALAYA_JOBS, emulator, **slow)
    budgets(jobs, monkeypatch, survivor=BUDGET)
    emulator.admin.set_faults([{"method": "GET", "path": LIST, **SILENT}])
    _, seconds, found = timed(lambda: jobs.survivor(job.inputs))
    assert found is None, "not found within its budget: nothing to record"
    assert seconds < BUDGET + SLACK, f"{seconds:.1f}s"


def test_diff_and_check_run_under_a_deadline_of_their_own(emulator: EmulatorHandle) -> None:
    """Nothing runs without an operation deadline: a check and a diff open theirs (a diff calls nothing
    remote, but whatever it may call one day is bounded too)."""
    jobs = inprocess.handler(ALAYA_JOBS, emulator)
    seen: list[deadline.Deadline | None] = []
    real = jobs.calls.check_remote

    def check_remote(self: Any, spec: Any) -> list[tuple[str, str]]:
        seen.append(deadline.current())
        return real(self, spec)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs.calls, "check_remote", check_remote)
        checked = inprocess.checked(jobs, {**OWNER, **alaya_job_args(name="job")})
        patch.setattr(jobs, "_diff", lambda *args: seen.append(deadline.current()))
        jobs.diff(checked, checked, "t-1")
    check, diff = seen
    assert check is not None and check.what == "checking TrainingJob 'job'" and check.seconds == 120
    assert diff is not None and diff.what == "diffing TrainingJob 'job'" and diff.seconds == 30
    assert deadline.current() is None, "and nothing is left open after them"
