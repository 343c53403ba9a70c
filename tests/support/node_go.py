"""TypeScript and Go programs under the official Node.js and Go language hosts: their tools (npm, go),
the dependencies they install from the committed locks (package-lock.json, go.sum) and the stacks of the
repository's examples/typescript and examples/go.

Downloads are cached outside the clone (npm's cache under ~/.cache/pulumi-mltrain/npm, Go's module
cache and build cache where Go keeps them), so CI's fresh clone on the same machine fetches nothing twice.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .pulumi_cli import BIN, ROOT, Stack
from .shared import once

NPM_CACHE = Path(os.environ.get("MLTRAIN_NPM_CACHE", Path.home() / ".cache" / "pulumi-mltrain" / "npm"))


def tool(name: str) -> str:
    """The path of `name` (node, npm, go) on PATH, or a failure that says what to install."""
    found = shutil.which(name)
    assert found, (f"`{name}` is not on PATH: the TypeScript and Go tests need Node.js >= 20 with npm and Go >= 1.26 "
                   "(the Pulumi Go SDK's own minimum)")
    return found


def host(language: str) -> Path:
    """The official language host the bootstrap links into .tools/bin, or a failure naming the fix."""
    path = BIN / f"pulumi-language-{language}"
    assert path.exists(), (f"{path} is missing: run `bash scripts/bootstrap.sh` with the official hosts in "
                           "../shared/engine/official (or MLTRAIN_OFFICIAL_HOST)")
    return path


def tool_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """npm with the project's cache and no update notices; Go with the local toolchain only (no toolchain
    download) and a module cache that `rm -rf` can clean."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLTRAIN_")}
    env.update(npm_config_cache=str(NPM_CACHE), npm_config_update_notifier="false", npm_config_fund="false",
               npm_config_audit="false", GOTOOLCHAIN="local", GOFLAGS="-modcacherw")
    env.update(extra or {})
    return env


def run_tool(*argv: str | Path, cwd: Path, timeout: float = 900) -> str:
    result = subprocess.run([str(a) for a in argv], cwd=cwd, env=tool_env(), capture_output=True, text=True,
                            timeout=timeout, check=False)
    assert result.returncode == 0, (f"{' '.join(map(str, argv))} (in {cwd}) exited {result.returncode}:\n"
                                    f"{(result.stdout + result.stderr)[-6000:]}")
    return result.stdout + result.stderr


def build_nodejs_sdk() -> Path:
    """sdk/nodejs/bin, the npm package the TypeScript example installs (scripts/build-nodejs-sdk.sh)."""
    tool("npm")
    out = run_tool("bash", ROOT / "scripts" / "build-nodejs-sdk.sh", cwd=ROOT)
    return Path(out.strip().splitlines()[-1])


class ProjectStack(Stack):
    """A stack of a copy of a project as it is, at HOME/NAME (Stack.from_project makes every project a
    Python one), with npm's and Go's settings of `tool_env`."""

    @classmethod
    def workdir_for(cls, project: Path, home: Path) -> Path:
        return home / project.name

    @classmethod
    def from_project(cls, project: Path, home: Path, *, name: str = "test", main: str | None = None) -> ProjectStack:
        workdir = cls.workdir_for(project, home)
        shutil.copytree(project, workdir, ignore=shutil.ignore_patterns("node_modules", "bin", "Pulumi.*.yaml"))
        (home / "state").mkdir(parents=True, exist_ok=True)
        stack = cls(workdir=workdir, home=home, name=name)
        stack.env_extra.update({k: v for k, v in tool_env().items() if k.startswith(("npm_config_", "GO"))})
        stack.init()
        return stack


class ExampleStack(ProjectStack):
    """A stack of an example copied with the repository's layout around it: HOME/repo/examples/NAME beside
    HOME/repo/sdk (a link to the repository's sdk/), so that the example's relative paths to the SDKs
    (package.json's file:../../sdk/nodejs/bin, go.mod's replace ../../sdk/go) hold as they are committed."""

    @classmethod
    def workdir_for(cls, project: Path, home: Path) -> Path:
        (home / "repo").mkdir(parents=True)
        (home / "repo" / "sdk").symlink_to(ROOT / "sdk", target_is_directory=True)
        return home / "repo" / "examples" / project.name


def npm_ci(workdir: Path) -> None:
    """node_modules exactly as the committed package-lock.json says (`npm ci` fails on a stale lock)."""
    run_tool(tool("npm"), "ci", "--prefer-offline", "--loglevel=error", cwd=workdir)


def typescript_example_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/typescript's node_modules as `npm ci` installs them from the committed package-lock.json,
    made once per session and shared by its xdist workers (`support.shared.once`): in a copy of the example
    laid out as an `ExampleStack` (beside a link to the repository's sdk/, after `build_nodejs_sdk`), whose
    .npmrc (install-links=true) copies the SDK in, so the folder holds everything the program imports.
    `npm ci` costs about 13 CPU-s; a copy (`copy_modules`) about 3."""

    def make(folder: Path) -> Path:
        build_nodejs_sdk()
        example = ROOT / "examples" / "typescript"
        workdir = ExampleStack.workdir_for(example, folder)
        shutil.copytree(example, workdir, ignore=shutil.ignore_patterns("node_modules", "bin", "Pulumi.*.yaml"))
        npm_ci(workdir)
        return workdir / "node_modules"

    return once(tmp_path_factory, "typescript-example-modules", make)


def copy_modules(modules: Path, workdir: Path, *, without: tuple[str, ...] = ()) -> None:
    """`modules` copied to WORKDIR/node_modules (`cp -a`: .bin's relative links kept), without the entries
    named in `without` (e.g. a package folder and npm's hidden lockfile, which then no longer describes it)."""
    target = workdir / "node_modules"
    run_tool("cp", "-a", modules, target, cwd=workdir)
    for name in without:
        path = target / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def tsc_strict(workdir: Path) -> None:
    run_tool(workdir / "node_modules" / ".bin" / "tsc", "--strict", "--noEmit", "-p", ".", cwd=workdir)


def go_vet(workdir: Path) -> None:
    """`go vet ./...` with the committed go.mod and go.sum (read-only: a missing sum fails)."""
    run_tool(tool("go"), "vet", "-mod=readonly", "./...", cwd=workdir)
