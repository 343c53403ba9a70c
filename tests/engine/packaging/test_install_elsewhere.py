"""The wheel in a fresh virtualenv outside the repository (the `infra_venv` fixture, shared with
test_policy_pack_elsewhere.py), beside another provider from PyPI (pulumi-random), resolving its own
dependency ranges: an example copied out of the repository
runs `pulumi up` against the emulator (started from the repository's venv). (Its destroy is the
repository's quickstart's: tests/engine/test_examples_elsewhere.py, the same provider code.)"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from support import stacks
from support.packaging import run, use_venv
from support.pulumi_cli import ROOT

pytestmark = [pytest.mark.engine, pytest.mark.slow]




def test_wheel_runs_an_example_from_a_fresh_venv_beside_another_provider(
        infra_venv: Path, tmp_path: Path, emulator: Any) -> None:
    venv = infra_venv
    python = venv / "bin" / "python"
    installed = run(python, "-m", "pip", "list", "--format=freeze").lower().replace("_", "-")
    assert "pulumi-mltrain==" in installed and "pulumi-random==" in installed, installed
    for server in ("fastapi", "uvicorn", "starlette"):
        assert f"{server}==" not in installed, f"{server} came without the emulator extra:\n{installed}"
    run(python, "-m", "pip", "check")
    origin = run(python, "-c", "import pulumi_mltrain, pulumi_random; print(pulumi_mltrain.__file__)")
    assert Path(origin.strip()).is_relative_to(venv), origin

    project = tmp_path / "infra-repo"
    shutil.copytree(ROOT / "examples" / "quickstart", project, ignore=shutil.ignore_patterns("Pulumi.*.yaml"))
    with (project / "__main__.py").open("a") as program:  # a program-time function too
        program.write('\npulumi.export("product_codes", [p["productCode"] for p in alaya.get_products()])\n')
    stack = stacks.alaya_stack(emulator, tmp_path / "home", project)
    use_venv(stack, venv)
    assert not stack.workdir.resolve().is_relative_to(ROOT)

    stack.up()
    tasks = emulator.admin.state()["alaya"]["tasks"]
    assert len(tasks) == 1, tasks
    assert stack.outputs()["training_task_id"] in str(tasks)
    assert "PRD-TRAIN-1" in stack.outputs()["product_codes"], stack.outputs()


