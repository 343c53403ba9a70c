"""`mltrain-runs abandoned` on a file backend against the emulator, both platforms on one set of stacks
(programs/abandoned: an Alaya NeW task and a ModelArts job per stack). It finds the jobs of a stack
removed with `pulumi stack rm --force` while they run (the ModelArts one by its tags `mltrain-owner-stack`
and `mltrain-owner-urn`) and the Alaya NeW task of an interrupted create whose pending create was cleared
by hand, and only those, among a kept stack's jobs, jobs made by hand (no tags) and the jobs of another
backend's stack of the same project and name; `--stop --yes` stops them and nothing else."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from mltrain_emulator import defaults as d
from pulumi_mltrain.alaya.training_job import TrainingJobSpec
from pulumi_mltrain.alaya.wire.client import AlayaClient
from pulumi_mltrain.config import Settings
from pulumi_mltrain.modelarts.wire import contract
from pulumi_mltrain.modelarts.wire.client import ModelArtsClient
from support import stacks
from support.interrupted import kill_up, plugins_of, start_up, wait_for_plugins_to_exit, wait_while_running
from support.pulumi_cli import VENV, Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAM = Path(__file__).parent / "programs" / "abandoned"
CREATE = "POST /v1/subscription/training/create"
SLOW_SUBSCRIPTION = 30.0
MODELARTS_JOB = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                 "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "wait_for": "running"}


def runs(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    """`mltrain-runs` in the stack's project folder with its environment (login, passphrase)."""
    result = subprocess.run([str(VENV / "bin" / "python"), "-m", "pulumi_mltrain.cli.runs", *args],
                            cwd=stack.workdir, env=stack.env(), capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, f"mltrain-runs {' '.join(args)} exited {result.returncode}:\n" \
                                   f"{result.stdout}\n{result.stderr}"
    return result


def statuses(emulator: Any) -> dict[str, str]:
    return {t["id"]: t["status"] for t in emulator.admin.state()["alaya"]["tasks"]}


def phases(emulator: Any) -> dict[str, str]:
    return {str(j["metadata"]["id"]): j["status"]["phase"] for j in emulator.admin.state()["modelarts"]["jobs"]}


def on(platform: str, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in found if r["platform"] == platform]


def test_abandoned_finds_and_stops_only_the_removed_stacks_jobs_on_both_platforms(
        emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2,
                                modelarts_phase_delay=0.2, modelarts_run_seconds=100_000)  # they run until stopped
    config = {"job": json.dumps(stacks.alaya_job_args(wait_for="running")), "modelartsJob": json.dumps(MODELARTS_JOB)}
    a = stacks.both_platforms_stack(emulator, tmp_path / "team", PROGRAM, stack_name="a", **config)
    b = stacks.sibling_stack(a, "b")
    # Another backend on the same accounts: its stack has the project and name of `a` here.
    other = stacks.both_platforms_stack(emulator, tmp_path / "elsewhere", PROGRAM, stack_name="a", **config)
    for stack in (a, b, other):
        stack.up()
    outputs = [stack.outputs() for stack in (a, b, other)]
    kept, removed, foreign = (str(o["training_task_id"]) for o in outputs)
    ma_kept, ma_removed, ma_foreign = (str(o["job_id"]) for o in outputs)

    # Stack c (its Alaya NeW task only): its up is killed after the platform accepted the create; the
    # pending create is cleared by hand.
    c = stacks.sibling_stack(a, "c", modelartsJob="null")
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

    # A task and a job made by hand.
    settings = Settings.load({
        "alayaEndpoint": emulator.url, "alayaApiKey": emulator.alaya_api_key,
        "huaweiIamEndpoint": emulator.url, "modelartsEndpoint": emulator.url,
        "huaweiProjectName": emulator.project_name, "huaweiProjectId": emulator.project_id,
        "huaweiUser": emulator.iam_user, "huaweiDomain": emulator.iam_domain,
        "huaweiPassword": emulator.iam_password}, {})
    api = AlayaClient(settings)
    body = TrainingJobSpec(**stacks.alaya_job_args(name="made-by-hand")).wire()
    key = api.create_task(body)
    modelarts = ModelArtsClient(settings)
    algorithm = modelarts.create_algorithm({"metadata": {"name": "by-hand"}, "job_config": {
        "code_dir": "/b/code/", "boot_file": "/b/code/train.py",
        "engine": {"engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}}})
    ma_by_hand = str(modelarts.create_job({"kind": "job", "metadata": {"name": "made-by-hand"},
                                           "algorithm": {"id": algorithm["metadata"]["id"]},
                                           "spec": {"resource": {"flavor_id": d.FLAVOR_CPU_8U, "node_count": 1}}})
                     ["metadata"]["id"])
    deadline = time.monotonic() + 30
    while (by_hand := api.result(key).get("trainingTaskId")) is None:
        assert time.monotonic() < deadline, "the hand-made task was never created"
        time.sleep(0.2)
    while statuses(emulator)[by_hand] != "RUNNING":
        assert time.monotonic() < deadline, "the hand-made task never ran"
        time.sleep(0.2)
    while phases(emulator)[ma_by_hand] != contract.RUNNING:
        assert time.monotonic() < deadline, "the hand-made job never ran"
        time.sleep(0.2)

    b.run("stack", "rm", "--force", "--yes", "--stack", "b")
    running = statuses(emulator)
    assert {running[t] for t in (kept, removed, foreign, by_hand, interrupted)} == {"RUNNING"}, running
    assert len({kept, removed, foreign, by_hand, interrupted}) == 5
    everyone = (ma_kept, ma_removed, ma_foreign, ma_by_hand)
    assert len(set(everyone)) == 4 and {phases(emulator)[j] for j in everyone} == {contract.RUNNING}, phases(emulator)

    # By default only jobs of the stacks this backend holds, which record their ModelArts jobs: the
    # removed stack's jobs need the opt-in.
    held = json.loads(runs(a, "abandoned", "--config-stack", "a", "--json").stdout)
    assert [r["job_id"] for r in held] == [interrupted], held
    wide = ("abandoned", "--config-stack", "a", "--include-removed-stacks")
    listed = json.loads(runs(a, *wide, "--json").stdout)

    found = {r["job_id"]: r for r in on("alaya", listed)}
    assert sorted(found) == sorted([removed, interrupted]), found
    assert found[interrupted]["stack"] == f"{a.project}/c" and found[interrupted]["why"] == "not recorded by its stack"
    run = found[removed]
    assert run["stack"] == f"{a.project}/b" and run["resource"] == "job"
    assert run["why"] == "stack removed" and run["status"] == "RUNNING" and run["live"]
    assert run["age_hours"] is not None and run["cost_so_far"] is not None and run["cost_so_far"] >= 0

    [run] = on("modelarts", listed)
    assert run["job_id"] == ma_removed, run
    assert run["stack"] == f"{a.project}/b" and run["resource"] == "job" and run["why"] == "stack removed", run
    assert run["status"] == contract.RUNNING and run["live"] and run["age_hours"] is not None, run
    assert run["cost_so_far"] is None, "ModelArts answers carry no prices"
    assert len(listed) == 3, listed

    table = runs(a, *wide).stdout
    assert removed in table and kept not in table and foreign not in table and str(by_hand) not in table
    assert ma_removed in table and not {ma_kept, ma_foreign, ma_by_hand} & set(table.split()), table
    assert "ModelArts gives no prices" in table

    stopped = runs(a, *wide, "--stop", "--yes")
    assert f"stopped alaya {removed}" in stopped.stderr and f"stopped alaya {interrupted}" in stopped.stderr
    assert f"stopped modelarts {ma_removed}" in stopped.stderr, stopped.stderr
    emulator.admin.advance(60)
    after = statuses(emulator)
    assert after[removed] == after[interrupted] == "STOPPED"
    assert {after[t] for t in (kept, foreign, by_hand)} == {"RUNNING"}, after
    ma_after = phases(emulator)
    assert ma_after[ma_removed] == contract.TERMINATED, ma_after
    assert {ma_after[j] for j in (ma_kept, ma_foreign, ma_by_hand)} == {contract.RUNNING}, ma_after
    # A stopped ModelArts job is still listed (it exists, and carries no record tag); a stopped Alaya NeW
    # task cannot be told from a kept run record (an ended task with a mark: Alaya NeW cannot mark a task
    # after its create), which `mltrain-runs history` lists instead (the one of stack c, which this
    # backend still holds); nothing is left to stop.
    again = json.loads(runs(a, *wide, "--json").stdout)
    assert sorted(r["job_id"] for r in again) == [ma_removed], again
    recorded = {r["job_id"]: r for r in json.loads(runs(a, "history", "--config-stack", "a", "--json").stdout)}
    assert recorded[interrupted]["record"] and removed not in recorded, recorded
    assert not any(r["live"] for r in again)
    assert "nothing to stop" in runs(a, *wide, "--stop", "--yes").stderr
