"""TypeScript, Go and Python programs of an infra repo, installed from the release folder alone, as
docs/plugin-install.md tells a team: the SDK from its package manager (npm from the package tarball, Go
through a file:// module proxy, pip with --no-index and --find-links), then `pulumi install`, which fetches
the plugin the SDK names (schema.json's `pluginDownloadURL`, answered by a loopback server standing in
for the GitHub release). PATH holds none of this repository's virtualenvs. Each program wires a
StorageMount's `mount` into a job's `storageMounts`: up, a no-change preview, destroy."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support import node_go, stacks
from support.pulumi_cli import Stack, change_counts
from support.release import VERSION
from support.release_host import (
    NPM_ARCHIVE,
    ReleaseHost,
    clean_path,
    go_env,
    go_h1,
    go_module_forgotten,
    installed_plugin,
    pip_env,
    wheelhouse,
)
from tools.schema import GO_MODULE, NODEJS_PACKAGE, PLUGIN_DOWNLOAD_URL

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAMS = Path(__file__).parent / "programs"
QUICK = {"subscription_delay": 0.2, "task_state_delay": 0.2, "delete_delay": 0.2}


@pytest.fixture(scope="session")
def typescript_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return node_go.typescript_example_modules(tmp_path_factory)


def typescript(stack: Stack, release: Path, modules: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """package.json depends on the package as npm would fetch it (here the release's tarball). Its
    node_modules start as the TypeScript example's without its SDK (the same locked versions, copied:
    `npm install` then has only the package to add)."""
    node_go.host("nodejs")
    package = json.loads((stack.workdir / "package.json").read_text())
    package["dependencies"][NODEJS_PACKAGE] = f"file:{release / NPM_ARCHIVE}"
    (stack.workdir / "package.json").write_text(json.dumps(package, indent=4) + "\n")
    node_go.copy_modules(modules, stack.workdir, without=("@mltrain", ".package-lock.json"))
    stack.env_extra.update(npm_config_prefer_offline="true", PULUMI_NODEJS_TRANSPILE_ONLY="true")


def typescript_installed(stack: Stack, release: Path) -> None:
    installed = json.loads((stack.workdir / "node_modules" / NODEJS_PACKAGE / "package.json").read_text())
    assert installed["version"] == VERSION and installed["pulumi"]["server"] == PLUGIN_DOWNLOAD_URL, installed


def go(stack: Stack, release: Path, modules: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    node_go.host("go")
    assert f"{GO_MODULE} v{VERSION}" in (stack.workdir / "go.mod").read_text(), "the program requires this release"
    stack.env_extra.update(go_env(release))


def go_installed(stack: Stack, release: Path) -> None:
    """go.sum holds the hash of the release's module zip: the module came from the release's proxy."""
    assert f"{GO_MODULE} v{VERSION} {go_h1(release)}" in (stack.workdir / "go.sum").read_text()


def python(stack: Stack, release: Path, modules: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert (stack.workdir / "requirements.txt").read_text().split() == [f"pulumi-mltrain-native=={VERSION}"]
    stack.env_extra.update(pip_env(release, wheelhouse(tmp_path_factory, release)))


def python_installed(stack: Stack, release: Path) -> None:
    """The project's own venv has the SDK from the release and nothing of the dynamic resources: the plugin
    is the released executable."""
    site = next((stack.workdir / "venv" / "lib").glob("python3*/site-packages"))
    assert (site / f"pulumi_mltrain_native-{VERSION}.dist-info").is_dir(), sorted(p.name for p in site.iterdir())
    assert not (site / "pulumi_mltrain").exists()


LANGUAGES: dict[str, tuple[Callable[..., None], Callable[[Stack, Path], None]]] = {
    "typescript": (typescript, typescript_installed), "go": (go, go_installed), "python": (python, python_installed)}


@pytest.mark.parametrize("language", LANGUAGES)
def test_program_installed_from_the_release_runs_up_preview_and_destroy(
        language: str, release: Path, emulator: Any, tmp_path: Path, typescript_modules: Path,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    with go_module_forgotten() if language == "go" else contextlib.nullcontext():
        run(language, release, emulator, tmp_path, typescript_modules, tmp_path_factory)


def run(language: str, release: Path, emulator: Any, tmp_path: Path, typescript_modules: Path,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    prepare, installed = LANGUAGES[language]
    emulator.admin.set_settings(**QUICK)
    stack = stacks.alaya_stack(emulator, tmp_path, PROGRAMS / language, stack_type=node_go.ProjectStack)
    stack.env_extra["PATH"] = clean_path()
    prepare(stack, release, typescript_modules, tmp_path_factory)

    with ReleaseHost(release) as host:
        stack.env_extra.update(host.overrides())
        stack.run("install")
        assert host.plugin_downloads() == 1, host.served
    installed(stack, release)
    assert (installed_plugin(tmp_path) / "pulumi-resource-mltrain").is_file()

    # The server is gone for the engine's runs: everything comes from what was installed.
    stack.up()
    state = emulator.admin.state()
    [task] = [t for t in state["alaya"]["tasks"] if not t["deleting"]]
    assert stack.outputs()["trainingTaskId"] == str(task["id"])
    assert "/root/nas/datasets" in json.dumps(task), task
    assert set(change_counts(stack.preview_json())) == {"same"}

    stack.destroy()
    assert [t for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"]] == []
    assert [r["type"] for r in stack.resources() if r["type"].startswith("mltrain:")] == []
    # What the installs made is large (node_modules 90 MB, the venv 100, the plugin 60): gone once passed.
    for made in (stack.workdir / "node_modules", stack.workdir / "venv", installed_plugin(tmp_path)):
        shutil.rmtree(made, ignore_errors=True)
