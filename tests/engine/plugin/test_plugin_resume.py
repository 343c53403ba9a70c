"""Record the ID only after the wait, on every path that records a job: the take-over of our own job
after a create that ran out of time waits again, and one that failed meanwhile is an error and rolled
back, as in a fresh create. One stack holds both platforms' jobs in the dynamic (`dyn-*`) and the plugin
(`plug-*`) form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plugin_support import both_forms, both_platforms_stack, by_name, by_resource, modelarts_job_args, output_of, said

from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]

# Per platform: the jobs, how a failed one ends, and what its rollback says.
ALAYA = ("ok", "bad")
MODELARTS = ("ma-ok", "ma-bad")
NAMES = sorted(f"{form}-{job}" for form in ("dyn", "plug") for job in (*ALAYA, *MODELARTS))
ENDED = {"alaya": "ended FAILED before it was completed", "modelarts": "ended Failed before it was completed"}
# What a roll-back says, on either platform (lifecycle/rollback.py).
DELETED = "It was deleted so that nothing is left behind"


def test_take_over_waits_again(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.2, subscription_delay=0.2, modelarts_phase_delay=0.2,
                                modelarts_run_seconds=600, delete_delay=0.2)
    alaya = stacks.alaya_job_args(wait_for="completed")
    modelarts = modelarts_job_args(wait_for="completed")
    stack = both_forms(both_platforms_stack(emulator, tmp_path),
                       {"alaya": dict.fromkeys(ALAYA, alaya), "modelarts": dict.fromkeys(MODELARTS, modelarts)},
                       "4s")
    plugin_names = [n for n in NAMES if n.startswith("plug-")]

    first = stack.up("--continue-on-error", check=False)
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    assert said(output, "was NOT deleted") == set(NAMES), output[-4000:]
    made = by_resource(emulator)
    assert sorted(made) == NAMES, made
    held = by_name(stack)
    assert sorted(held) == plugin_names, "only the plugin records a partial create"
    assert all(r.get("initErrors") for r in held.values()), held

    # Still running: the take-over waits for `completed` again, and runs out of time again.
    again = stack.up("--continue-on-error", check=False)
    output = output_of(again)
    assert again.returncode != 0, output[-4000:]
    assert said(output, "was NOT deleted") == set(NAMES), output[-4000:]  # each says so again
    assert by_resource(emulator) == made, "no new job"
    held = by_name(stack)
    assert sorted(held) == plugin_names and all(r.get("initErrors") for r in held.values()), held

    # The ok jobs complete and the bad ones fail while nobody waits.
    emulator.admin.set_settings(succeed_after=5, fail_task_names="-bad-", modelarts_fail_names="-bad-")
    emulator.admin.advance(700)
    third = stack.up("--continue-on-error", check=False)
    output = output_of(third)
    assert third.returncode != 0, output[-4000:]
    for platform, bad in (("alaya", "bad"), ("modelarts", "ma-bad")):
        assert said(output, ENDED[platform]) == {f"dyn-{bad}", f"plug-{bad}"}, output[-4000:]
    assert said(output, DELETED) == {"dyn-bad", "plug-bad", "dyn-ma-bad", "plug-ma-bad"}, output[-4000:]
    held = by_name(stack)
    for name, (key, value) in {"ok": ("status", "SUCCEEDED"), "ma-ok": ("phase", "Completed")}.items():
        for resource in (f"dyn-{name}", f"plug-{name}"):
            assert held[resource]["id"] == made[resource] and not held[resource].get("initErrors"), held[resource]
            assert held[resource]["outputs"][key] == value, "recorded once it completed"
    assert "dyn-bad" not in held and "dyn-ma-bad" not in held, "a job that failed is not recorded as created"
    assert held["plug-bad"].get("initErrors") and held["plug-ma-bad"].get("initErrors"), \
        "the plugin keeps only its partial record"
    ok = ["dyn-ok", "plug-ok", "dyn-ma-ok", "plug-ma-ok"]
    assert by_resource(emulator) == {n: made[n] for n in ok}, "the failed jobs were rolled back"

    refreshed = stack.refresh(check=False)
    assert refreshed.returncode == 0, output_of(refreshed)[-4000:]
    assert sorted(by_name(stack)) == sorted(ok), "refresh drops the partial record of the deleted job"
