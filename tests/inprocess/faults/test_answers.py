"""Answers of the wrong shape: readable errors, no orphans, bounded state.

Each case makes the emulator answer one call with a malformed body (the `respond` fault; with
`commit` the write happens first) and checks: a failure names the resource and the field, the error
raised is our own (never an AttributeError, KeyError or TypeError wrapped on the way out), and the
jobs on the platform are the jobs recorded. Every case ends with a fault-free delete that leaves the
platform empty. The last tests check that a 1 MB platform string never reaches the state.

How the provider reads an answer is its own logic, so every case runs in-process (the job's handler
against the emulator over loopback HTTP; what `create` returns is what the engine records, what
`read` returns what a refresh stores). The engine keeps one run for what it decides, one stack
with a job of each platform: for ModelArts, what `pulumi up` prints for a malformed answer (our error, no
stray traceback frames); for Alaya NeW, the size of the state a refresh writes after a 1 MB reason.
"""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_mltrain.errors import MltrainError
from support import inprocess
from support.inprocess import platform_ids
from support.malformed_answers import (
    CASES,
    Case,
    assert_bounded,
    assert_our_own_error,
    huge_detail,
    job_props,
    make_handler,
)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_malformed_answer(case: Case, emulator: Any) -> None:
    if case.settings:
        emulator.admin.set_settings(**case.settings)
    jobs = make_handler(case.platform, emulator)
    emulator.admin.set_faults(case.faults)

    recorded: list[str] = []
    inputs = inprocess.checked(jobs, job_props(case.platform, case.job))
    try:
        recorded.append(jobs.create(inputs).id)
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
        jobs.delete(job_id, inputs)
    assert platform_ids(emulator, case.platform) == []


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_a_huge_reason_is_cut_before_the_state(platform: str, emulator: Any) -> None:
    jobs = make_handler(platform, emulator)
    inputs = inprocess.checked(jobs, job_props(platform, {}))
    created = jobs.create(inputs)
    job_id = created.id
    state = {**inputs, **created.outputs}

    emulator.admin.set_faults([huge_detail(platform, job_id)])
    read = inprocess.read(jobs, job_id, state)  # what a refresh stores (fails if it drops the job)
    assert_bounded(dict(read.outputs))

    emulator.admin.clear_faults()
    jobs.delete(job_id, state)
    assert platform_ids(emulator, platform) == []
