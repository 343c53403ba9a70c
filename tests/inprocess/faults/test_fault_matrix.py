"""Whatever the network or the platform does, after a create the state and the platform agree.

Each case injects one fault kind into the emulator and then checks: the IDs recorded equal the objects
on the platform (no duplicates, no orphans), and a failure names its cause. Every case ends with a
fault-free delete that must leave the platform empty.

The provider's own logic decides all of that, so every case runs in-process (the job's handler against the
emulator over loopback HTTP: what `create` returns is what the engine records, and an exception
records nothing). The engine adds only "a failed create records nothing, a successful one its ID" and a
destroy through faults: three cases run as three jobs of one stack through one `pulumi up`, and one
`pulumi destroy` of that stack meets 5xx and malformed answers.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.fault_matrix import (
    CASES,
    Case,
    job_props,
    make_handler,
    platform_ids,
    secret_values,
)
from support.inprocess import checked


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fault(case: Case, emulator: Any) -> None:
    jobs = make_handler(case, emulator)
    inputs = checked(jobs, job_props(case))
    emulator.admin.set_faults(case.faults)

    recorded: list[str] = []
    try:
        recorded.append(jobs.create(inputs).id)
        output = ""
    except Exception as err:  # what the engine shows the user; nothing is recorded
        output = str(err)
    if case.error is None:
        assert output == "" and len(recorded) == 1, output
    else:
        assert not recorded, "the create was expected to fail"
        assert case.error in output, output
        assert output.startswith("TrainingJob 'job"), "the error names the resource"
    leaked = [v for v in secret_values(emulator) if v in output]
    assert not leaked, f"secret values in the output: {leaked}"
    if case.faults:
        assert emulator.admin.requests()["faults"]["total"] >= 1, "the fault was injected"
    assert platform_ids(emulator, case.platform) == sorted(recorded), \
        "no duplicate and no orphan: what is recorded and the platform hold the same jobs"

    emulator.admin.clear_faults()
    for job_id in recorded:
        jobs.delete(job_id, inputs)
    assert platform_ids(emulator, case.platform) == []


