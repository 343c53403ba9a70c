"""`on_failure="keep"`: a job that fails during the create's wait stays on the platform and in the
state with its status and reason, `up` still fails, its logs stay readable through the function, the
next `up` replaces it and `destroy` removes it. An Alaya wait says once that there is no log API. Each
stack holds the dynamic (`dyn-*`) and the plugin (`plug-*`) form.

A dynamic kept failure is raised by the program, which ends it: one per stack, and other dynamic jobs
of that up only where their assertions are settled before it fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plugin_support import (
    BOTH,
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

from pulumi_mltrain import runs
from pulumi_mltrain.ownership import FAILED_KEY
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]

BAD = ["dyn-bad", "plug-bad"]


def test_modelarts_kept_failure_is_recorded_readable_and_replaced(emulator: Any, tmp_path: Path) -> None:
    """`bad` is a ModelArts job that fails and is kept; `run` an Alaya task whose wait (until it runs)
    says once that Alaya NeW has no log API. `bad` depends on `run` (in each form): the dynamic program
    ends at its first failure, and on a loaded machine `bad` could otherwise fail before `run` is done."""
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=2, delete_delay=0.2,
                                modelarts_fail_names="-bad-", task_state_delay=2, subscription_delay=0.2)
    job = modelarts_job_args(wait_for="completed", on_failure="keep")
    jobs = {"alaya": {"run": stacks.alaya_job_args(wait_for="running")}, "modelarts": {"bad": job}}
    stack = both_forms(both_platforms_stack(emulator, tmp_path), jobs, after={"bad": "run"})

    first = stack.up("--continue-on-error", check=False)  # each form's failure is seen, whichever ends first
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    assert said(output, "ended Failed before it was completed") == set(BAD), output[-4000:]
    assert said(output, 'It was kept (on_failure="keep")') == set(BAD), output[-4000:]
    made = by_resource(emulator)
    kept = {n: made[n] for n in BAD}
    assert sorted(by_resource(emulator, "modelarts")) == BAD, "both jobs stay on the platform"
    held = by_name(stack)
    assert sorted(n for n in held if n.endswith("-bad")) == BAD, "and in the state"
    for name in BAD:
        outs = held[name]["outputs"]
        assert held[name]["id"] == kept[name] and outs["phase"] == "Failed", outs
        assert outs["reason"] and outs[FAILED_KEY].startswith("TrainingJob "), outs
    # An Alaya wait says once that Alaya NeW documents no log API.
    diagnostics = output.split("Diagnostics:", 1)[-1]
    for name in ("dyn-run", "plug-run"):
        lines = [line for line in diagnostics.splitlines()
                 if f"TrainingJob '{name}'" in line and "Alaya NeW documents no log API" in line]
        assert len(lines) == 1, output[-4000:]

    # The kept jobs' logs are readable through the function; the preview shows their replaces.
    both_forms(stack, jobs, logsOf=list(kept.values()))
    preview = stack.preview(check=False)
    output = output_of(preview)
    assert preview.returncode == 0, output[-4000:]
    for job_id in kept.values():
        assert f"log of {job_id} worker-0: " in output and "emulated failure" in output, output[-4000:]
    assert output.count("replace") >= 2, output[-4000:]

    both_forms(stack, jobs, logsOf=[])
    emulator.admin.set_settings(modelarts_fail_names="^$")
    stack.up()
    held = by_name(stack)
    again = by_resource(emulator, "modelarts")
    assert sorted(again) == BAD and not set(again.values()) & set(kept.values()), \
        "the next up replaced each kept job"
    for name in BAD:
        assert held[name]["id"] == again[name] and held[name]["outputs"]["phase"] == "Completed", held[name]
        assert FAILED_KEY not in held[name]["outputs"] and not held[name].get("initErrors"), held[name]

    result = stack.destroy()
    assert summary(result).get("deleted"), output_of(result)[-3000:]
    assert live_jobs(emulator) == {} and by_name(stack) == {}, "destroy leaves nothing, on either platform"


def test_alaya_kept_failure_is_recorded_and_replaced(emulator: Any, tmp_path: Path) -> None:
    """Alaya NeW has no log API: the kept task's status and reason are what is left to debug it. (Its
    replaced tasks are destroyed as the other test's are.)"""
    emulator.admin.set_settings(task_state_delay=0.2, succeed_after=0.8, delete_delay=0.2, fail_task_names="-bad-",
                                subscription_delay=0.2)
    job = stacks.alaya_job_args(wait_for="completed", on_failure="keep")
    stack = both_forms(stacks.alaya_stack(emulator, tmp_path, BOTH), {"alaya": {"bad": job}})

    first = stack.up("--continue-on-error", check=False)  # each form's failure is seen, whichever ends first
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    assert said(output, "ended FAILED before it was completed") == set(BAD), output[-4000:]
    assert said(output, 'It was kept (on_failure="keep")') == set(BAD), output[-4000:]
    kept = by_resource(emulator, "alaya")
    assert sorted(kept) == BAD, "both tasks stay on the platform"
    remote = {str(t["id"]): t for t in emulator.admin.state()["alaya"]["tasks"]}
    assert all(remote[i]["status"] == "FAILED" for i in kept.values()), remote
    held = by_name(stack)
    assert sorted(held) == BAD, "and in the state"
    for name, resource in held.items():
        outs = resource["outputs"]
        assert resource["id"] == kept[name] and outs["status"] == "FAILED", outs
        assert outs["reason"] and outs[FAILED_KEY].startswith("TrainingJob "), outs
        assert outs["run_reason"] == "first run" + runs.costs(outs), outs

    emulator.admin.set_settings(fail_task_names="^$")
    stack.up()
    held = by_name(stack)
    again = by_resource(emulator, "alaya")
    assert sorted(again) == BAD and not set(again.values()) & set(kept.values()), \
        "the next up replaced each kept task"
    for name, resource in held.items():
        outs = resource["outputs"]
        assert resource["id"] == again[name] and outs["status"] == "SUCCEEDED", resource
        assert FAILED_KEY not in outs and not resource.get("initErrors"), resource
        assert outs["run_reason"] == runs.FORCED + runs.costs(outs), outs
