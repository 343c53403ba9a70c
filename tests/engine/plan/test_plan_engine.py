"""`pulumi preview --json | mltrain-plan` and `new-run-budget` under `--policy-pack`, through the real
engine: a sweep of three Alaya NeW trials (programs/sweep) whose jobs are running, one trial's
replacement_trigger changed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.pulumi_cli import BIN, ROOT, VENV
from support.stacks import alaya_stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAM = Path(__file__).parent / "programs" / "sweep"
PACK = ROOT / "policy"
PLAN = VENV / "bin" / "mltrain-plan"
TRIALS = {"lr-1e-4": "v1", "lr-3e-4": "v1", "lr-1e-3": "v1"}


def piped(stack: Any, *caps: str) -> tuple[int, str]:
    """`pulumi preview --json | mltrain-plan CAPS`: the plan's exit status and output."""
    preview = subprocess.Popen([str(BIN / "pulumi"), "preview", "--json", "--non-interactive", "--stack", stack.name],
                               cwd=stack.workdir, env=stack.env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert preview.stdout is not None
    result = subprocess.run([str(PLAN), *caps], stdin=preview.stdout, capture_output=True, text=True, timeout=300,
                            check=False)
    preview.stdout.close()
    assert preview.wait(timeout=300) == 0
    return result.returncode, result.stdout + result.stderr


def test_a_changed_trigger_counts_one_run_and_the_running_job_it_replaces(emulator: Any, tmp_path: Path) -> None:
    assert PLAN.exists(), f"{PLAN} is missing: run `bash scripts/bootstrap.sh`"
    emulator.admin.set_settings(task_state_delay=0.1)  # the tasks run until stopped
    stack = alaya_stack(emulator, tmp_path, PROGRAM, trials=json.dumps(TRIALS))
    stack.up()
    stack.set_config("trials", json.dumps({**TRIALS, "lr-3e-4": "v2"}))

    code, out = piped(stack, "--max-new-gpu-hours", "95")
    assert code == 1, out
    rows = [line.split() for line in out.splitlines() if line.startswith("  lr-")]
    assert rows == [["lr-3e-4", "alaya:TrainingJob", "replace", "8", "12", "(timeout_hours)", "96", "80/h", "960"]], out
    assert "  new runs: 1" in out.splitlines(), out
    assert "over the cap: the new runs take up to 96 GPU-hours, above the cap of 95 (--max-new-gpu-hours)" in out
    stopped = [line for line in out.splitlines() if line.startswith("    alaya:TrainingJob")]
    assert len(stopped) == 1 and stopped[0].startswith("    alaya:TrainingJob 'lr-3e-4' tt-"), out
    assert stopped[0].endswith(") is replaced") and "(status " in stopped[0], out
    code, out = piped(stack, "--max-new-gpu-hours", "96")
    assert code == 0, out

    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"new-run-budget": {"maxNewGpuHours": 95}}))
    result = stack.preview("--policy-pack", str(PACK), "--policy-pack-config", str(config), check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "new-run-budget" in output and "mandatory" in output, output
    assert "the new runs take up to 96 GPU-hours, above the cap of 95 (maxNewGpuHours)" in output, output
    assert "new runs: 1" in output, output
    assert "alaya:TrainingJob 'lr-3e-4' (its status is not visible here, it may be running) is replaced" in output
    config.write_text(json.dumps({"new-run-budget": {"maxNewGpuHours": 96}}))
    result = stack.preview("--policy-pack", str(PACK), "--policy-pack-config", str(config), check=False)
    assert result.returncode == 0, result.stdout + result.stderr
