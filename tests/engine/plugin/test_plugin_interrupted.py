"""An interrupted `pulumi up` on the ordinary file backend, for both platforms and both forms: the CLI
and its plugins killed (SIGKILL to the process group) while every create waits for its job to run,
then `pulumi cancel --yes` and `pulumi up`, and last the `pulumi refresh --clear-pending-creates` that
docs/team-state.md tells users to run (before or after the up). One stack holds an Alaya NeW and a
ModelArts training job in the dynamic (`dyn-*`) and the plugin (`plug-*`) form.

What the engine (v3.274.1) does with the pending creates: the killed run leaves the stack's lock and,
in its last saved state, a pending `creating` operation for each of the four resources and none of
them as a resource (the plugin's resources alike: the killed run never got a partial create back).
`pulumi up` after `pulumi cancel` runs the four creates again, whose provider finds each resource's
own job by name and owner mark, unrecorded, and deletes it before it makes the new one (a create never
takes an object over by its mark: that object could be the one a replacement replaces; see
lifecycle/takeover.py), so it alone ends with one job per resource, and none unrecorded; but it does not
clear the pending creates: it warns of them ("Attempting to deploy or update resources
with 4 pending operations from previous deployment") and copies every pending CREATE into the state
it writes, on every later update, since the engine leaves those to the user. A non-interactive
`pulumi refresh --clear-pending-creates` removes them (an interactive `pulumi refresh` asks about
each); so the recovery ends with a refresh with that flag.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path
from typing import Any

import pytest
from plugin_support import (
    PLUGIN,
    both_forms,
    both_platforms_stack,
    by_name,
    by_resource,
    live_jobs,
    modelarts_job_args,
    output_of,
    resource_of_job,
)

from support import stacks
from support.interrupted import (
    command_line,
    kill_up,
    plugins_of,
    start_up,
    wait_for_plugins_to_exit,
    wait_while_running,
)

pytestmark = [pytest.mark.engine, pytest.mark.slow]

ALAYA, MODELARTS = "run", "ma-run"
NAMES = sorted(f"{form}-{job}" for form in ("dyn", "plug") for job in (ALAYA, MODELARTS))
CREATES = {"alaya": "POST /v1/subscription/training/create", "modelarts": "POST /v2/{project_id}/training-jobs"}
# Emulator seconds of each step before a job runs (Alaya NeW: QUEUED, STARTING; ModelArts: Creating,
# Pending): the creates wait for `running` until the test advances the clock.
QUEUED_FOR = 900.0
# What the provider says when it finds the resource's own job from the interrupted run, unrecorded.
CLEARED = re.compile(r"(?:task|training job) (\S+) carries this resource's owner mark but is not recorded as it")


def pending_creates(stack: Any) -> list[str]:
    """Resource names of the state's pending `creating` operations."""
    operations = stack.export()["deployment"].get("pending_operations") or []
    return sorted(op["resource"]["urn"].rsplit("::", 1)[1] for op in operations if op["type"] == "creating")


def cleared(output: str) -> set[str]:
    """The unrecorded jobs the provider said it deletes before the creates."""
    return set(CLEARED.findall(output))


def test_killed_up_then_cancel_and_up_keeps_one_job_per_resource(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=QUEUED_FOR, modelarts_phase_delay=QUEUED_FOR,
                                modelarts_run_seconds=20 * QUEUED_FOR, delete_delay=0.2)
    stack = both_forms(both_platforms_stack(emulator, tmp_path),
                       {"alaya": {ALAYA: stacks.alaya_job_args(wait_for="running")},
                        "modelarts": {MODELARTS: modelarts_job_args(wait_for="running")}})

    log = tmp_path / "killed-up.log"
    first = start_up(stack, log)
    try:
        # Every create has made its job (an Alaya NeW subscription resolves at once) and waits for it to run.
        wait_while_running(first, log, lambda: sorted(by_resource(emulator)) == NAMES, "all four jobs were made")
        plugins, go_hosts = plugins_of(first)
        assert any(arg.endswith(PLUGIN.name) for pid in plugins for arg in command_line(pid)), \
            "the native plugin runs"
    finally:
        kill_up(first)
    wait_for_plugins_to_exit(plugins, go_hosts)

    made = by_resource(emulator)
    assert sorted(made) == NAMES, made
    state = emulator.admin.state()
    assert {t["status"] for t in state["alaya"]["tasks"]} == {"QUEUED"}, "killed while the creates waited"
    assert {j["status"]["phase"] for j in state["modelarts"]["jobs"]} == {"Creating"}, state["modelarts"]["jobs"]
    assert by_name(stack) == {}, "the killed run recorded none of the jobs"
    assert pending_creates(stack) == NAMES, "the engine recorded each create it had begun as pending"

    # The jobs run while nobody waits for them.
    emulator.admin.advance(2 * QUEUED_FOR + 60)
    assert sorted(live_jobs(emulator).values()) == sorted(made.values()), "the clock made no new job"
    state = emulator.admin.state()
    assert {t["status"] for t in state["alaya"]["tasks"]} == {"RUNNING"}
    assert {j["status"]["phase"] for j in state["modelarts"]["jobs"]} == {"Running"}

    locked = stack.up(check=False)
    assert locked.returncode != 0 and "pulumi cancel" in output_of(locked), output_of(locked)[-4000:]

    stack.run("cancel", "--yes")
    emulator.admin.set_settings(task_state_delay=0.2, modelarts_phase_delay=0.2)  # the new jobs run at once
    again = stack.up()
    output = output_of(again)
    held = by_name(stack)
    assert sorted(held) == NAMES, held
    for name in NAMES:
        assert held[name]["id"] != made[name], (name, held[name]["id"], made[name])
        assert not held[name].get("initErrors"), held[name]
    assert by_resource(emulator) == {name: held[name]["id"] for name in NAMES}, \
        "exactly one job per resource, the one the state records: the killed run's were deleted first"
    assert cleared(output) == set(made.values()), output[-6000:]
    counts = emulator.admin.requests()["endpoints"]
    assert {p: counts.get(c, 0) for p, c in CREATES.items()} == {"alaya": 4, "modelarts": 4}, \
        "one create call per resource in each run"
    posted = emulator.admin.state()["alaya"]["subscriptions"]
    subscriptions = collections.Counter(resource_of_job(s["name"]) for s in posted)
    assert subscriptions == {f"dyn-{ALAYA}": 2, f"plug-{ALAYA}": 2}, subscriptions
    assert pending_creates(stack) == NAMES, "up leaves the pending creates to the user"
    stack.refresh("--clear-pending-creates")
    assert pending_creates(stack) == [], "refresh --clear-pending-creates forgot the pending creates"
    assert sorted(by_name(stack)) == NAMES, "and kept every job the up recorded"

    stack.destroy()
    assert by_name(stack) == {}
    assert live_jobs(emulator) == {}, "destroy left no job on either platform"
    state = emulator.admin.state()
    assert state["alaya"]["tasks"] == [] and state["modelarts"]["jobs"] == [], state
