"""A create that runs out of time records its job as unfinished, and the next `up` goes on waiting for
it (no new job): again out of time, again unfinished; once done, recorded; one that failed meanwhile is a
failed run, held as in a fresh create (its job kept as the record). One stack holds both platforms' jobs in the dynamic
(`dyn-*`) and the plugin (`plug-*`) form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plugin_support import both_forms, both_platforms_stack, by_name, by_resource, modelarts_job_args, output_of, said

from pulumi_mltrain.ownership import FAILED_KEY, UNFINISHED_KEY
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]

# Per platform: the jobs, and how a failed one ends.
ALAYA = ("ok", "bad")
MODELARTS = ("ma-ok", "ma-bad")
NAMES = sorted(f"{form}-{job}" for form in ("dyn", "plug") for job in (*ALAYA, *MODELARTS))
ENDED = {"alaya": "ended FAILED before it was completed", "modelarts": "ended Failed before it was completed"}


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
    # The dynamic program ends at the first error it raises: at least one dynamic job says so.
    unfinished = said(output, "recorded as unfinished")
    assert set(plugin_names) <= unfinished and unfinished - set(plugin_names), output[-4000:]
    made = by_resource(emulator)
    assert sorted(made) == NAMES, made
    held = by_name(stack)
    assert sorted(held) == NAMES, "every job is recorded, unfinished"
    assert all(held[n].get("initErrors") for n in plugin_names), held
    assert all(held[n]["outputs"].get(UNFINISHED_KEY) for n in NAMES if n.startswith("dyn-")), held

    # Still running: the next up goes on waiting for `completed`, and runs out of time again.
    again = stack.up("--continue-on-error", check=False)
    output = output_of(again)
    assert again.returncode != 0, output[-4000:]
    assert set(plugin_names) <= said(output, "recorded as unfinished"), output[-4000:]  # each says so again
    assert by_resource(emulator) == made, "no new job"
    held = by_name(stack)
    assert {n: r["id"] for n, r in held.items()} == made and all(held[n].get("initErrors") for n in plugin_names)

    # The ok jobs complete and the bad ones fail while nobody waits.
    emulator.admin.set_settings(succeed_after=5, fail_task_names="-bad-", modelarts_fail_names="-bad-")
    emulator.admin.advance(700)
    third = stack.up("--continue-on-error", check=False)
    output = output_of(third)
    assert third.returncode != 0, output[-4000:]
    for platform, bad in (("alaya", "bad"), ("modelarts", "ma-bad")):
        assert f"plug-{bad}" in said(output, ENDED[platform]), output[-4000:]
    # The dynamic program ends at the first failure it raises: at least one dynamic job says so.
    assert said(output, "is held") & {"dyn-bad", "dyn-ma-bad"}, output[-4000:]
    assert {"plug-bad", "plug-ma-bad"} <= said(output, "is held"), output[-4000:]
    held = by_name(stack)
    for name, (key, value) in {"ok": ("status", "SUCCEEDED"), "ma-ok": ("phase", "Completed")}.items():
        for resource in (f"dyn-{name}", f"plug-{name}"):
            assert held[resource]["id"] == made[resource] and not held[resource].get("initErrors"), held[resource]
            assert held[resource]["outputs"][key] == value, "recorded once it completed"
    for resource in ("dyn-bad", "dyn-ma-bad"):
        assert held[resource]["id"] == made[resource] and held[resource]["outputs"][FAILED_KEY], held[resource]
    assert held["plug-bad"].get("initErrors") and held["plug-ma-bad"].get("initErrors"), \
        "the plugin records the held failure as a partially created resource"
    assert by_resource(emulator) == made, "the failed jobs stay, ended, as their runs' records"

    refreshed = stack.refresh(check=False)
    assert refreshed.returncode == 0, output_of(refreshed)[-4000:]
    assert sorted(by_name(stack)) == NAMES, "refresh keeps the held records"
