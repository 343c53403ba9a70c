"""The wheel in a fresh virtualenv outside the repository (the `installed_venv` fixture, shared with
test_policy_pack_elsewhere.py and tests/emulator), beside another provider from PyPI (pulumi-random),
resolving its own dependency ranges: an example copied out of the repository
runs `pulumi up` against the emulator (started from the repository's venv). (Its destroy is the
repository's quickstart's: tests/engine/test_examples_elsewhere.py, the same provider code.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from support import stacks
from support.packaging import run, use_venv
from support.pulumi_cli import ROOT

pytestmark = [pytest.mark.engine, pytest.mark.slow]

SERVERS = {"fastapi", "uvicorn", "starlette", "mltrain-emulator"}
# The distributions `pulumi-mltrain` requires, transitively, as the venv's metadata says and pip resolves them:
# markers evaluated with the extras given as arguments (none: a plain `pip install pulumi-mltrain`).
CLOSURE = """
import importlib.metadata as md, json, sys
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
extras = sys.argv[1:] or [""]
seen, todo = set(), ["pulumi-mltrain"]
while todo:
    name = canonicalize_name(todo.pop())
    if name in seen:
        continue
    seen.add(name)
    for text in md.requires(name) or []:
        req = Requirement(text)
        if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in extras):
            todo.append(req.name)
print(json.dumps(sorted(seen)))
"""


def test_wheel_runs_an_example_from_a_fresh_venv_beside_another_provider(
        installed_venv: Path, tmp_path: Path, emulator: Any) -> None:
    venv = installed_venv
    python = venv / "bin" / "python"
    installed = run(python, "-m", "pip", "list", "--format=freeze").lower().replace("_", "-")
    assert "pulumi-mltrain==" in installed and "pulumi-random==" in installed, installed
    # The servers come only with the emulator extra (which this venv has, for tests/emulator): what a plain
    # install requires, transitively, holds none of them; the extra's does.
    plain = set(json.loads(run(python, "-c", CLOSURE)))
    assert "pulumi" in plain and not plain & SERVERS, sorted(plain)
    assert set(json.loads(run(python, "-c", CLOSURE, "emulator"))) >= SERVERS
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


