"""Logs while you wait: the progress lines of a ModelArts wait carry the job's newest log lines,
under the resource they concern; an Alaya wait says once that there is no log API. Each stack holds
the dynamic (`dyn-*`) and the plugin (`plug-*`) form."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from plugin_support import output_of
from test_plugin_resume import BOTH, both_forms, by_name

from pulumi_mltrain.emulator import defaults as d
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def test_a_modelarts_wait_shows_log_lines_of_the_job(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=4, delete_delay=0.2)
    job = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
           "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "wait_for": "completed"}
    stack = both_forms(stacks.modelarts_stack(emulator, tmp_path, BOTH), "modelarts", {"logs": job})
    output = output_of(stack.up())
    for name in ("dyn-logs", "plug-logs"):
        lines = re.findall(rf"\[mltrain\] TrainingJob '{name}' \(([^)]+)\): log of worker-0: (.*) after \d+s", output)
        assert lines, output[-4000:]
        job_id, text = lines[0]
        assert job_id == by_name(stack)[name]["id"] and "[worker-0] step " in text, lines
    stack.destroy()


def test_an_alaya_wait_says_there_is_no_log_api(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(task_state_delay=0.2)
    stack = both_forms(stacks.alaya_stack(emulator, tmp_path, BOTH), "alaya",
                       {"run": stacks.alaya_job_args(wait_for="running")})
    output = output_of(stack.up())
    diagnostics = output.split("Diagnostics:", 1)[-1]
    for name in ("dyn-run", "plug-run"):
        said = [line for line in diagnostics.splitlines()
                if f"TrainingJob '{name}'" in line and "Alaya NeW documents no log API" in line]
        assert len(said) == 1, output[-4000:]
    stack.destroy()
