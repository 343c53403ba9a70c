"""examples/automation-sweep/sweep.py, run as a user runs it: a subprocess with the repo's engine on PATH,
an inline Automation API program, the emulator as the platform and a file backend for the state."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.pulumi_cli import ROOT, VENV, engine_env

pytestmark = [pytest.mark.engine, pytest.mark.slow]

SCRIPT = ROOT / "examples" / "automation-sweep" / "sweep.py"
CREATE = "POST /v1/subscription/training/create"


def sweep(emulator: Any, home: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str], Any]:
    """Run the script in an empty folder (an inline program needs no project), with a temporary folder
    of its own that it must leave empty; returns its result and the JSON after its SWEEP_OUTPUTS marker,
    if it printed one."""
    (home / "state").mkdir(parents=True, exist_ok=True)
    (home / "cwd").mkdir(exist_ok=True)
    (home / "tmp").mkdir(exist_ok=True)
    variables = engine_env(home, {"MLTRAIN_ALAYA_ENDPOINT": emulator.url,
                                  "MLTRAIN_ALAYA_API_KEY": emulator.alaya_api_key, "TMPDIR": str(home / "tmp"),
                                  **env})
    # As a user runs it: no interpreter chosen for the provider, no virtualenv active (python3 on PATH
    # is not the one with pulumi-mltrain), so the script itself must name its interpreter.
    variables.pop("PULUMI_PYTHON_CMD", None)
    variables.pop("VIRTUAL_ENV", None)
    variables["PATH"] = os.pathsep.join(part for part in variables["PATH"].split(os.pathsep)
                                        if Path(part).resolve() != (VENV / "bin").resolve())
    result = subprocess.run([str(VENV / "bin" / "python"), str(SCRIPT), *args], cwd=home / "cwd", env=variables,
                            capture_output=True, text=True, timeout=600, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"sweep.py {' '.join(args)} exited {result.returncode}:\n{output[-6000:]}"
    assert list((home / "tmp").iterdir()) == [], "the script leaves no workspace folder behind"
    marked = [line for line in result.stdout.splitlines() if line.startswith("SWEEP_OUTPUTS ")]
    return result, json.loads(marked[-1].split(" ", 1)[1]) if marked else None


def live_tasks(emulator: Any) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"]}


def test_sweep_up_outputs_then_run_with_one_more_trial(emulator: Any, tmp_path: Path) -> None:
    """`up` and `outputs`, then `run --remove-stack` (one process: up, outputs, destroy) with one more
    learning rate: its up creates only that trial, its destroy stops the trials (another process made three)
    and keeps them on the platform as the sweep's records (keep_runs, docs/runs.md#run-history)."""
    emulator.admin.set_settings(subscription_delay=0.3, task_state_delay=0.3, delete_delay=0.2)
    rates = {"trial-0": 1e-4, "trial-1": 3e-4, "trial-2": 1e-3}
    stack = {"SWEEP_STACK": "nightly"}  # not the default stack name: each run selects the one named

    _, trials = sweep(emulator, tmp_path, "up", SWEEP_LEARNING_RATES="1e-4,3e-4,1e-3", **stack)
    assert sorted(trials) == sorted(rates)
    assert {name: t["learning_rate"] for name, t in trials.items()} == rates
    assert {t["status"] for t in trials.values()} == {"RUNNING"}, "up waited until every trial trains"
    tasks = live_tasks(emulator)
    assert sorted(tasks) == sorted(t["task_id"] for t in trials.values()), "the outputs name the platform's tasks"
    assert emulator.admin.requests()["endpoints"][CREATE] == 3
    checkpoint = tmp_path / "state" / ".pulumi" / "stacks" / "automation-sweep" / "nightly.json"
    assert checkpoint.is_file(), "one stack holds the sweep"
    for trial in trials.values():
        assert tasks[trial["task_id"]]["name"] == trial["name"]
        assert f"--lr {trial['learning_rate']!r}" in json.dumps(tasks[trial["task_id"]]), "each trial has its rate"

    _, again = sweep(emulator, tmp_path, "outputs", SWEEP_LEARNING_RATES="1e-4,3e-4,1e-3", **stack)
    assert again == trials, "a second process reads the same outputs from the state"

    result, ran = sweep(emulator, tmp_path, "run", "--remove-stack", SWEEP_LEARNING_RATES="1e-4,3e-4,1e-3,2e-3",
                        **stack)
    assert {name: t["learning_rate"] for name, t in ran.items()} == {**rates, "trial-3": 2e-3}
    assert {name: ran[name]["task_id"] for name in rates} == {name: t["task_id"] for name, t in trials.items()}, \
        "the trials that did not change are kept"
    assert len({t["task_id"] for t in ran.values()}) == 4
    assert emulator.admin.requests()["endpoints"][CREATE] == 4, "only the new trial was created"
    assert "up: succeeded" in result.stdout and "destroy: succeeded" in result.stdout
    kept = emulator.admin.state()["alaya"]["tasks"]
    assert sorted(t["id"] for t in kept) == sorted(t["task_id"] for t in ran.values()), "every trial is a record"
    assert {t["status"] for t in kept} == {"STOPPED"}, "stopped first: a record holds no GPU"
    assert not checkpoint.exists(), "--remove-stack removed the stack"
