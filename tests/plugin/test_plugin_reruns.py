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

from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]
CREATE = "POST /v1/subscription/training/create"


def creates(emulator: Any) -> int:
    return int(emulator.admin.requests()["endpoints"].get(CREATE, 0))


def test_alaya_reruns_are_explicit(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.1, succeed_after=0.5)
    job = stacks.alaya_job_args(wait_for="completed", description="first")
    stack = both_forms(stacks.alaya_stack(emulator, tmp_path, BOTH), "alaya", {"a": job, "b": job})
    stack.set_config("triggers", json.dumps({"a": "trial-1", "b": "trial-1"}))
    stack.up()
    first = {resource_of_job(n): i for n, i in live_jobs(emulator, "alaya").items()}
    assert sorted(first) == ["dyn-a", "dyn-b", "plug-a", "plug-b"], first

    # A new trigger value for `a` only: `a` runs again in both forms, `b` keeps its run.
    stack.set_config("triggers", json.dumps({"a": "trial-2", "b": "trial-1"}))
    stack.up()
    second = {resource_of_job(n): i for n, i in live_jobs(emulator, "alaya").items()}
    assert {n for n in second if second[n] != first.get(n)} == {"dyn-a", "plug-a"}, (first, second)
    assert {n: r["id"] for n, r in by_name(stack).items()} == second

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
    refreshed = stack.preview_json("--refresh")
    assert all(s["op"] in ("same", "refresh") for s in refreshed["steps"]
               if s["urn"].endswith(("-a", "-b"))), "no drift after a refresh"
    stack.destroy()
    assert live_jobs(emulator, "alaya") == {}
