"""Drive the real Pulumi CLI (built by scripts/bootstrap.sh) on a throwaway copy of a project.

Every stack gets its own PULUMI_HOME, file backend and passphrase: no Pulumi Cloud, no network,
nothing written into the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".tools" / "bin"
VENV = ROOT / ".venv"


class PulumiFailed(AssertionError):
    def __init__(self, args: list[str], result: subprocess.CompletedProcess[str]) -> None:
        self.result = result
        self.output = result.stdout + result.stderr
        super().__init__(f"pulumi {' '.join(args)} exited {result.returncode}:\n{self.output[-6000:]}")


def ignore_sigint() -> None:
    """A `preexec_fn` that starts a child as a background job of a script or `nohup` would: SIGINT
    ignored, the disposition the engine's plugins must override to stop on the engine's SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def engine_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        PULUMI_HOME=str(home / "pulumi-home"),
        PULUMI_BACKEND_URL=f"file://{home / 'state'}",
        PULUMI_CONFIG_PASSPHRASE="mltrain-test",
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        PULUMI_SKIP_CONFIRMATIONS="true",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        NO_COLOR="1",
    )
    for var in [k for k in env if k.startswith("MLTRAIN_")]:
        env.pop(var)  # stack config is the only source of settings in tests
    env.update(extra or {})
    return env


@dataclass
class Stack:
    """A copy of a Pulumi project with one stack, and methods for the CLI commands."""

    workdir: Path
    home: Path
    name: str = "test"
    env_extra: dict[str, str] = field(default_factory=dict)
    timeout: float = 600.0

    @classmethod
    def from_project(cls, project: Path, home: Path, *, name: str = "test", main: str | None = None) -> Stack:
        """Copy `project` (a folder with Pulumi.yaml) under `home`, pointing it at the repo's venv."""
        workdir = home / "project"
        shutil.copytree(project, workdir, ignore=shutil.ignore_patterns("Pulumi.*.yaml", "__pycache__"))
        spec = yaml.safe_load((workdir / "Pulumi.yaml").read_text())
        spec["runtime"] = {"name": "python", "options": {"toolchain": "pip", "virtualenv": str(VENV)}}
        if main:
            spec["main"] = main
        (workdir / "Pulumi.yaml").write_text(yaml.safe_dump(spec))
        (home / "state").mkdir(parents=True, exist_ok=True)
        stack = cls(workdir=workdir, home=home, name=name)
        stack.run("stack", "init", name)
        return stack

    def env(self) -> dict[str, str]:
        return engine_env(self.home, self.env_extra)

    def run(self, *args: str, check: bool = True, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
        argv = [str(BIN / "pulumi"), *args, "--non-interactive"]
        if args and args[0] not in ("stack", "config"):
            argv += ["--stack", self.name]
        result = subprocess.run(argv, cwd=self.workdir, env=self.env(), capture_output=True, text=True,
                                timeout=timeout or self.timeout, check=False)
        if check and result.returncode != 0:
            raise PulumiFailed(list(args), result)
        return result

    def set_config(self, key: str, value: str, *, secret: bool = False) -> None:
        self.run("config", "set", *(["--secret"] if secret else []), key, value, "--stack", self.name)

    def set_config_all(self, plain: dict[str, str], secret: dict[str, str] | None = None) -> None:
        """Several keys in one CLI process (`pulumi config set-all`): each process costs ~0.3-0.9 s."""
        flags = [arg for k, v in plain.items() for arg in ("--plaintext", f"{k}={v}")]
        flags += [arg for k, v in (secret or {}).items() for arg in ("--secret", f"{k}={v}")]
        if flags:
            self.run("config", "set-all", *flags, "--stack", self.name)

    def up(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("up", "--yes", "--skip-preview", *extra, check=check)

    def preview(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("preview", "--diff", *extra, check=check)

    def preview_json(self, *extra: str) -> dict[str, Any]:
        result = self.run("preview", "--json", *extra)
        return dict(json.loads(result.stdout))

    def refresh(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("refresh", "--yes", "--skip-preview", *extra, check=check)

    def destroy(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("destroy", "--yes", "--skip-preview", *extra, check=check)

    def outputs(self) -> dict[str, Any]:
        result = self.run("stack", "output", "--json", "--show-secrets", "--stack", self.name)
        return dict(json.loads(result.stdout))

    def export(self, *, show_secrets: bool = False) -> dict[str, Any]:
        flags = ["--show-secrets"] if show_secrets else []
        result = self.run("stack", "export", *flags, "--stack", self.name)
        return dict(json.loads(result.stdout))

    def resources(self, type_suffix: str = "") -> list[dict[str, Any]]:
        deployment = self.export().get("deployment", {})
        return [r for r in deployment.get("resources", []) if r.get("type", "").endswith(type_suffix)]


def change_counts(preview: dict[str, Any]) -> dict[str, int]:
    """`pulumi preview --json` change summary, e.g. {"same": 3, "replace": 1}."""
    return {k: int(v) for k, v in (preview.get("changeSummary") or {}).items()}
