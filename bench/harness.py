"""What every scenario needs: the in-process emulator, stacks of the bench programs, timing,
the dynamic provider processes' peak RSS, and a description of the machine and the engine.

Stacks are driven with the test suite's harness (tests/support/pulumi_cli.py): the real Pulumi
CLI, a throwaway PULUMI_HOME and file backend per stack, nothing written into the repository.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = Path(__file__).resolve().parent / "programs"
sys.path.insert(0, str(ROOT / "tests"))

from mltrain_emulator import EmulatorAdmin, EmulatorServer, EmulatorSettings, defaults  # noqa: E402
from support.pulumi_cli import BIN, VENV, Stack  # noqa: E402

ZERO_DELAYS = {"subscription_delay": 0.0, "task_state_delay": 0.0, "delete_delay": 0.0}
OURS, BASELINE, PLUGIN = "alaya_jobs", "noop_baseline", "plugin_jobs"
PLUGIN_BIN = VENV / "bin" / "pulumi-resource-mltrain"  # the console script the engine finds on PATH
RESULT_POLL = "GET /v1/subscription/training/result"


class Emulator:
    """The emulator in this process (uvicorn thread) on 127.0.0.1, and its admin client."""

    def __init__(self) -> None:
        self.server = EmulatorServer(EmulatorSettings(**ZERO_DELAYS))
        self.admin: EmulatorAdmin

    def __enter__(self) -> Emulator:
        self.server.start()
        self.admin = EmulatorAdmin(self.server.url, timeout=30.0)
        return self

    def __exit__(self, *exc: object) -> None:
        self.admin.close()
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    def reset(self, **settings: Any) -> None:
        """Fresh world (no objects, counts or faults, clock at wall time), then the given settings."""
        self.admin.reset()
        self.admin.clear_faults()
        self.admin.set_settings(**{**ZERO_DELAYS, **settings})

    def calls(self) -> int:
        """Platform API calls served so far (admin calls are not counted)."""
        return int(self.admin.requests().get("total", 0))

    def endpoint_calls(self, key: str) -> int:
        return int(self.admin.requests().get("endpoints", {}).get(key, 0))

    def cpu(self) -> float:
        """CPU seconds this emulator's server thread has used so far (scenario 2 runs another beside it)."""
        thread = getattr(self.server, "_thread", None)
        native_id = getattr(thread, "native_id", None)
        return task_cpu(native_id) if native_id is not None else thread_cpu("mltrain-emulator")

    def world(self) -> Any:
        """The emulator's world, read-only, for the exact clock times scenario 3 needs."""
        return self.server.app.state.world


@dataclass
class BenchStack:
    stack: Stack
    tmp: Path
    program: str

    def timed(self, command: str, *extra: str, check: bool = True) -> tuple[float, Any]:
        """(seconds, result) of a Stack method: up, preview, preview_json, destroy, ..."""
        start = time.monotonic()
        method = getattr(self.stack, command)
        result = method(*extra, check=check) if command in ("up", "preview", "destroy", "refresh") else method(*extra)
        return time.monotonic() - start, result

    def set(self, **config: Any) -> None:
        for key, value in config.items():
            self.stack.set_config(key, str(value))


@contextmanager
def bench_stack(program: str, emulator: Emulator, **config: Any) -> Iterator[BenchStack]:
    """A stack of bench/programs/<program> wired to the emulator; removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix=f"mltrain-bench-{program}-"))
    try:
        stack = Stack.from_project(PROGRAMS / program, tmp)
        # The baseline's provider class lives next to its program; the dynamic provider process
        # must import it by name to unpickle it.
        stack.env_extra["PYTHONPATH"] = str(stack.workdir)
        if program == PLUGIN:  # the engine runs the plugin from PATH, as an installed wheel's script
            if not PLUGIN_BIN.exists():
                raise RuntimeError(f"{PLUGIN_BIN} is missing: run `bash scripts/bootstrap.sh` (pip install -e .)")
            stack.env_extra["PATH"] = os.pathsep.join((str(BIN), str(PLUGIN_BIN.parent), os.environ.get("PATH", "")))
        bench = BenchStack(stack, tmp, program)
        stack.set_config("mltrain:alayaEndpoint", emulator.url)
        stack.set_config("mltrain:alayaApiKey", defaults.DEFAULT_ALAYA_API_KEY, secret=True)
        if program != BASELINE:
            # A destroy that deletes, as every release before kept run records did: the rows compare the
            # same work with earlier runs (kept records make a destroy stop and tag instead, README.md).
            stack.set_config("mltrain:keepRuns", "0")
        bench.set(**config)
        yield bench
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


# ----- the stack's processes: peak RSS and CPU ----------------------------------------------------------
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# Which processes of a stack are sampled, by a marker in their command line.
_KINDS = {
    "provider": (b"pulumi.dynamic", b"language_host.py\0--provider", b"pulumi-resource-mltrain"),
    "program": (b"language_host.py\0--run", b"pulumi-language-python-exec"),
    "engine": (b"/pulumi\0",),  # the CLI itself: `.../pulumi up ...`
}


@dataclass
class Sampled:
    hwm_kb: int = 0
    cpu_s: float = 0.0


@dataclass
class ProcessSampler:
    """Samples /proc while CLI commands run, for the processes whose PULUMI_HOME is this stack's:
    the provider process(es) (`python -m pulumi.dynamic`, or `language_host.py --provider`, or the
    native plugin `pulumi-resource-mltrain`) and the program process. VmHWM
    (peak RSS) and CPU time only grow, so the last sample before a process exits is within one
    interval (50 ms) of its final value."""

    home: Path
    interval: float = 0.05
    seen: dict[tuple[str, int], Sampled] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> ProcessSampler:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="process-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def peak_mb(self, kind: str = "provider") -> float:
        return max((v.hwm_kb for (k, _), v in self.seen.items() if k == kind), default=0) / 1024

    def total_mb(self, kind: str = "provider") -> float:
        """The peaks of every process of `kind` added up (they need not coincide: an upper bound)."""
        return sum(v.hwm_kb for (k, _), v in self.seen.items() if k == kind) / 1024

    def cpu_s(self, kind: str = "provider") -> float:
        return sum(v.cpu_s for (k, _), v in self.seen.items() if k == kind)

    def processes(self, kind: str = "provider") -> int:
        return sum(1 for k, _ in self.seen if k == kind)

    def _run(self) -> None:
        marker = f"PULUMI_HOME={self.home / 'pulumi-home'}".encode()
        while not self._stop.is_set():
            for pid in _pids():
                try:
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                    kind = next((k for k, marks in _KINDS.items() if any(m in cmdline for m in marks)), None)
                    if kind is None or marker not in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                        continue
                    status = Path(f"/proc/{pid}/status").read_text()
                    stat = Path(f"/proc/{pid}/stat").read_text()
                except OSError:
                    continue
                entry = self.seen.setdefault((kind, pid), Sampled())
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        entry.hwm_kb = max(entry.hwm_kb, int(line.split()[1]))
                fields = stat.rsplit(")", 1)[-1].split()
                entry.cpu_s = max(entry.cpu_s, (int(fields[11]) + int(fields[12])) / _TICK)
            self._stop.wait(self.interval)


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def task_cpu(native_id: int) -> float:
    """CPU seconds one thread of this process has used so far."""
    try:
        fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[-1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def thread_cpu(name: str) -> float:
    """CPU seconds a thread of this process has used so far (the emulator's: "mltrain-emulator")."""
    for thread in threading.enumerate():
        if thread.name == name and thread.native_id is not None:
            try:
                fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[-1].split()
            except OSError:
                return 0.0
            return (int(fields[11]) + int(fields[12])) / _TICK
    return 0.0


# ----- the machine and the engine ----------------------------------------------------------------------
def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB RAM"
                break
    except OSError:
        pass
    from importlib.metadata import version

    engine = subprocess.run([str(BIN / "pulumi"), "version"], capture_output=True, text=True, check=False,
                            timeout=60).stdout.strip()
    return {
        "cpu": f"{cpu}, {os.cpu_count()} CPUs",
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "engine": f"Pulumi CLI {engine}",
        "sdk": f"pulumi (Python SDK) {version('pulumi')}",
        "language_host": _language_host(),
        "load average at start (1/5/15 min)": load(),
    }


def load() -> str:
    """Other work on the machine skews every timing: printed at the start and the end of a run."""
    try:
        return " / ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def settle(limit: float = 1.0, longest: float = 150.0) -> str:
    """Wait (at most `longest` seconds) until the 1-minute load average is at most `limit` per core,
    so that a run started right after other work (a test suite) does not measure it; says what it did."""
    cores = os.cpu_count() or 1
    start = time.monotonic()
    while time.monotonic() - start < longest:
        try:
            now = os.getloadavg()[0]
        except OSError:
            return "load average unknown: not waited for"
        if now <= limit * cores:
            waited = time.monotonic() - start
            return f"waited {waited:.0f} s for a 1-minute load average ≤ {limit * cores:g} ({now:.2f})"
        time.sleep(5)
    return f"still loaded after {longest:.0f} s ({os.getloadavg()[0]:.2f}): measured anyway"


def _language_host() -> str:
    """Which Python language host the engine runs: the official one (a Go binary, linked from
    ../shared/engine/official by the bootstrap) or the repository's script."""
    host = BIN / "pulumi-language-python"
    try:
        head = host.read_bytes()[:4096]
    except OSError:
        return "unknown"
    if head.startswith(b"\x7fELF"):
        return f"official (the Pulumi Python language host, {host.resolve()})"
    if b"language_host.py" in head:
        return "scripts/engine/language_host.py (the repository's Python language host, not the official one)"
    return f"unknown ({host.resolve()})"
