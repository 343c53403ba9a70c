"""Scenario 17: the released plugin's start-up against the console script's.

The release ships the plugin as a frozen executable (`pulumi-resource-mltrain-v<version>-<os>-<arch>.tar.gz`,
a PyInstaller one-folder build: tools/release.py); the other scenarios run the console script of the
project's venv (`.venv/bin/pulumi-resource-mltrain`), as the plugin tests do. Every `pulumi` command that
uses the plugin starts it once and waits for its handshake (the port it prints) before its first call,
so that moment is the start-up a user pays per command: the engine's first Check comes after it
(scenario 16). Measured here from the process's start to the port on its stdout, the two alternating,
with the process's own CPU at that moment (/proc/<pid>/stat); then the sizes of the archive and of the
folder it unpacks to. The archive is this platform's, from `tools.release --plugin-only` (from its
cache when the plugin's sources are unchanged, else built: about 25 s).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from bench_plan import Facts, Plan
from harness import PLUGIN_BIN, ROOT, Emulator
from report import Row, ratio, secs, verdict

RUNS = {True: 7, False: 15}  # --quick, full: each kind, alternating
TARGET = 1.10  # no worse than the console script, within this machine's run-to-run spread


def _version() -> str:
    import tomllib

    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def _archive(folder: Path) -> Path:
    """This platform's plugin archive of the current sources (the release command's own build)."""
    subprocess.run([sys.executable, "-m", "tools.release", _version(), "--plugin-only", "--out", str(folder)],
                   cwd=ROOT, check=True, timeout=1200, capture_output=True)
    [archive] = folder.glob("pulumi-resource-mltrain-v*.tar.gz")
    return archive


def _cpu(pid: int) -> float:
    """User + system CPU seconds of a running process, from /proc (its own, not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def handshake(executable: Path) -> tuple[float, float]:
    """Seconds from the start to the printed port, and the process's CPU by then. The engine address is
    a closed port: the plugin prints its own port before it ever calls the engine."""
    started = time.perf_counter()
    process = subprocess.Popen([str(executable), "127.0.0.1:1"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()
        wall = time.perf_counter() - started
        cpu = _cpu(process.pid)
        if not port.isdigit():
            raise RuntimeError(f"{executable} printed {port!r}, not a port")
        return wall, cpu
    finally:
        process.kill()
        process.wait(timeout=30)


def startup(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    runs = RUNS[plan.quick]
    with tempfile.TemporaryDirectory(prefix="bench-plugin-") as tmp:
        archive = _archive(Path(tmp) / "dist")
        archived = archive.stat().st_size
        unpacked = Path(tmp) / "plugin"
        with tarfile.open(archive) as tar:
            tar.extractall(unpacked, filter="tar")
        frozen = unpacked / "pulumi-resource-mltrain"
        size = sum(p.stat().st_size for p in unpacked.rglob("*") if p.is_file())
        handshake(frozen), handshake(PLUGIN_BIN)  # the first of each warms the page cache
        found: dict[str, list[tuple[float, float]]] = {"frozen": [], "script": []}
        for _ in range(runs):
            found["frozen"].append(handshake(frozen))
            found["script"].append(handshake(PLUGIN_BIN))
    wall = {k: statistics.median(w for w, _ in v) for k, v in found.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in found.items()}
    value = wall["frozen"] / wall["script"]
    facts["plugin_startup"] = (wall["frozen"], wall["script"], archived, size)
    return [Row(
        "17 plugin start-up: the released executable vs the console script", str(runs),
        secs(wall["frozen"]), secs(wall["script"]), ratio(wall["frozen"], wall["script"]), "0",
        f"from the process's start to its handshake (the port it prints), medians of {runs} alternating runs each; "
        f"CPU by then {cpu['frozen']:.2f} / {cpu['script']:.2f} s (frozen / script); the released archive "
        f"`{archive.name}` {archived / 1e6:.0f} MB, unpacked {size / 1e6:.0f} MB (a PyInstaller "
        "one-folder build: the interpreter, grpc, pydantic and the package beside the executable; a one-file "
        "build unpacks all of it into a temporary folder at every start: docs/development.md); the script is "
        f"`{PLUGIN_BIN.relative_to(ROOT)}`, which the other scenarios run",
        target=f"ratio ≤ {TARGET:.2f} (no worse than the console script, issue 46)", verdict=verdict(value <= TARGET))]
