"""`mltrain-runs abandoned` on a file backend against the emulator: it finds the job of a force-removed
stack and the job of an interrupted create whose pending create was cleared by hand, and only those,
among a kept job, a job made by hand and a job of another backend; `--stop --yes` stops them and
nothing else."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from pulumi_mltrain.alaya.client import AlayaClient
from pulumi_mltrain.alaya.training_job import TrainingJobSpec
from pulumi_mltrain.config import Settings
from support import stacks
from support.interrupted import kill_up, plugins_of, start_up, wait_for_plugins_to_exit, wait_while_running
from support.pulumi_cli import VENV, Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

CREATE = "POST /v1/subscription/training/create"
SLOW_SUBSCRIPTION = 30.0


def runs(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    """`mltrain-runs` in the stack's project folder with its environment (login, passphrase)."""
    result = subprocess.run([str(VENV / "bin" / "python"), "-m", "pulumi_mltrain.runs_cli", *args],
                            cwd=stack.workdir, env=stack.env(), capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, f"mltrain-runs {' '.join(args)} exited {result.returncode}:\n" \
                                   f"{result.stdout}\n{result.stderr}"
    return result


def statuses(emulator: Any) -> dict[str, str]:
    return {t["id"]: t["status"] for t in emulator.admin.state()["alaya"]["tasks"]}


def task_id(stack: Stack) -> str:
    return str(stack.outputs()["training_task_id"])


def test_abandoned_finds_and_stops_only_the_removed_stacks_job(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2)
    job = json.dumps(stacks.alaya_job_args(wait_for="running"))
    a = stacks.alaya_stack(emulator, tmp_path / "team", stack_name="a", job=job)
    b = stacks.sibling_stack(a, "b")
    # Another backend on the same account: its stack has the project and name of `a` here.
    other = stacks.alaya_stack(emulator, tmp_path / "elsewhere", stack_name="a", job=job)
    for stack in (a, b, other):
        stack.up()
    kept, removed, foreign = task_id(a), task_id(b), task_id(other)

    # Stack c's up is killed after the platform accepted the create; the pending create is cleared by hand.
    c = stacks.sibling_stack(a, "c")
    emulator.admin.set_settings(subscription_delay=SLOW_SUBSCRIPTION)
    creates = emulator.admin.requests()["endpoints"].get(CREATE, 0)
    up = start_up(c, tmp_path / "c-up.log")
    try:
        wait_while_running(up, tmp_path / "c-up.log",
                           lambda: emulator.admin.requests()["endpoints"].get(CREATE, 0) > creates, "the create call")
        plugins, go_hosts = plugins_of(up)
    finally:
        kill_up(up)
    wait_for_plugins_to_exit(plugins, go_hosts)
    emulator.admin.advance(SLOW_SUBSCRIPTION + 60)
    emulator.admin.set_settings(subscription_delay=0.2)
    c.run("cancel", "--yes")
    c.refresh("--clear-pending-creates")
    [interrupted] = set(statuses(emulator)) - {kept, removed, foreign}

    settings = Settings.load({"alayaEndpoint": emulator.url, "alayaApiKey": emulator.alaya_api_key}, {})
    api = AlayaClient(settings)
    body = TrainingJobSpec(**stacks.alaya_job_args(name="made-by-hand")).wire()
    key = api.create_task(body)
    deadline = time.monotonic() + 30
    while (by_hand := api.result(key).get("trainingTaskId")) is None:
        assert time.monotonic() < deadline, "the hand-made task was never created"
        time.sleep(0.2)

    while statuses(emulator)[by_hand] != "RUNNING":
        assert time.monotonic() < deadline, "the hand-made task never ran"
        time.sleep(0.2)

    b.run("stack", "rm", "--force", "--yes", "--stack", "b")
    running = statuses(emulator)
    assert {running[t] for t in (kept, removed, foreign, by_hand, interrupted)} == {"RUNNING"}, running
    assert len({kept, removed, foreign, by_hand, interrupted}) == 5

    # By default only jobs of the stacks this backend holds: the removed stack's job needs the opt-in.
    held = json.loads(runs(a, "abandoned", "--config-stack", "a", "--json").stdout)
    assert [r["job_id"] for r in held] == [interrupted], held
    wide = ("abandoned", "--config-stack", "a", "--include-removed-stacks")
    found = {r["job_id"]: r for r in json.loads(runs(a, *wide, "--json").stdout)}
    assert sorted(found) == sorted([removed, interrupted]), found
    assert found[interrupted]["stack"] == f"{a.project}/c" and found[interrupted]["why"] == "not recorded by its stack"
    run = found[removed]
    assert run["stack"] == f"{a.project}/b" and run["resource"] == "job"
    assert run["why"] == "stack removed" and run["status"] == "RUNNING" and run["live"]
    assert run["age_hours"] is not None and run["cost_so_far"] is not None and run["cost_so_far"] >= 0

    table = runs(a, *wide).stdout
    assert removed in table and kept not in table and foreign not in table and str(by_hand) not in table

    stopped = runs(a, *wide, "--stop", "--yes")
    assert f"stopped alaya {removed}" in stopped.stderr and f"stopped alaya {interrupted}" in stopped.stderr
    after = statuses(emulator)
    assert after[removed] == after[interrupted] == "STOPPED"
    assert {after[t] for t in (kept, foreign, by_hand)} == {"RUNNING"}, after
    # Stopped runs are still listed (they exist), and nothing is left to stop.
    again = json.loads(runs(a, *wide, "--json").stdout)
    assert sorted(r["job_id"] for r in again) == sorted([removed, interrupted])
    assert not any(r["live"] for r in again)
    assert "nothing to stop" in runs(a, *wide, "--stop", "--yes").stderr
