"""Runs are kept as records through replace and destroy, in both forms and on both platforms: a sweep
whose trigger changes once, then `pulumi destroy`, leaves each run's job on the emulator, stopped and
marked as this stack's and resource's, and `mltrain-runs history` lists them with their run reasons.
`keep_runs=1` leaves one record per resource, `keep_runs=0` deletes as 0.2 did. The stack sets no
`mltrain:keepRuns`, so the default (5) is what keeps the others. Pruning beyond `keep_runs` among several
records (three runs, `keep_runs=1`) is the provider's: tests/inprocess/test_run_records.py
(`test_keep_runs_prunes_the_oldest_records`, `test_history_lists_the_runs_and_prune_keeps_the_newest`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from plugin_support import both_forms, both_platforms_stack, modelarts_job_args

from pulumi_mltrain.ownership import resource_of
from support import stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

# job name -> its keep_runs (None: the provider's default)
KEEP: dict[str, int | None] = {"kept": None, "one": 1, "none": 0}
ENDED = {"alaya": {"STOPPED"}, "modelarts": {"Terminated"}}


def declared() -> dict[str, dict[str, Any]]:
    """Both platforms' jobs, each under its keep_runs (job names are unique across platforms)."""
    def keep(value: int | None) -> dict[str, Any]:
        return {} if value is None else {"keep_runs": value}

    return {"alaya": {f"t-{n}": stacks.alaya_job_args(wait_for="running", **keep(k)) for n, k in KEEP.items()},
            "modelarts": {f"m-{n}": modelarts_job_args(wait_for="running", **keep(k)) for n, k in KEEP.items()}}


def jobs_by_resource(emulator: Any) -> dict[str, list[dict[str, Any]]]:
    """Resource name -> the jobs the emulator holds (not on their way out) that carry its mark, with
    their platform and state."""
    state = emulator.admin.state()
    out: dict[str, list[dict[str, Any]]] = {}
    for task in state["alaya"]["tasks"]:
        mark = (task.get("env") or {}).get("MLTRAIN_OWNER")
        if mark and not task["deleting"]:
            out.setdefault(resource_of(mark.split(" ", 1)[1]), []).append(
                {"platform": "alaya", "id": task["id"], "state": task["status"]})
    for job in state["modelarts"]["jobs"]:
        tags = {t["key"]: t["value"] for t in job.get("tags") or []}
        if "mltrain-owner-urn" in tags and not job["deleting"]:
            out.setdefault(resource_of(tags["mltrain-owner-urn"]), []).append(
                {"platform": "modelarts", "id": job["metadata"]["id"], "state": job["status"]["phase"],
                 "record": "mltrain-record-kept" in tags})
    return out


def history(stack: Stack, *args: str) -> list[dict[str, Any]]:
    """`mltrain-runs history --json` in the stack's folder, with its environment."""
    env = {**os.environ, **stack.env()}
    done = subprocess.run([sys.executable, "-m", "pulumi_mltrain.cli.runs", "history", "--json",
                           "--config-stack", stack.name, *args], cwd=stack.workdir, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


def test_a_sweep_keeps_its_runs_as_records(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.1, subscription_delay=0.1, modelarts_phase_delay=0.1,
                                modelarts_run_seconds=3600, delete_delay=0.1)
    stack = both_platforms_stack(emulator, tmp_path)
    stack.run("config", "rm", "mltrain:keepRuns", "--stack", stack.name)  # the provider's default
    jobs = declared()
    names = [n for named in jobs.values() for n in named]
    ids: dict[str, list[str]] = {}
    for trial in ("v1", "v2"):
        both_forms(stack, jobs, triggers=dict.fromkeys(names, trial)).up()
        for resource in stack.resources(":TrainingJob"):
            ids.setdefault(resource["urn"].rsplit("::", 1)[1], []).append(str(resource["id"]))
    stack.destroy()

    held = jobs_by_resource(emulator)
    for form in ("dyn", "plug"):
        for name in names:
            resource, platform = f"{form}-{name}", "alaya" if name.startswith("t-") else "modelarts"
            runs = ids[resource]
            assert len(set(runs)) == 2, (resource, runs)
            kept = {j["id"]: j for j in held.get(resource, [])}
            keep = KEEP[name.split("-", 1)[1]]
            expected = runs if keep is None else runs[len(runs) - keep:] if keep else []
            assert sorted(kept) == sorted(expected), (resource, keep, runs, kept)
            assert all(j["state"] in ENDED[platform] for j in kept.values()), (resource, kept)
            assert all(j.get("record", True) for j in kept.values()), (resource, kept)

    listed = history(stack)
    by_id = {row["job_id"]: row for row in listed}
    for form in ("dyn", "plug"):
        for name in ("t-kept", "m-kept"):
            runs = ids[f"{form}-{name}"]
            rows = [by_id[i] for i in runs]
            assert all(r["resource"] == f"{form}-{name}" and r["stack"].endswith("/test") for r in rows), rows
            assert all(r["record"] for r in rows), rows
            reasons = [r["run_reason"] or "" for r in rows]
            assert reasons[0].startswith("first run"), reasons
            assert all(r.startswith("new run") for r in reasons[1:]), reasons
            assert [r["replaced_by"] for r in rows] == [*runs[1:], None], rows
            assert all(r["start"] and r["end"] and r["logs"] for r in rows), rows
    assert [r["job_id"] for r in history(stack, "--resource", "dyn-t-kept")] == ids["dyn-t-kept"]
