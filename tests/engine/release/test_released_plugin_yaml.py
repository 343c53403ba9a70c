"""The released plugin with Pulumi YAML, installed the two ways docs/plugin-install.md names, from the
release folder (`bash scripts/release.sh`) served on loopback in place of the GitHub release, on a PATH
with none of this repository's virtualenvs (no interpreter there imports pulumi_mltrain): the plugin is
the frozen executable, which needs no Python.

- `pulumi plugin install resource mltrain v<version> --server <url>`, then a YAML program that wires a
  StorageMount's `mount` into a job's `storageMounts`: up, a no-change preview, destroy;
- `pulumi install` in two fresh clones of an infra repo whose Pulumi.yaml names the plugin (its version
  and download URL), both at once on one machine, then a preview in each."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from support.pulumi_cli import Stack, change_counts
from support.release import VERSION
from support.release_host import PLUGIN_ARCHIVE, ReleaseHost, clean_path, installed_plugin

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAM = Path(__file__).parent / "programs" / "yaml_storage_mount"
QUICK = {"subscription_delay": 0.2, "task_state_delay": 0.2, "delete_delay": 0.2}


def yaml_stack(workdir: Path, home: Path, emulator: Any, name: str = "test") -> Stack:
    """A stack of the YAML project at `workdir`, pointed at the emulator, on a clean PATH."""
    assert "version: " + VERSION in (workdir / "Pulumi.yaml").read_text(), "the program pins this release"
    (home / "state").mkdir(parents=True, exist_ok=True)
    stack = Stack(workdir=workdir, home=home, name=name)
    stack.init()
    stack.set_config_all({"alayaEndpoint": emulator.url}, {"alayaApiKey": emulator.alaya_api_key})
    stack.env_extra["PATH"] = clean_path()
    return stack


def live_tasks(emulator: Any) -> list[dict[str, Any]]:
    return [t for t in emulator.admin.state()["alaya"]["tasks"] if not t.get("deleting")]


def test_plugin_install_from_the_release_then_a_yaml_program_wires_a_storage_mount(
        release: Path, emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(**QUICK)
    workdir = tmp_path / "training"
    shutil.copytree(PROGRAM, workdir)
    stack = yaml_stack(workdir, tmp_path, emulator)

    with ReleaseHost(release) as host:
        stack.run("plugin", "install", "resource", "mltrain", f"v{VERSION}", "--server", f"{host.url}/")
        assert host.served == [f"/{PLUGIN_ARCHIVE}"], host.served
    plugin = installed_plugin(tmp_path) / "pulumi-resource-mltrain"
    assert plugin.is_file() and os.access(plugin, os.X_OK), sorted(p.name for p in plugin.parent.iterdir())
    assert not (plugin.parent / "PulumiPlugin.yaml").exists(), "an executable plugin, run as it is"
    # The frozen plugin serves schema.json (its package data), and the schema passes the engine's check.
    stack.run("schema", "check", str(plugin))

    # The server is gone: everything below runs from the installed plugin.
    stack.up()
    [task] = live_tasks(emulator)
    outputs = stack.outputs()
    assert outputs["trainingTaskId"] == str(task["id"]) and outputs["mountPath"] == "/root/nas/datasets", outputs
    assert "/root/nas/datasets" in json.dumps(task) and "datasets" in json.dumps(task), task
    assert set(change_counts(stack.preview_json())) == {"same"}

    stack.destroy()
    assert live_tasks(emulator) == []
    assert [r["type"] for r in stack.resources() if r["type"].startswith("mltrain:")] == []
    shutil.rmtree(installed_plugin(tmp_path), ignore_errors=True)  # 60 MB, once passed


def test_pulumi_install_in_two_fresh_clones_at_once(release: Path, emulator: Any, tmp_path: Path) -> None:
    """Pulumi.yaml names the plugin (the provider's `version` and `pluginDownloadURL`); `pulumi install`
    fetches it from there, two at once into one plugin cache (one PULUMI_HOME), each clone then previews."""
    emulator.admin.set_settings(**QUICK)
    origin = tmp_path / "infra.git"
    shutil.copytree(PROGRAM, origin)
    git = ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.com", "-c", "init.defaultBranch=main"]
    for argv in (["init", "-q"], ["add", "Pulumi.yaml"], ["commit", "-q", "-m", "infra"]):
        subprocess.run([*git, *argv], cwd=origin, check=True, timeout=60, capture_output=True)
    clones = [tmp_path / "a" / "training", tmp_path / "b" / "training"]
    for clone in clones:
        subprocess.run([*git, "clone", "-q", str(origin), str(clone)], check=True, timeout=60, capture_output=True)
    stacks = [yaml_stack(clone, tmp_path, emulator, name=clone.parent.name) for clone in clones]

    with ReleaseHost(release) as host:
        results: dict[str, Any] = {}

        def install(stack: Stack) -> None:
            stack.env_extra.update(host.overrides())
            results[stack.name] = stack.run("install", check=False)

        threads = [threading.Thread(target=install, args=(stack,)) for stack in stacks]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=600)
        assert all(not t.is_alive() for t in threads)
        for name, result in results.items():
            assert result.returncode == 0, f"{name}: {result.stdout + result.stderr}"
        assert 1 <= host.plugin_downloads() <= 2, host.served
    plugins = installed_plugin(tmp_path).parent
    assert sorted(p.name for p in plugins.iterdir() if not p.name.endswith(".lock")) == [f"resource-mltrain-v{VERSION}"]
    assert (installed_plugin(tmp_path) / "pulumi-resource-mltrain").is_file()

    for stack in stacks:
        counts = change_counts(stack.preview_json())
        assert counts == {"create": 4}, counts  # the stack, the provider, the mount and the job
    assert live_tasks(emulator) == []
    shutil.rmtree(installed_plugin(tmp_path), ignore_errors=True)  # 60 MB, once passed
