"""Re-runs are explicit: a `replacement_trigger` change re-runs exactly the jobs whose trigger changed,
and a description change of a finished Alaya task is recorded without a new run (no create call).
Each stack holds the dynamic (`dyn-*`) and the plugin (`plug-*`) form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_support import output_of
from test_plugin_resume import BOTH, both_forms, by_name, live_jobs, resource_of_job

from pulumi_mltrain import runs
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]
CREATE = "POST /v1/subscription/training/create"


def creates(emulator: Any) -> int:
    return int(emulator.admin.requests()["endpoints"].get(CREATE, 0))


def reasons(stack: Any) -> dict[str, str]:
    """resource name -> its `run_reason` in the state."""
    return {n: r["outputs"].get("run_reason") for n, r in by_name(stack).items()}


def new_runs(preview: dict[str, Any]) -> dict[str, tuple[str, list[str]]]:
    """resource name -> (the `run_reason` the preview shows, the replace reasons) of each job it replaces."""
    return {s["urn"].rsplit("::", 1)[1]: (s["newState"]["inputs"].get("run_reason"), s.get("replaceReasons"))
            for s in preview["steps"] if s["op"] in ("replace", "create-replacement")}


def test_alaya_reruns_are_explicit(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.1, succeed_after=0.5)
    job = stacks.alaya_job_args(wait_for="completed", description="first")
    stack = both_forms(stacks.alaya_stack(emulator, tmp_path, BOTH), "alaya", {"a": job, "b": job})
    stack.set_config("triggers", json.dumps({"a": "trial-1", "b": "trial-1"}))
    stack.up()
    first = {resource_of_job(n): i for n, i in live_jobs(emulator, "alaya").items()}
    assert sorted(first) == ["dyn-a", "dyn-b", "plug-a", "plug-b"], first
    costs = runs.costs(by_name(stack)["dyn-a"]["outputs"])
    assert costs.startswith(" (8 GPUs, ") and costs.endswith("/h)"), costs  # PRD-TRAIN-2: 4 GPUs x 2 nodes
    assert reasons(stack) == dict.fromkeys(first, "first run" + costs)

    # A new trigger value for `a` only: `a` runs again in both forms, `b` keeps its run.
    stack.set_config("triggers", json.dumps({"a": "trial-2", "b": "trial-1"}))
    forced = runs.FORCED + costs
    assert {n: r for n, (r, _) in new_runs(stack.preview_json()).items()} == {"dyn-a": forced, "plug-a": forced}
    stack.up()
    second = {resource_of_job(n): i for n, i in live_jobs(emulator, "alaya").items()}
    assert {n for n in second if second[n] != first.get(n)} == {"dyn-a", "plug-a"}, (first, second)
    assert {n: r["id"] for n, r in by_name(stack).items()} == second
    assert reasons(stack) == {"dyn-a": forced, "plug-a": forced,
                              "dyn-b": "first run" + costs, "plug-b": "first run" + costs}

    # A new image for `a` would start a new run: the preview says so, naming the field, with GPUs and cost.
    image = "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu"
    stack.set_config("jobs", json.dumps({"a": {**job, "image": image}, "b": job}))
    said = "new run: changing image replaces the training task" + costs
    assert {n: (r, sorted(w or [])) for n, (r, w) in new_runs(stack.preview_json()).items()} == {
        "dyn-a": (said, ["image"]), "plug-a": (said, ["image"])}
    stack.set_config("jobs", json.dumps({"a": job, "b": job}))
    unchanged = stack.preview_json()
    assert {s["op"] for s in unchanged["steps"]} == {"same"}, unchanged["steps"]

    # A description change of the finished tasks: an update, never a new run.
    made = creates(emulator)
    stack.set_config("jobs", json.dumps({k: {**job, "description": "second"} for k in ("a", "b")}))
    preview = stack.preview_json()
    ops = {s["urn"].rsplit("::", 1)[1]: s["op"] for s in preview["steps"] if s["urn"].endswith(("-a", "-b"))}
    assert ops == dict.fromkeys(second, "update"), ops
    result = stack.up()
    assert creates(emulator) == made, "no create call"
    assert "description recorded in the state only" in output_of(result)
    held = by_name(stack)
    assert {n: r["id"] for n, r in held.items()} == second
    assert all(r["outputs"]["description"] == "second" for r in held.values()), held
    before = {n: r["outputs"] for n, r in held.items()}
    stack.refresh()
    after = {n: r["outputs"] for n, r in by_name(stack).items()}
    changed = {n: sorted(k for k in {*before[n], *after[n]} if before[n].get(k) != after[n].get(k)) for n in after}
    # result_key (the create's subscription) is known to the create only; a refresh changes nothing else.
    assert all(set(keys) <= {"result_key"} for keys in changed.values()), changed
    assert reasons(stack)["dyn-b"] == "first run" + costs
    refreshed = stack.preview_json("--refresh")
    assert all(s["op"] in ("same", "refresh") for s in refreshed["steps"]
               if s["urn"].endswith(("-a", "-b"))), "no drift after a refresh"

    # stopped=True on finished tasks: an update in place that leaves them as they are (nothing to stop).
    stack.set_config("jobs", json.dumps({k: {**job, "description": "second", "stopped": True} for k in ("a", "b")}))
    stack.up()
    held = by_name(stack)
    assert creates(emulator) == made and {n: r["id"] for n, r in held.items()} == second
    assert all(r["outputs"]["stopped"] is True and r["outputs"]["status"] == "SUCCEEDED" for r in held.values()), held
    stack.destroy()
    assert live_jobs(emulator, "alaya") == {}
