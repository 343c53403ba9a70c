"""Record the ID only after the wait, on every path that records a job: the take-over of our own job
after a create that ran out of time waits again, and one that failed meanwhile is an error and rolled
back, as in a fresh create. Each stack holds the dynamic (`dyn-*`) and the plugin (`plug-*`) form."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from plugin_support import on_path, output_of

from pulumi_mltrain.emulator import defaults as d
from support import stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

BOTH = Path(__file__).parent / "programs" / "both_forms"
RESULT = "/v1/subscription/training/result"
NAMES = ("dyn-ok", "dyn-bad", "plug-ok", "plug-bad")


def both_forms(stack: Stack, platform: str, jobs: dict[str, Any], create_timeout: str | None = None) -> Stack:
    on_path(stack)
    stack.set_config_all({"resources": "[]", "jobs": json.dumps(jobs), "platform": platform,
                          **({"createTimeout": create_timeout} if create_timeout else {})})
    return stack


def by_name(stack: Stack) -> dict[str, dict[str, Any]]:
    """The stack's training jobs (both forms) by resource name."""
    return {r["urn"].rsplit("::", 1)[1]: r for r in stack.resources(":TrainingJob")}


def live_jobs(emulator: Any, platform: str) -> dict[str, str]:
    """Platform name -> ID of the jobs that are not on their way out."""
    state = emulator.admin.state()
    if platform == "alaya":
        return {str(t["name"]): str(t["id"]) for t in state["alaya"]["tasks"] if not t["deleting"]}
    return {str(j["metadata"]["name"]): str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"]
            if not j["deleting"]}


def resource_of_job(name: str) -> str:
    """The resource a job belongs to, from its autonamed name (`<resource>-<suffix>`)."""
    return name.rsplit("-", 1)[0]


def said(output: str, text: str) -> set[str]:
    """The resources whose error lines contain `text`."""
    return {resource_of_job(name) for line in output.splitlines() if text in line
            for name in re.findall(r"TrainingJob '([^']+)'", line)}


def run_resume(emulator: Any, stack: Stack, platform: str, finish: Callable[[], None], failed: str,
               deleted: str, done: tuple[str, str]) -> None:
    first = stack.up("--continue-on-error", check=False)
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    assert said(output, "was NOT deleted") == set(NAMES), output[-4000:]
    made = {resource_of_job(n): i for n, i in live_jobs(emulator, platform).items()}
    assert sorted(made) == sorted(NAMES), made
    held = by_name(stack)
    assert sorted(held) == ["plug-bad", "plug-ok"], "only the plugin records a partial create"
    assert all(r.get("initErrors") for r in held.values()), held

    # Still running: the take-over waits for `completed` again, and runs out of time again.
    again = stack.up("--continue-on-error", check=False)
    output = output_of(again)
    assert again.returncode != 0, output[-4000:]
    assert said(output, "was NOT deleted") == set(NAMES), output[-4000:]  # each says so again
    assert {resource_of_job(n): i for n, i in live_jobs(emulator, platform).items()} == made, "no new job"
    held = by_name(stack)
    assert sorted(held) == ["plug-bad", "plug-ok"] and all(r.get("initErrors") for r in held.values()), held

    # The ok jobs complete and the bad ones fail while nobody waits.
    finish()
    third = stack.up("--continue-on-error", check=False)
    output = output_of(third)
    assert third.returncode != 0, output[-4000:]
    assert said(output, f"ended {failed} before it was completed") == {"dyn-bad", "plug-bad"}, output[-4000:]
    assert said(output, deleted) == {"dyn-bad", "plug-bad"}, output[-4000:]
    held = by_name(stack)
    for name in ("dyn-ok", "plug-ok"):
        assert held[name]["id"] == made[name] and not held[name].get("initErrors"), held[name]
        assert held[name]["outputs"][done[0]] == done[1], "recorded once it completed"
    assert "dyn-bad" not in held, "a job that failed is not recorded as created"
    assert held["plug-bad"].get("initErrors"), "the plugin keeps only its partial record"
    left = {resource_of_job(n): i for n, i in live_jobs(emulator, platform).items()}
    assert left == {"dyn-ok": made["dyn-ok"], "plug-ok": made["plug-ok"]}, "the failed jobs were rolled back"

    refreshed = stack.refresh(check=False)
    assert refreshed.returncode == 0, output_of(refreshed)[-4000:]
    assert sorted(by_name(stack)) == ["dyn-ok", "plug-ok"], "refresh drops the partial record of the deleted job"

    stack.destroy()
    assert live_jobs(emulator, platform) == {} and by_name(stack) == {}


def test_alaya_take_over_waits_again(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.2, subscription_delay=0.2)
    job = stacks.alaya_job_args(wait_for="completed")
    stack = both_forms(stacks.alaya_stack(emulator, tmp_path, BOTH), "alaya", {"ok": job, "bad": job}, "4s")

    def finish() -> None:
        emulator.admin.set_settings(succeed_after=5, fail_task_names="-bad-")
        emulator.admin.advance(30)

    run_resume(emulator, stack, "alaya", finish, "FAILED", "It was deleted so that nothing is left behind",
               ("status", "SUCCEEDED"))


def test_modelarts_take_over_waits_again(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=600, delete_delay=0.2)
    job = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
           "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "wait_for": "completed"}
    stack = both_forms(stacks.modelarts_stack(emulator, tmp_path, BOTH), "modelarts", {"ok": job, "bad": job},
                       "4s")

    def finish() -> None:
        emulator.admin.set_settings(modelarts_fail_names="-bad-")
        emulator.admin.advance(700)

    run_resume(emulator, stack, "modelarts", finish, "Failed", "It was deleted so nothing is left behind",
               ("phase", "Completed"))


def test_an_unreadable_subscription_result_leaves_no_unknown_task(emulator: Any, tmp_path: Path) -> None:
    """The result call answers without `status` (for as long as the test runs, and before the task is
    made): each create finds its task by its owner mark and records it; none is left unknown."""
    emulator.admin.set_settings(subscription_delay=2, task_state_delay=0.2)
    job = stacks.alaya_job_args()
    stack = both_forms(stacks.alaya_stack(emulator, tmp_path, BOTH), "alaya", {"ok": job})
    emulator.admin.set_faults([{"method": "GET", "path": RESULT, "kind": "respond",
                                "body": {"status": 200, "message": "OK", "data": {"resultKey": "k"}}}])
    result = stack.up(check=False)
    output = output_of(result)
    emulator.admin.clear_faults()
    assert result.returncode == 0, output[-4000:]
    assert emulator.admin.requests()["faults"]["total"] >= 2, "the fault met both creates"
    emulator.admin.advance(30)  # anything a create set in motion has happened by now
    held = {name: r["id"] for name, r in by_name(stack).items()}
    assert sorted(held) == ["dyn-ok", "plug-ok"], held
    assert {resource_of_job(n): i for n, i in live_jobs(emulator, "alaya").items()} == held, \
        "the platform's tasks and the state agree"
    stack.destroy()
    assert live_jobs(emulator, "alaya") == {}
