"""Drive the real Pulumi CLI (built by scripts/bootstrap.sh) on a throwaway copy of a project.

Every stack gets its own PULUMI_HOME, file backend and passphrase: no Pulumi Cloud, no network,
nothing written into the repository.

The engine commands (`up`, `preview`, `refresh`, `destroy`, `import`, ...) always run the CLI. The
bookkeeping around them does not need a process each (each one costs 0.3-0.5 CPU-s, hundreds of
them per suite): on the default file backend a new stack, its plain config and the reads of its
state are the CLI's own files, written and read here (`FileBackend`), and secret config values
are encrypted by the CLI once per worker. Another backend (S3) or passphrase takes the CLI path.

`MLTRAIN_TEST_COMMAND_LOG=FILE` appends one line per CLI command (test, command, wall s, CPU-s of
the process tree): where a suite's time goes.
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".tools" / "bin"
VENV = ROOT / ".venv"
# The programs' environment: the project's runtime dependencies only, as in a user's infra repo.
PROGRAMS_VENV = ROOT / ".venv-programs"
PASSPHRASE = "mltrain-test"
SECRET_SIG = "4dabf18193072939515e22adad3ad1c4"


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
        PULUMI_CONFIG_PASSPHRASE=PASSPHRASE,
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        PULUMI_SKIP_CONFIRMATIONS="true",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        # A venv the engine makes (`pulumi package add`) skips pip's byte-compiling of every module,
        # half of an install's CPU: what its processes import is compiled once, at first import.
        PIP_NO_COMPILE="1",
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
        """Copy `project` (a folder with Pulumi.yaml) under `home`, pointing it at the programs' venv."""
        workdir = home / "project"
        shutil.copytree(project, workdir, ignore=shutil.ignore_patterns("Pulumi.*.yaml", "__pycache__"))
        spec = yaml.safe_load((workdir / "Pulumi.yaml").read_text())
        spec["runtime"] = {"name": "python", "options": {"toolchain": "pip", "virtualenv": str(PROGRAMS_VENV)}}
        if main:
            spec["main"] = main
        (workdir / "Pulumi.yaml").write_text(yaml.safe_dump(spec))
        (home / "state").mkdir(parents=True, exist_ok=True)
        stack = cls(workdir=workdir, home=home, name=name)
        stack.init()
        return stack

    @property
    def project(self) -> str:
        return str(yaml.safe_load((self.workdir / "Pulumi.yaml").read_text())["name"])

    def files(self) -> FileBackend | None:
        """The stack's files when its backend is this home's file backend with the test passphrase."""
        env = self.env()
        if (env.get("PULUMI_BACKEND_URL") != f"file://{self.home / 'state'}"
                or env.get("PULUMI_CONFIG_PASSPHRASE") != PASSPHRASE or "/" in self.name):
            return None
        return FileBackend(self.home / "state", self.workdir, self.project, self.name)

    def init(self) -> None:
        """`pulumi stack init`: the files it writes, or the CLI on another backend."""
        files = self.files()
        if files is None:
            self.run("stack", "init", self.name)
        else:
            files.init(_template())

    def env(self) -> dict[str, str]:
        return engine_env(self.home, self.env_extra)

    def run(self, *args: str, check: bool = True, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
        argv = [str(BIN / "pulumi"), *args, "--non-interactive"]
        if args and args[0] not in ("stack", "config", "install", "plugin", "schema"):  # those take no --stack
            argv += ["--stack", self.name]
        started, cpu = time.monotonic(), _children_cpu()
        result = subprocess.run(argv, cwd=self.workdir, env=self.env(), capture_output=True, text=True,
                                timeout=timeout or self.timeout, check=False)
        _log_command(args, time.monotonic() - started, _children_cpu() - cpu)
        if check and result.returncode != 0:
            raise PulumiFailed(list(args), result)
        return result

    def start(self, *args: str) -> Running:
        """The CLI in a session (process group) of its own, as a CI runner starts a step: the caller
        signals the group (`Running.interrupt`) and waits for it."""
        argv = [str(BIN / "pulumi"), *args, "--non-interactive", "--stack", self.name]
        log = self.home / f"{args[0]}-{time.monotonic_ns()}.log"
        with log.open("w") as sink:
            process = subprocess.Popen(argv, cwd=self.workdir, env=self.env(), stdout=sink, stderr=subprocess.STDOUT,
                                       text=True, start_new_session=True)
        return Running(process, log)

    def set_config(self, key: str, value: str, *, secret: bool = False) -> None:
        self.set_config_all({} if secret else {key: value}, {key: value} if secret else None)

    def set_config_all(self, plain: dict[str, str], secret: dict[str, str] | None = None) -> None:
        """`pulumi config set-all`: written into Pulumi.<stack>.yaml (secrets encrypted by the CLI
        once per worker and value), or one CLI process on another backend."""
        files = self.files()
        if files is not None and (not secret or files.salt() == _template().salt):
            values: dict[str, Any] = dict(plain)
            values.update({k: {"secure": v} for k, v in _template().encrypt(secret or {}).items()})
            files.set_config(values)
            return
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
        """`pulumi stack output --json --show-secrets`; read from the state when it holds no secret."""
        files = self.files()
        state = files.deployment() if files else None
        if state is not None:
            stack = [r for r in state.get("resources", []) if r.get("type") == "pulumi:pulumi:Stack"]
            outputs = dict(stack[0].get("outputs") or {}) if stack else {}
            if SECRET_SIG not in json.dumps(outputs):
                return outputs
        result = self.run("stack", "output", "--json", "--show-secrets", "--stack", self.name)
        return dict(json.loads(result.stdout))

    def export(self, *, show_secrets: bool = False) -> dict[str, Any]:
        """`pulumi stack export`: the state file's latest deployment, or the CLI (secrets shown)."""
        files = None if show_secrets else self.files()
        state = files.deployment() if files else None
        if state is not None:
            return {"version": 3, "deployment": state}
        flags = ["--show-secrets"] if show_secrets else []
        result = self.run("stack", "export", *flags, "--stack", self.name)
        return dict(json.loads(result.stdout))

    def resources(self, type_suffix: str = "") -> list[dict[str, Any]]:
        deployment = self.export().get("deployment", {})
        return [r for r in deployment.get("resources", []) if r.get("type", "").endswith(type_suffix)]


@dataclass
class Running:
    """A CLI command started by `Stack.start`, and the file its output goes to."""

    process: subprocess.Popen[str]
    log: Path

    def interrupt(self, sig: int = signal.SIGINT) -> float:
        """Send `sig` to its process group, as GitHub Actions cancels a step; when (monotonic seconds)."""
        os.killpg(self.process.pid, sig)
        return time.monotonic()

    def wait(self, timeout: float) -> int:
        """Its exit code; a command still running after `timeout` seconds is killed (group) and fails the test."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            tail = self.output()[-4000:]
            raise AssertionError(f"the command was still running {timeout:.0f}s later:\n{tail}") from None

    def output(self) -> str:
        return self.log.read_text()


def change_counts(preview: dict[str, Any]) -> dict[str, int]:
    """`pulumi preview --json` change summary, e.g. {"same": 3, "replace": 1}."""
    return {k: int(v) for k, v in (preview.get("changeSummary") or {}).items()}


@dataclass
class FileBackend:
    """The files of one stack of a file backend (`file://STATE`), as the CLI itself writes them:
    `.pulumi/meta.yaml`, `.pulumi/stacks/<project>/<stack>.json` (the checkpoint) and the project's
    `Pulumi.<stack>.yaml` (encryption salt and config)."""

    state: Path
    workdir: Path
    project: str
    stack: str

    @property
    def checkpoint(self) -> Path:
        return self.state / ".pulumi" / "stacks" / self.project / f"{self.stack}.json"

    @property
    def config_file(self) -> Path:
        return self.workdir / f"Pulumi.{self.stack}.yaml"

    def init(self, template: _Template) -> None:
        meta = self.state / ".pulumi" / "meta.yaml"
        if not meta.exists():
            meta.parent.mkdir(parents=True, exist_ok=True)
            meta.write_text(template.meta)
        if self.checkpoint.exists():
            raise FileExistsError(f"stack {self.stack!r} already exists in {self.state}")
        self.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        latest = {**template.latest, "metadata": {}}
        stack_ref = f"organization/{self.project}/{self.stack}"
        self.checkpoint.write_text(json.dumps({"version": 3, "checkpoint": {"stack": stack_ref, "latest": latest}}))
        self.config_file.write_text(yaml.safe_dump({"encryptionsalt": template.salt}))

    def set_config(self, values: dict[str, Any]) -> None:
        document = yaml.safe_load(self.config_file.read_text()) or {}
        config = document.setdefault("config", {})
        for key, value in values.items():
            config[key if ":" in key else f"{self.project}:{key}"] = value
        self.config_file.write_text(yaml.safe_dump(document, sort_keys=True))

    def salt(self) -> str | None:
        """The stack's own salt: a stack made by `pulumi stack init` has its own, not the template's."""
        document = yaml.safe_load(self.config_file.read_text()) if self.config_file.exists() else None
        return str(document["encryptionsalt"]) if document and "encryptionsalt" in document else None

    def config(self) -> dict[str, Any]:
        return dict((yaml.safe_load(self.config_file.read_text()) or {}).get("config") or {})

    def deployment(self) -> dict[str, Any] | None:
        if not self.checkpoint.exists():
            return None
        latest = json.loads(self.checkpoint.read_text())["checkpoint"].get("latest")
        return dict(latest) if latest is not None else None


@dataclass
class _Template:
    """One stack made by `pulumi stack init` in this worker: its salt, manifest and secrets provider
    serve every new stack, so ciphertexts made for it are valid in all of them."""

    home: Path
    meta: str
    salt: str
    latest: dict[str, Any]
    ciphertexts: dict[str, str] = field(default_factory=dict)

    def encrypt(self, secrets: dict[str, str]) -> dict[str, str]:
        missing = sorted({v for v in secrets.values() if v not in self.ciphertexts})
        if missing:
            keys = {f"tmpl:s{i}": value for i, value in enumerate(missing)}
            flags = [arg for k, v in keys.items() for arg in ("--secret", f"{k}={v}")]
            subprocess.run([str(BIN / "pulumi"), "config", "set-all", *flags, "--stack", "template",
                            "--non-interactive"], cwd=self.home / "project", env=engine_env(self.home),
                           capture_output=True, text=True, timeout=120, check=True)
            config = yaml.safe_load((self.home / "project" / "Pulumi.template.yaml").read_text())["config"]
            self.ciphertexts.update({value: str(config[key]["secure"]) for key, value in keys.items()})
        return {key: self.ciphertexts[value] for key, value in secrets.items()}


_TEMPLATE: _Template | None = None
_TEMPLATE_LOCK = threading.Lock()


def _template() -> _Template:
    global _TEMPLATE
    with _TEMPLATE_LOCK:
        if _TEMPLATE is None:
            home = Path(tempfile.mkdtemp(prefix="mltrain-stack-template-"))
            atexit.register(shutil.rmtree, home, True)
            (home / "project").mkdir()
            (home / "project" / "Pulumi.yaml").write_text("name: tmpl\nruntime: python\n")
            (home / "state").mkdir()
            subprocess.run([str(BIN / "pulumi"), "stack", "init", "template", "--non-interactive"],
                           cwd=home / "project", env=engine_env(home), capture_output=True, text=True,
                           timeout=120, check=True)
            files = FileBackend(home / "state", home / "project", "tmpl", "template")
            latest = files.deployment() or {}
            _TEMPLATE = _Template(
                home=home, meta=(home / "state" / ".pulumi" / "meta.yaml").read_text(),
                salt=str(yaml.safe_load(files.config_file.read_text())["encryptionsalt"]),
                latest={k: v for k, v in latest.items() if k in ("manifest", "secrets_providers")})
        return _TEMPLATE


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _log_command(args: tuple[str, ...], wall: float, cpu: float) -> None:
    path = os.environ.get("MLTRAIN_TEST_COMMAND_LOG")
    if path:
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{test}\t{' '.join(args[:2])}\t{wall:.2f}\t{cpu:.2f}\n")
