"""The plugin package (plugin-package/) as a TypeScript team installs it, outside the repository and with
no `pulumi-resource-mltrain` on PATH, following docs/plugin-install.md: the folder with requirements.txt
naming a wheel of the project, `pulumi package add <folder>` (the plugin's venv, a local SDK under sdks/,
the package recorded in Pulumi.yaml), then `pulumi up` and `pulumi destroy` of one Alaya NeW job."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from plugin_support import managed, output_of, summary, tasks

from support import node_go, stacks
from support.pulumi_cli import BIN, ROOT, PulumiFailed

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PACKAGE = ROOT / "plugin-package"

PULUMI_YAML = "name: infra\nruntime: nodejs\n"
# Exact versions: the repository's TypeScript example's (its package-lock.json).
PACKAGE_JSON = {
    "name": "infra", "private": True, "main": "index.ts",
    "dependencies": {"@pulumi/pulumi": "3.270.0"},
    "devDependencies": {"typescript": "5.9.3", "@types/node": "20.19.43"},
}
INDEX_TS = """import * as mltrain from "@mltrain/pulumi-mltrain";

const job = new mltrain.alaya.TrainingJob("sft", {
    productCode: "PRD-TRAIN-2",
    workerCount: 2,
    image: "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
    trainingFramework: "pytorch",
    startCommand: "python3 train.py",
    timeoutHours: 12,
});
export const trainingTaskId = job.trainingTaskId;
"""


@pytest.fixture(scope="session")
def typescript_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return node_go.typescript_example_modules(tmp_path_factory)


def path_without_the_plugin() -> str:
    """PATH with .tools/bin (pulumi, the language hosts) and without any folder that has the plugin's
    console script: the engine must find the plugin through the package."""
    folders = [BIN, *(Path(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p)]
    kept = [str(p) for p in folders if not (p / "pulumi-resource-mltrain").exists()]
    path = os.pathsep.join(kept)
    assert shutil.which("pulumi-resource-mltrain", path=path) is None
    return path


def test_package_add_from_outside_the_repository_then_up_and_destroy(
        wheel: Path, emulator: Any, tmp_path: Path, typescript_modules: Path) -> None:
    node_go.host("nodejs")
    node_go.tool("npm")
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2, delete_delay=0.2)

    # The plugin folder, copied; its requirements.txt names the wheel instead of the PyPI release.
    plugin = tmp_path / "mltrain-plugin"
    shutil.copytree(PACKAGE, plugin, ignore=shutil.ignore_patterns("venv", "__pycache__"))
    assert (plugin / "requirements.txt").read_text().split() == ["pulumi-mltrain==0.2.0"]
    (plugin / "requirements.txt").write_text(f"{wheel}\n")

    # A new TypeScript project, then `npm install`.
    source = tmp_path / "src" / "infra"
    source.mkdir(parents=True)
    (source / "Pulumi.yaml").write_text(PULUMI_YAML)
    (source / "package.json").write_text(json.dumps(PACKAGE_JSON, indent=4))
    (source / "index.ts").write_text(INDEX_TS)
    stack = stacks.alaya_stack(emulator, tmp_path, source, stack_type=node_go.ProjectStack)
    stack.env_extra["PATH"] = path_without_the_plugin()
    for folder in (plugin, stack.workdir):
        assert not folder.resolve().is_relative_to(ROOT)
    # Its node_modules start as the TypeScript example's (`npm ci` of the committed lock, whose versions
    # these are, once per session) without the example's own SDK and npm's record of it; `npm install`
    # then finds them up to date and writes the project's lock.
    node_go.copy_modules(typescript_modules, stack.workdir, without=("@mltrain", ".package-lock.json"))
    node_go.run_tool(node_go.tool("npm"), "install", "--prefer-offline", "--loglevel=error", cwd=stack.workdir)
    assert not (stack.workdir / "node_modules" / "@mltrain").exists()

    # `pulumi package add ../mltrain-plugin`
    result = subprocess.run([str(BIN / "pulumi"), "package", "add", "../mltrain-plugin", "--non-interactive"],
                            cwd=stack.workdir, env=stack.env(), capture_output=True, text=True, timeout=900,
                            check=False)
    if result.returncode != 0:
        raise PulumiFailed(["package", "add", "../mltrain-plugin"], result)
    assert 'import * as mltrain from "@mltrain/pulumi-mltrain";' in output_of(result), output_of(result)[-3000:]
    assert yaml.safe_load((stack.workdir / "Pulumi.yaml").read_text())["packages"] == {"mltrain": "../mltrain-plugin"}
    package_json = json.loads((stack.workdir / "package.json").read_text())
    assert package_json["dependencies"]["@mltrain/pulumi-mltrain"] == "file:sdks/mltrain", package_json
    assert (stack.workdir / "sdks" / "mltrain" / "bin" / "index.js").exists()  # compiled at its install
    assert (plugin / "venv" / "bin" / "python").exists()

    result = stack.up()
    [task] = tasks(emulator)
    assert stack.outputs()["trainingTaskId"] == str(task["id"])
    assert [r["type"] for r in managed(stack)] == ["mltrain:alaya:TrainingJob"]
    [provider] = [r for r in stack.export()["deployment"]["resources"] if r["type"] == "pulumi:providers:mltrain"]
    assert provider["inputs"].get("version") == "0.2.0", provider

    result = stack.destroy()
    assert summary(result).get("deleted") == 2, output_of(result)[-3000:]
    assert tasks(emulator) == []
    assert managed(stack) == []
