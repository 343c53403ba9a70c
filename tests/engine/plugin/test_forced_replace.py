"""A forced replace never records an object it deletes: a changed replacement_trigger, then
`pulumi up --replace`, of every resource type in both forms. The dynamic resources delete first (their
program side says so); the plugin's are created first, as in any program that does not ask otherwise,
and each create removes the old object it would otherwise take over. After each: one live object per
resource, the one the state records; after the second, a refresh that changes nothing (the records of
both replaces come from the same creates; that a refresh keeps a trigger's run_reason is
tests/inprocess/test_runs.py::test_run_reason_says_why_each_run_exists). A replaced ModelArts job with a
checkpoint resumes from the job it replaces in either order: its `resumed_from` names it. Every job's
`run_reason` says its run is a new one, a dynamic job the engine deleted first because its mount or
algorithm was replaced too (in-process, with the record it keeps: tests/inprocess/test_run_records.py).
A `--replace` records `first run` for a job whose dependencies stay (docs/runs.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_support import on_path, output_of, summary

from mltrain_emulator import defaults as d
from support import stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAM = Path(__file__).parent / "programs" / "replace_all"
ARGS = {
    "mount": {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity", "file_directory": "datasets",
              "mount_path": "/root/nas/datasets"},
    "task": stacks.alaya_job_args(wait_for="running"),
    "algo": {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py", "engine_name": d.ENGINE_PYTORCH[0],
             "engine_version": d.ENGINE_PYTORCH[1]},
    "job": {"flavor_id": d.FLAVOR_CPU_8U, "wait_for": "running", "checkpoint": {"obs_url": "obs://b/ckpt/"}},
}
OBJECTS = ("task", "algo", "job")  # the resources with an object of their own (a mount is part of a task)


def live(emulator: Any) -> dict[str, list[str]]:
    """Kind -> IDs of the objects the platforms hold that are not on their way out."""
    state = emulator.admin.state()
    return {"task": sorted(str(t["id"]) for t in state["alaya"]["tasks"] if not t["deleting"]),
            "algo": sorted(str(a["metadata"]["id"]) for a in state["modelarts"]["algorithms"]),
            "job": sorted(str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"] if not j["deleting"])}


def recorded(stack: Stack) -> dict[str, Any]:
    """Resource name -> its ID in the state."""
    named = {r["urn"].rsplit("::", 1)[1]: r.get("id") for r in stack.export()["deployment"]["resources"]}
    return {name: object_id for name, object_id in named.items() if name.startswith(("dyn-", "plug-"))}


def resumed_from(stack: Stack) -> dict[str, Any]:
    """The ModelArts jobs' `resumed_from` in the state (the plugin's by its schema name), by resource name."""
    return {r["urn"].rsplit("::", 1)[1]: r["outputs"].get("resumed_from", r["outputs"].get("resumedFrom"))
            for r in stack.export()["deployment"]["resources"] if r["urn"].endswith(("::dyn-job", "::plug-job"))}


def run_reasons(stack: Stack) -> dict[str, Any]:
    """The training jobs' `run_reason` in the state (the plugin's by its schema name), by resource name."""
    return {r["urn"].rsplit("::", 1)[1]: r["outputs"].get("run_reason", r["outputs"].get("runReason"))
            for r in stack.export()["deployment"]["resources"] if r["urn"].endswith(("-task", "-job"))}


def agree(emulator: Any, stack: Stack) -> dict[str, str]:
    ids = recorded(stack)
    platform = live(emulator)
    for kind in OBJECTS:
        assert platform[kind] == sorted([ids[f"dyn-{kind}"], ids[f"plug-{kind}"]]), (kind, platform, ids)
    return ids


def test_a_trigger_and_replace_of_every_type_record_live_objects(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.2, subscription_delay=0.2, modelarts_phase_delay=0.2,
                                modelarts_run_seconds=600, delete_delay=0.2)
    stack = on_path(stacks.both_platforms_stack(emulator, tmp_path, PROGRAM))
    stack.set_config_all({"trigger": "1", "args": json.dumps(ARGS)})
    stack.up()
    first = agree(emulator, stack)

    stack.set_config("trigger", "2")
    result = stack.up()
    assert summary(result).get("replaced") == 8, output_of(result)[-4000:]
    second = agree(emulator, stack)
    assert all(second[name] != first[name] for name in second if not name.endswith("mount")), (first, second)
    assert "is not recorded as it: it is the one a replacement created first replaces" in output_of(result), \
        "the plugin's old objects were deleted by their replacements' creates"
    assert resumed_from(stack) == {"dyn-job": first["dyn-job"], "plug-job": first["plug-job"]}, \
        "deleted first (the dynamic job: before its algorithm's replace) or created first, the new run names " \
        "the one it replaces"
    reasons = run_reasons(stack)
    assert len(reasons) == 4 and all(str(r).startswith("new run:") for r in reasons.values()), \
        f"every job's run is a new one, those the engine deleted first for their replaced dependency too: {reasons}"

    urns = [r["urn"] for r in stack.export()["deployment"]["resources"]
            if r["urn"].rsplit("::", 1)[1].startswith(("dyn-", "plug-"))]
    result = stack.up(*[arg for urn in urns for arg in ("--replace", urn)])
    assert summary(result).get("replaced") == 8, output_of(result)[-4000:]
    (tmp_path / "replace.log").write_text(output_of(result))
    third = agree(emulator, stack)
    assert all(third[name] != second[name] for name in third if not name.endswith("mount")), (second, third)
    assert resumed_from(stack) == {"dyn-job": second["dyn-job"], "plug-job": second["plug-job"]}
    reasons = run_reasons(stack)
    assert str(reasons["dyn-task"]).startswith("new run: changing storage_mounts replaces") and \
        str(reasons["dyn-job"]).startswith("new run: changing algorithm_id replaces"), \
        f"the dynamic jobs were deleted first for their replaced mount and algorithm: {reasons}"
    stack.refresh("--expect-no-changes")
    stack.destroy()
    assert live(emulator) == {"task": [], "algo": [], "job": []}
