"""Failed runs are held: a job whose run fails during the create's wait stays on the platform as the
run's record (`on_failure="keep"`, the default) or is deleted (`"delete"`), the failure is recorded, and
`pulumi up` fails. Every later `up` of unchanged inputs fails quickly with that failure and starts nothing,
as a CI re-run or an operator's retry runs it; a changed replacement_trigger starts exactly one new run,
and so does `mltrain:rerunFailed` naming the failed run. Each stack holds the dynamic (`dyn-*`) and the
plugin (`plug-*`) form.

A dynamic held failure is raised by the program, which ends it: `--continue-on-error` lets each form's
failure be seen whichever ends first."""

from __future__ import annotations

import json
import subprocess
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

from pulumi_mltrain.ownership import FAILED_KEY, REMOVED_KEY
from support import stacks
from support.pulumi_cli import PASSPHRASE, VENV

pytestmark = [pytest.mark.engine, pytest.mark.slow]

BAD = ["dyn-bad", "plug-bad"]
ALAYA_CREATE = "POST /v1/subscription/training/create"


def creates(emulator: Any, endpoint: str = ALAYA_CREATE) -> int:
    return int(emulator.admin.requests()["endpoints"].get(endpoint, 0))


def test_modelarts_held_failure_is_readable_fails_every_up_and_reruns_when_asked(emulator: Any,
                                                                                  tmp_path: Path) -> None:
    """`bad` is a ModelArts job that fails; `run` an Alaya task whose wait (until it runs) says once that
    Alaya NeW has no log API. `bad` depends on `run` (in each form): the dynamic program ends at its first
    failure, and on a loaded machine `bad` could otherwise fail before `run` is done."""
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=2, delete_delay=0.2,
                                modelarts_fail_names="-bad-", task_state_delay=2, subscription_delay=0.2)
    job = modelarts_job_args(wait_for="completed")
    jobs = {"alaya": {"run": stacks.alaya_job_args(wait_for="running")}, "modelarts": {"bad": job}}
    stack = both_forms(both_platforms_stack(emulator, tmp_path), jobs, after={"bad": "run"})

    first = stack.up("--continue-on-error", check=False)
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    assert said(output, "ended Failed before it was completed") == set(BAD), output[-4000:]
    assert said(output, 'as the run\'s record (on_failure="keep")') == set(BAD), output[-4000:]
    made = by_resource(emulator)
    kept = {n: made[n] for n in BAD}
    assert sorted(by_resource(emulator, "modelarts")) == BAD, "both jobs stay on the platform"
    held = by_name(stack)
    for name in BAD:
        outs = held[name]["outputs"]
        assert held[name]["id"] == kept[name] and outs["phase"] == "Failed", outs
        assert outs["reason"] and outs[FAILED_KEY].startswith("TrainingJob "), outs
        assert f"mltrain:rerunFailed {kept[name]}" in outs[FAILED_KEY], outs
    # An Alaya wait says once that Alaya NeW documents no log API.
    diagnostics = output.split("Diagnostics:", 1)[-1]
    for name in ("dyn-run", "plug-run"):
        lines = [line for line in diagnostics.splitlines()
                 if f"TrainingJob '{name}'" in line and "Alaya NeW documents no log API" in line]
        assert len(lines) == 1, output[-4000:]

    # The held jobs' logs are readable through the function; a preview replaces nothing.
    both_forms(stack, jobs, logsOf=list(kept.values()))
    preview = stack.preview(check=False)
    output = output_of(preview)
    assert preview.returncode == 0, output[-4000:]
    for job_id in kept.values():
        assert f"log of {job_id} worker-0: " in output and "emulated failure" in output, output[-4000:]
    resources = output.split("Resources:", 1)[-1].split("\n\n", 1)[0]
    # The plugin's held job is a partially created resource: the engine plans an update, which starts nothing.
    assert "to replace" not in resources and "~ 1 to update" in resources, output[-4000:]
    assert said(output, "is held") >= {"dyn-bad"}, "the dynamic program warns in a preview"

    # `mltrain-runs held` lists them from the states, where `pulumi` runs for the project.
    listed = subprocess.run([str(VENV / "bin" / "mltrain-runs"), "held", "--json"], cwd=stack.workdir,
                            env={**stack.env(), "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE}, capture_output=True,
                            text=True, timeout=120, check=True)
    assert {(r["resource"], r["job_id"], r["job_kept"]) for r in json.loads(listed.stdout)} == {
        (name, kept[name], True) for name in BAD}, listed.stdout

    # An operator's retry, unchanged: it fails quickly on the held failures and starts nothing.
    both_forms(stack, jobs, logsOf=[])
    emulator.admin.set_settings(modelarts_fail_names="^$")
    posts = creates(emulator, "POST /v2/{project_id}/training-jobs")
    retried = stack.up("--continue-on-error", check=False)
    assert retried.returncode != 0 and said(output_of(retried), "is held") == set(BAD), output_of(retried)[-4000:]
    assert creates(emulator, "POST /v2/{project_id}/training-jobs") == posts, "no run started"

    # Asked for by the failed runs' IDs: one new run each, and the setting is spent with them.
    stack.set_config("mltrain:rerunFailed", ",".join(kept.values()))
    stack.up()
    again = by_resource(emulator, "modelarts")
    assert sorted(again) == BAD and not set(again.values()) & set(kept.values()), "a new run each"
    assert creates(emulator, "POST /v2/{project_id}/training-jobs") == posts + 2
    held = by_name(stack)
    for name in BAD:
        outs = held[name]["outputs"]
        assert held[name]["id"] == again[name] and outs["phase"] == "Completed", held[name]
        assert not outs.get(FAILED_KEY) and not held[name].get("initErrors"), held[name]
        assert outs["run_reason"].startswith(f"new run: run again after failed run {kept[name]}"), outs
    result = stack.destroy()
    assert summary(result).get("deleted"), output_of(result)[-3000:]
    assert live_jobs(emulator) == {} and by_name(stack) == {}, "destroy leaves nothing, on either platform"


def test_three_ups_of_a_failing_job_start_one_run_and_a_new_trigger_one_more(emulator: Any,
                                                                            tmp_path: Path) -> None:
    """For both on_failure values: `keep` holds the ended task as the record, `delete` deletes it and
    holds the failure all the same."""
    emulator.admin.set_settings(task_state_delay=0.2, succeed_after=0.8, delete_delay=0.2, subscription_delay=0.2,
                                fail_task_names="-(keep|drop)-")
    jobs = {"alaya": {"keep": stacks.alaya_job_args(wait_for="completed"),
                      "drop": stacks.alaya_job_args(wait_for="completed", on_failure="delete")}}
    stack = both_forms(stacks.alaya_stack(emulator, tmp_path, BOTH), jobs, triggers={"keep": "1", "drop": "1"})
    names = {"dyn-keep", "plug-keep", "dyn-drop", "plug-drop"}

    for attempt in range(3):  # the first up, then a CI re-run and an operator's retry
        result = stack.up("--continue-on-error", check=False)
        assert result.returncode != 0, output_of(result)[-4000:]
        failed = said(output_of(result), "is held")
        # The dynamic program ends at the first error it raises: one dynamic job says so per up.
        assert {"plug-keep", "plug-drop"} <= failed and failed & {"dyn-keep", "dyn-drop"}, output_of(result)[-4000:]
        assert creates(emulator) == 4, f"one run per job, not one per up (after up {attempt + 1})"
    held = by_name(stack)
    kept = by_resource(emulator, "alaya")
    assert sorted(kept) == ["dyn-keep", "plug-keep"], "the kept records, ended; the others were deleted"
    assert all(t["status"] == "FAILED" for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"])
    for name in names:
        outs = held[name]["outputs"]
        assert outs["status"] == "FAILED" and outs[FAILED_KEY], outs
        assert bool(outs.get(REMOVED_KEY)) == name.endswith("drop"), outs
        if name.endswith("keep"):
            assert held[name]["id"] == kept[name]

    # A new trigger for `keep` (both forms): exactly one new run each. (`drop` leaves the program for this
    # up: a held job in it would end the dynamic program before `keep` registers. The failed up deletes nothing.)
    both_forms(stack, {"alaya": {"keep": jobs["alaya"]["keep"]}}, triggers={"keep": "2"})
    result = stack.up("--continue-on-error", check=False)
    assert creates(emulator) == 6, output_of(result)[-4000:]
    assert said(output_of(result), "is held") >= {"plug-keep"}, "the new runs failed too: held again"
    assert set(by_name(stack)) == names
    stack.destroy()
    assert live_jobs(emulator) == {} and by_name(stack) == {}
