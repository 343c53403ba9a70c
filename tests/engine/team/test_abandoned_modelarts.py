"""`mltrain-runs abandoned` on ModelArts, on a file backend against the emulator: the job of a stack
removed with `pulumi stack rm --force` while it runs is found by its tags (`mltrain-owner-stack`,
`mltrain-owner-urn`) and terminated by `--stop --yes`, among a kept stack's job, a job made by hand
(no tags) and a job of another backend's stack of the same project and name, which stay running."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from mltrain_emulator import defaults as d
from pulumi_mltrain.config import Settings
from pulumi_mltrain.modelarts import contract
from pulumi_mltrain.modelarts.client import ModelArtsClient
from support import stacks
from support.pulumi_cli import VENV, Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

JOB = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
       "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "wait_for": "running"}


def runs(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    """`mltrain-runs` in the stack's project folder with its environment (login, passphrase)."""
    result = subprocess.run([str(VENV / "bin" / "python"), "-m", "pulumi_mltrain.runs_cli", *args],
                            cwd=stack.workdir, env=stack.env(), capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, f"mltrain-runs {' '.join(args)} exited {result.returncode}:\n" \
                                   f"{result.stdout}\n{result.stderr}"
    return result


def phases(emulator: Any) -> dict[str, str]:
    return {str(j["metadata"]["id"]): j["status"]["phase"] for j in emulator.admin.state()["modelarts"]["jobs"]}


def job_id(stack: Stack) -> str:
    return str(stack.outputs()["job_id"])


def test_abandoned_finds_and_terminates_only_the_removed_stacks_modelarts_job(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=100_000)  # they run until stopped
    jobs = json.dumps({"job": JOB})
    a = stacks.modelarts_stack(emulator, tmp_path / "team", stack_name="a", jobs=jobs)
    b = stacks.sibling_stack(a, "b")
    # Another backend on the same account: its stack has the project and name of `a` here.
    other = stacks.modelarts_stack(emulator, tmp_path / "elsewhere", stack_name="a", jobs=jobs)
    for stack in (a, b, other):
        stack.up()
    kept, removed, foreign = job_id(a), job_id(b), job_id(other)

    settings = Settings.load({
        "huaweiIamEndpoint": emulator.url, "modelartsEndpoint": emulator.url,
        "huaweiProjectName": emulator.project_name, "huaweiProjectId": emulator.project_id,
        "huaweiUser": emulator.iam_user, "huaweiDomain": emulator.iam_domain,
        "huaweiPassword": emulator.iam_password}, {})
    api = ModelArtsClient(settings)
    algorithm = api.create_algorithm({"metadata": {"name": "by-hand"}, "job_config": {
        "code_dir": "/b/code/", "boot_file": "/b/code/train.py",
        "engine": {"engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}}})
    by_hand = str(api.create_job({"kind": "job", "metadata": {"name": "made-by-hand"},
                                  "algorithm": {"id": algorithm["metadata"]["id"]},
                                  "spec": {"resource": {"flavor_id": d.FLAVOR_CPU_8U, "node_count": 1}}})
                  ["metadata"]["id"])
    deadline = time.monotonic() + 30
    while phases(emulator)[by_hand] != contract.RUNNING:
        assert time.monotonic() < deadline, "the hand-made job never ran"
        time.sleep(0.2)

    b.run("stack", "rm", "--force", "--yes", "--stack", "b")
    everyone = (kept, removed, foreign, by_hand)
    assert len(set(everyone)) == 4 and {phases(emulator)[j] for j in everyone} == {contract.RUNNING}, phases(emulator)

    # The stacks this backend holds record their jobs: nothing is abandoned without the opt-in.
    assert json.loads(runs(a, "abandoned", "--config-stack", "a", "--json").stdout) == []
    wide = ("abandoned", "--config-stack", "a", "--include-removed-stacks")
    [run] = json.loads(runs(a, *wide, "--json").stdout)
    assert run["platform"] == "modelarts" and run["job_id"] == removed, run
    assert run["stack"] == f"{a.project}/b" and run["resource"] == "job" and run["why"] == "stack removed", run
    assert run["status"] == contract.RUNNING and run["live"] and run["age_hours"] is not None, run
    assert run["cost_so_far"] is None, "ModelArts answers carry no prices"
    table = runs(a, *wide).stdout
    assert removed in table and not {kept, foreign, by_hand} & set(table.split()), table
    assert "ModelArts gives no prices" in table

    stopped = runs(a, *wide, "--stop", "--yes")
    assert f"stopped modelarts {removed}" in stopped.stderr, stopped.stderr
    emulator.admin.advance(60)
    after = phases(emulator)
    assert after[removed] == contract.TERMINATED, after
    assert {after[j] for j in (kept, foreign, by_hand)} == {contract.RUNNING}, after
    assert [r["live"] for r in json.loads(runs(a, *wide, "--json").stdout)] == [False]
    assert "nothing to stop" in runs(a, *wide, "--stop", "--yes").stderr
