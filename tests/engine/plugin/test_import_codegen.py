"""`pulumi import` of every plugin type under the official Python language host, whose GenerateProgram
writes the program: that code imports the plugin's SDK (schema.json's `language.python.packageName`,
sdk/python), declares the imported resources, runs, and previews no change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_support import RAW, declare, managed, on_path, tasks
from test_plugin_alaya import MOUNT, job_using_mount
from test_plugin_modelarts import ALGORITHM, job, live_jobs

from pulumi_mltrain.registry import PYTHON_PACKAGE
from support import stacks
from support.pulumi_cli import BIN


def _official_host() -> bool:
    """The project's own host (scripts/bootstrap.sh writes a shell script that runs
    scripts/engine/language_host.py when it finds no official installation) has no GenerateProgram."""
    host = BIN / "pulumi-language-python"
    if not host.exists():
        return False
    with host.open("rb") as f:
        return b"language_host.py" not in f.read(4096)


OFFICIAL_HOST = _official_host()

pytestmark = [
    pytest.mark.engine,
    pytest.mark.skipif(not OFFICIAL_HOST, reason="needs the official pulumi-language-python (GenerateProgram)"),
]

TYPES = ("mltrain:alaya:StorageMount", "mltrain:alaya:TrainingJob", "mltrain:modelarts:Algorithm",
         "mltrain:modelarts:TrainingJob")


def test_imported_code_runs_and_previews_no_change(emulator: Any, tmp_path: Path) -> None:
    """Objects of all four types exist on the platform and the state forgets them; one `pulumi import
    --file` takes them back and writes their code, which becomes the program: no change to preview."""
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2,
                                subscription_delay=0.2, task_state_delay=0.2)
    stack = on_path(stacks.both_platforms_stack(emulator, tmp_path, RAW))
    # Both jobs have environment values: the Alaya job's a secret one, the ModelArts job's a plain one.
    declare(stack, [MOUNT, job_using_mount(), ALGORITHM, job(environments={"HF_TOKEN": "hf-value-456"})])
    stack.up()
    made = {r["type"]: (r["urn"].rsplit("::", 1)[1], r["id"]) for r in managed(stack)}
    assert sorted(made) == sorted(TYPES), sorted(made)
    stack.run("state", "delete", *(r["urn"] for r in managed(stack)), "--yes")  # jobs before what they use
    assert managed(stack) == []

    wanted = tmp_path / "import.json"
    wanted.write_text(json.dumps({"resources": [
        {"type": token, "name": made[token][0], "id": made[token][1]} for token in TYPES]}))
    code_file = tmp_path / "imported.py"
    stack.run("import", "--file", str(wanted), "--yes", "--protect=false", "--out", str(code_file))
    code = code_file.read_text()
    assert f"import {PYTHON_PACKAGE} as mltrain" in code, code
    assert "pulumi_mltrain\n" not in code and "pulumi_mltrain." not in code, "never the dynamic resources"
    for token in TYPES:
        module, kind = token.split(":")[1:]
        assert f"mltrain.{module}.{kind}(" in code, (token, code)
    assert sorted(r["type"] for r in managed(stack)) == sorted(TYPES)
    assert 'env={\n        "WANDB_API_KEY": pulumi.Output.secret("wandb-secret-value-123"),' in code, code
    assert '"HF_TOKEN": pulumi.Output.secret("hf-value-456"),' in code, code
    state = json.dumps(stack.export())
    assert "wandb-secret-value-123" not in state and "hf-value-456" not in state, "imported env stays encrypted"

    # The written code is the whole program now: it runs and declares exactly what the state holds.
    (stack.workdir / "__main__.py").write_text(code)
    stack.preview("--expect-no-changes")
    assert sorted((r["type"], r["id"]) for r in managed(stack)) == sorted(
        (token, object_id) for token, (_, object_id) in made.items())
    # The imported objects are on the platform as they were (destroying imported objects of every type:
    # the destroys of test_plugin_alaya.py and test_plugin_modelarts.py).
    assert [t["id"] for t in tasks(emulator)] == [made["mltrain:alaya:TrainingJob"][1]]
    assert [j["metadata"]["id"] for j in live_jobs(emulator)] == [made["mltrain:modelarts:TrainingJob"][1]]
