"""Every example runs from a copy outside the repository: its own requirements.txt, no path back
into this tree, `pulumi up` (and `pulumi destroy` of quickstart) against the emulator with the
repository's venv.

A last test shows where progress lines go: the provider sends them to the engine with
the resource's URN, so the CLI prints them under the resource (not under the stack).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import stacks
from support.pulumi_cli import ROOT, Stack

pytestmark = pytest.mark.engine

EXAMPLES = ROOT / "examples"
RANGE = re.compile(r"^pulumi-mltrain\s*>=\s*[\d.]+\s*,\s*<\s*[\d.]+\s*$", re.MULTILINE)


def live(emulator: Any) -> dict[str, int]:
    state = emulator.admin.state()
    return {"tasks": len(state["alaya"]["tasks"]), "jobs": len(state["modelarts"]["jobs"]),
            "algorithms": len(state["modelarts"]["algorithms"])}


def copied(example: str, tmp_path: Path, emulator: Any) -> Stack:
    """The example copied under tmp_path (checked to be outside the repository), wired to the emulator."""
    assert not tmp_path.resolve().is_relative_to(ROOT), f"{tmp_path} must be outside {ROOT}"
    source = EXAMPLES / example
    requirements = (source / "requirements.txt").read_text()
    assert RANGE.search(requirements), f"examples/{example}/requirements.txt must pin pulumi-mltrain to a range"
    project = yaml.safe_load((source / "Pulumi.yaml").read_text())
    assert not str(project["runtime"]["options"]["virtualenv"]).startswith(".."), \
        f"examples/{example}/Pulumi.yaml must use a virtualenv beside it, not one in this repository"
    for path in source.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".yaml", ".txt"):
            assert "../" not in path.read_text(), f"{path} refers to a path outside the example"
    if example.startswith("modelarts"):
        emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
        return stacks.modelarts_stack(emulator, tmp_path, EXAMPLES / example)
    return stacks.alaya_stack(emulator, tmp_path, EXAMPLES / example)


# The example destroyed at the end. alaya-distributed holds the kinds quickstart holds (Alaya NeW jobs and
# a storage mount); a ModelArts algorithm and job are destroyed by
# tests/engine/test_modelarts_engine.py::test_modelarts_stack_lifecycle (which runs modelarts-pytorch's program).
DESTROYED = {"quickstart"}


# The Python examples (the dynamic resources); examples/typescript and examples/go, on the plugin's SDKs in
# this repository, are tests/engine/plugin/test_sdk_examples.py's.
PYTHON = sorted(p.name for p in EXAMPLES.iterdir() if (p / "Pulumi.yaml").exists() and (p / "__main__.py").exists())




@pytest.mark.parametrize("example", PYTHON)
def test_example_runs_from_a_copy_outside_the_repository(example: str, tmp_path: Path, emulator: Any) -> None:
    stack = copied(example, tmp_path, emulator)
    assert stack.workdir.is_relative_to(tmp_path)
    up = stack.up()
    assert sum(live(emulator).values()) >= 1, up.stdout
    outputs = stack.outputs()
    assert outputs and all(v not in (None, "") for v in outputs.values()), outputs
    if example not in DESTROYED:
        return
    stack.destroy()
    assert live(emulator) == {"tasks": 0, "jobs": 0, "algorithms": 0}
    assert stack.resources("TrainingJob") == []


def test_progress_lines_are_attributed_to_the_resource(tmp_path: Path, emulator: Any) -> None:
    stack = stacks.alaya_stack(emulator, tmp_path, job=json.dumps(stacks.alaya_job_args(wait_for="running")),
                               resourceName="llama3-sft")
    up = stack.up()
    task_id = stack.outputs()["training_task_id"]
    text = up.stdout + up.stderr
    lines = [line[line.index("[mltrain]"):].strip() for line in text.splitlines()
             if "[mltrain] TrainingJob 'llama3-sft'" in line]
    assert any(f"'llama3-sft' ({task_id}): " in line for line in lines), text[-4000:]
    assert any(", subscription " in line for line in lines), lines
    assert all(re.search(r" after \d+s \(deadline (20m|19m\d\ds)\)$", line) for line in lines), lines
    # The engine groups a resource's messages under a heading naming its type and name (not the stack's).
    heading = re.search(r"^\s*pulumi-python:dynamic/alaya:TrainingJob \(llama3-sft\):\s*$\n(?:^\s+.*$\n)*?"
                        r"^\s+\[mltrain\] TrainingJob 'llama3-sft'", text, re.MULTILINE)
    assert heading, text[-4000:]
    # The job's own block of the Diagnostics (another resource's, e.g. the stack's, may come first).
    blocks = text.split("Diagnostics:", 1)[1].split("\n\n")
    [block] = [b for b in blocks if b.strip().startswith("pulumi-python:dynamic/alaya:TrainingJob (llama3-sft):")]
    said = [line.strip() for line in block.splitlines() if "[mltrain]" in line]
    assert len(said) >= 3 and len(said) == len(set(said)), said  # no line twice
