"""`success_criteria` through the engine, in one stack of both forms (dynamic `dyn-*`, plugin `plug-*`):
a ModelArts job whose final gpuUtil misses its gate fails the `up` and its run is held (the job kept as
the record), a job that depends on it is not created, and a job that passed its gate holds `final_metrics` in the state.

`low` depends on `ok` (in each form): the dynamic program ends at its first failure, so `ok` is settled
before `low` fails; `next` depends on `low`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plugin_support import (
    both_forms,
    both_platforms_stack,
    by_name,
    by_resource,
    live_jobs,
    modelarts_job_args,
    output_of,
    said,
    summary,
)

from pulumi_mltrain.ownership import FAILED_KEY

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def test_a_missed_gate_fails_the_up_and_stops_its_dependents(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=1, delete_delay=0.2,
                                modelarts_final_metrics={"-low-": {"gpuUtil": 12.0}})
    gate = {"wait_for": "completed"}
    jobs = {"modelarts": {
        "ok": modelarts_job_args(**gate, success_criteria=[{"metric": "cpuUsage", "op": ">=", "value": 10}]),
        "low": modelarts_job_args(**gate, success_criteria=[{"metric": "gpuUtil", "op": ">=", "value": 50}]),
        "next": modelarts_job_args(),
    }}
    stack = both_forms(both_platforms_stack(emulator, tmp_path), jobs, after={"low": "ok", "next": "low"})

    first = stack.up("--continue-on-error", check=False)  # each form's failure is seen, whichever ends first
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    assert said(output, "gpuUtil was 12, the criterion is gpuUtil >= 50") == {"dyn-low", "plug-low"}, \
        output[-4000:]
    assert said(output, 'as the run\'s record (on_failure="keep")') == {"dyn-low", "plug-low"}, output[-4000:]
    assert sorted(by_resource(emulator, "modelarts")) == ["dyn-low", "dyn-ok", "plug-low", "plug-ok"], \
        "the missed jobs stay as their runs' records, and their dependents were never created"
    held = by_name(stack)
    assert sorted(held) == ["dyn-low", "dyn-ok", "plug-low", "plug-ok"], sorted(held)
    for name in ("dyn-low", "plug-low"):
        outs = held[name]["outputs"]
        assert outs["phase"] == "Completed" and outs["success_criteria_met"] is False and outs[FAILED_KEY], outs
    for name in ("dyn-ok", "plug-ok"):
        outs = held[name]["outputs"]
        assert outs["phase"] == "Completed" and outs["success_criteria_met"] is True, outs
        assert 20.0 <= outs["final_metrics"]["cpuUsage"] <= 45.0 and "gpuUtil" not in outs["final_metrics"], outs
        assert outs["success_criteria"] == [{"metric": "cpuUsage", "op": ">=", "value": 10}], outs

    result = stack.destroy()
    assert summary(result).get("deleted"), output_of(result)[-3000:]
    assert live_jobs(emulator) == {} and by_name(stack) == {}
