"""`on_failure="keep"`: a job that fails during the create's wait stays on the platform and in the
state with its status and reason, `up` still fails, its logs stay readable through the function, the
next `up` replaces it and `destroy` removes it. Each stack holds the dynamic and the plugin form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plugin_support import output_of
from test_plugin_resume import BOTH, both_forms, by_name, live_jobs, resource_of_job, said

from pulumi_mltrain import runs
from pulumi_mltrain.emulator import defaults as d
from pulumi_mltrain.ownership import FAILED_KEY
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def test_modelarts_kept_failure_is_recorded_readable_and_replaced(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2,
                                modelarts_fail_names="-bad-")
    job = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
           "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "wait_for": "completed",
           "on_failure": "keep"}
    stack = both_forms(stacks.modelarts_stack(emulator, tmp_path, BOTH), "modelarts", {"bad": job})

    first = stack.up("--continue-on-error", check=False)  # each form's failure is seen, whichever ends first
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    assert said(output, "ended Failed before it was completed") == {"dyn-bad", "plug-bad"}, output[-4000:]
    assert said(output, 'It was kept (on_failure="keep")') == {"dyn-bad", "plug-bad"}, output[-4000:]
    kept = {resource_of_job(n): i for n, i in live_jobs(emulator, "modelarts").items()}
    assert sorted(kept) == ["dyn-bad", "plug-bad"], "both jobs stay on the platform"
    held = by_name(stack)
    assert sorted(held) == ["dyn-bad", "plug-bad"], "and in the state"
    for name, resource in held.items():
        outs = resource["outputs"]
        assert resource["id"] == kept[name] and outs["phase"] == "Failed", outs
        assert outs["reason"] and outs[FAILED_KEY].startswith("TrainingJob "), outs

    stack.set_config("logsOf", f'["{kept["dyn-bad"]}", "{kept["plug-bad"]}"]')
    preview = stack.preview(check=False)
    output = output_of(preview)
    assert preview.returncode == 0, output[-4000:]
    for job_id in kept.values():
        assert f"log of {job_id} worker-0: " in output and "emulated failure" in output, output[-4000:]
    assert output.count("replace") >= 2, output[-4000:]

    stack.set_config("logsOf", "[]")
    emulator.admin.set_settings(modelarts_fail_names="^$")
    stack.up()
    held = by_name(stack)
    again = {resource_of_job(n): i for n, i in live_jobs(emulator, "modelarts").items()}
    assert sorted(again) == ["dyn-bad", "plug-bad"] and not set(again.values()) & set(kept.values()), \
        "the next up replaced each kept job"
    for name, resource in held.items():
        assert resource["id"] == again[name] and resource["outputs"]["phase"] == "Completed", resource
        assert FAILED_KEY not in resource["outputs"] and not resource.get("initErrors"), resource

    stack.destroy()
    assert live_jobs(emulator, "modelarts") == {} and by_name(stack) == {}


def test_alaya_kept_failure_is_recorded_and_replaced(emulator: Any, tmp_path: Path) -> None:
    """Alaya NeW has no log API: the kept task's status and reason are what is left to debug it."""
    emulator.admin.set_settings(task_state_delay=0.2, succeed_after=0.8, delete_delay=0.2, fail_task_names="-bad-")
    job = stacks.alaya_job_args(wait_for="completed", on_failure="keep")
    stack = both_forms(stacks.alaya_stack(emulator, tmp_path, BOTH), "alaya", {"bad": job})

    first = stack.up("--continue-on-error", check=False)  # each form's failure is seen, whichever ends first
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    assert said(output, "ended FAILED before it was completed") == {"dyn-bad", "plug-bad"}, output[-4000:]
    assert said(output, 'It was kept (on_failure="keep")') == {"dyn-bad", "plug-bad"}, output[-4000:]
    kept = {resource_of_job(n): i for n, i in live_jobs(emulator, "alaya").items()}
    assert sorted(kept) == ["dyn-bad", "plug-bad"], "both tasks stay on the platform"
    remote = {str(t["id"]): t for t in emulator.admin.state()["alaya"]["tasks"]}
    assert all(remote[i]["status"] == "FAILED" for i in kept.values()), remote
    held = by_name(stack)
    assert sorted(held) == ["dyn-bad", "plug-bad"], "and in the state"
    for name, resource in held.items():
        outs = resource["outputs"]
        assert resource["id"] == kept[name] and outs["status"] == "FAILED", outs
        assert outs["reason"] and outs[FAILED_KEY].startswith("TrainingJob "), outs
        assert outs["run_reason"] == "first run" + runs.costs(outs), outs

    emulator.admin.set_settings(fail_task_names="^$")
    stack.up()
    held = by_name(stack)
    again = {resource_of_job(n): i for n, i in live_jobs(emulator, "alaya").items()}
    assert sorted(again) == ["dyn-bad", "plug-bad"] and not set(again.values()) & set(kept.values()), \
        "the next up replaced each kept task"
    for name, resource in held.items():
        outs = resource["outputs"]
        assert resource["id"] == again[name] and outs["status"] == "SUCCEEDED", resource
        assert FAILED_KEY not in outs and not resource.get("initErrors"), resource
        assert outs["run_reason"] == runs.FORCED + runs.costs(outs), outs

    stack.destroy()
    assert live_jobs(emulator, "alaya") == {} and by_name(stack) == {}
    assert not emulator.admin.state()["alaya"]["tasks"] or all(
        t["deleting"] for t in emulator.admin.state()["alaya"]["tasks"]), "destroy leaves nothing"
