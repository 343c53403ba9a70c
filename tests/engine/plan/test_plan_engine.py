"""`pulumi preview --json | mltrain-plan` (one preview's output on the plan's stdin, for both caps) and
`new-run-budget` under `--policy-pack`, through the real engine: a sweep of three Alaya NeW trials
(programs/sweep), each trial a job of each form, whose jobs are running, one trial's replacement_trigger
changed."""

from __future__ import annotations

import itertools
import json
import os
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
FORMS = ["dynamic", "plugin"]
PREFIXES = ("dyn", "plug")  # the program's resource names: dyn-<trial>, plug-<trial>
TRIAL_NAMES = tuple(f"{prefix}-lr-" for prefix in PREFIXES)


def planned(preview: str, *caps: str) -> tuple[int, str]:
    """`mltrain-plan CAPS` given `preview` (the stdout of `pulumi preview --json`) on its stdin: the plan's
    exit status and output."""
    result = subprocess.run([str(PLAN), *caps], input=preview, capture_output=True, text=True, timeout=300,
                            check=False)
    return result.returncode, result.stdout + result.stderr


def test_new_run_budget_counts_the_reruns_and_not_a_change_in_place(emulator: Any, tmp_path: Path) -> None:
    """Each trial is a dynamic (`dyn-*`) and a plugin (`plug-*`) job in one stack. One trial's trigger
    changed (a new run of a running job, in each form), another trial's description changed (an update in
    place, whose checked inputs keep the `first run` reason): `mltrain-plan` and the policy, given no
    step, count exactly the two runs, report the running jobs they replace, refuse a cap below their
    GPU-hours, and neither shows `run_starts` for the updates in place."""
    assert PLAN.exists(), f"{PLAN} is missing: run `bash scripts/bootstrap.sh`"
    emulator.admin.set_settings(task_state_delay=0.1)  # the tasks run until stopped
    stack = alaya_stack(emulator, tmp_path, PROGRAM, trials=json.dumps(TRIALS), forms=json.dumps(FORMS))
    # The engine finds the plugin on PATH (as an installed wheel's console script).
    stack.env_extra["PATH"] = f"{BIN}{os.pathsep}{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    stack.up()
    stack.set_config("trials", json.dumps({**TRIALS, "lr-3e-4": "v2"}))
    stack.set_config("descriptions", json.dumps({"lr-1e-4": "sweep trial lr-1e-4, notes"}))

    preview = stack.run("preview", "--json").stdout
    steps = {s["urn"].rsplit("::", 1)[1]: s["op"] for s in json.loads(preview)["steps"]
             if s["urn"].rsplit("::", 1)[1].startswith(TRIAL_NAMES) and s["op"] != "same"}
    assert steps == {f"{f}-lr-1e-4": "update" for f in PREFIXES} | {f"{f}-lr-3e-4": "replace" for f in PREFIXES}, steps
    code, out = planned(preview, "--max-new-gpu-hours", "191")
    assert code == 1, out
    rows = sorted(line.split() for line in out.splitlines() if line.startswith(tuple(f"  {n}" for n in TRIAL_NAMES)))
    assert rows == [[f"{f}-lr-3e-4", "alaya:TrainingJob", "replace", "8", "12", "(timeout_hours)", "96", "80/h", "960"]
                    for f in PREFIXES], out
    assert "over the cap: the new runs take up to 192 GPU-hours, above the cap of 191 (--max-new-gpu-hours)" in out
    stopped = sorted(line for line in out.splitlines() if line.startswith("    alaya:TrainingJob"))
    assert [line.split("'")[1] for line in stopped] == [f"{f}-lr-3e-4" for f in PREFIXES], out
    for line in stopped:
        assert line.split("' ", 1)[1].startswith("tt-") and line.endswith(") is replaced") and "(status " in line, out
    code, out = planned(preview, "--max-new-gpu-hours", "192")
    assert code == 0 and "  new runs: 2" in out.splitlines(), out

    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"new-run-budget": {"maxNewGpuHours": 191}}))
    result = stack.preview("--policy-pack", str(PACK), "--policy-pack-config", str(config), check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "new-run-budget" in output and "mandatory" in output, output
    assert "the new runs take up to 192 GPU-hours, above the cap of 191 (maxNewGpuHours)" in output, output
    assert "new runs: 2" in output, output
    for prefix in PREFIXES:
        assert f"alaya:TrainingJob '{prefix}-lr-3e-4' (its status is not visible here, it may be running) " \
               "is replaced" in output, output
    table = [line.split()[0] for line in output.splitlines() if line.strip().startswith(TRIAL_NAMES)
             and "alaya:TrainingJob" in line and "GPU" not in line]
    assert sorted(table) == [f"{f}-lr-3e-4" for f in PREFIXES], output
    # That a cap of 192 passes (four runs, the updates in place counted, would be 384 GPU-hours) is the
    # policy's own count: tests/unit/plan/test_plan.py::test_policy_refuses_above_its_caps (a cap at the
    # runs' GPU-hours passes) and ::test_policy_counts_no_change_in_place.
    # An update in place shows its description only (in the same preview); no state records `run_starts`
    # (it is a mark of a preview), so the next preview is quiet.
    # Its block: the lines under its URN, indented deeper than the steps and policy messages (which the
    # engine prints in the order the steps finish).
    lines = output.splitlines()
    for prefix in PREFIXES:
        start = next(i for i, line in enumerate(lines) if line.endswith(f"TrainingJob::{prefix}-lr-1e-4]"))
        section = "\n".join(itertools.takewhile(lambda line: line.startswith(" " * 6), lines[start:]))
        assert "description" in section and "run_starts" not in section and "runStarts" not in section, output
    stack.up()
    held = [r for r in stack.resources("TrainingJob") if r["urn"].rsplit("::", 1)[1].startswith(TRIAL_NAMES)]
    assert len(held) == 6 and not any(key in r.get(part, {}) for r in held for part in ("inputs", "outputs")
                                      for key in ("run_starts", "runStarts")), held
    quiet = stack.preview("--expect-no-changes", check=False)
    assert quiet.returncode == 0 and "run_starts" not in quiet.stdout and "runStarts" not in quiet.stdout, \
        quiet.stdout + quiet.stderr
