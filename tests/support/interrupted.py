"""An interrupted `pulumi up`: started in its own process group, killed there with SIGKILL (as an OOM
kill or a lost CI runner ends it: no chance to clean up), and the plugins it started watched until
they exit by themselves."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from .pulumi_cli import BIN, Stack

# Seconds the plugins of a killed CLI get to notice that the engine is gone and exit.
PLUGINS_EXIT_WITHIN = 60.0


def start_up(stack: Stack, log: Path) -> subprocess.Popen[bytes]:
    """`pulumi up` in its own process group (so a test can kill the CLI and its plugins at once)."""
    argv = [str(BIN / "pulumi"), "up", "--yes", "--skip-preview", "--non-interactive", "--stack", stack.name]
    with log.open("wb") as out:
        return subprocess.Popen(argv, cwd=stack.workdir, env=stack.env(), stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def wait_while_running(proc: subprocess.Popen[bytes], log: Path, done: Callable[[], bool], what: str,
                       timeout: float = 240.0) -> None:
    """Poll `done` until it holds, while the `up` runs; fails (with the run's output) when the `up` ends
    first or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while not done():
        assert proc.poll() is None, f"pulumi up ended before {what}:\n{log.read_text()[-4000:]}"
        assert time.monotonic() < deadline, f"not {what} within {timeout:.0f}s:\n{log.read_text()[-4000:]}"
        time.sleep(0.25)


def descendants(pid: int) -> set[int]:
    """All processes below `pid`, from /proc."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children[int(fields[1])].append(int(stat.parent.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def command_line(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().split("\0")
    except OSError:
        return []


def is_go_language_host(pid: int) -> bool:
    """Upstream's Go `pulumi-language-python` (the official host), not a Python process."""
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe")) == "pulumi-language-python"
    except OSError:
        return False


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def plugins_of(proc: subprocess.Popen[bytes]) -> tuple[set[int], set[int]]:
    """(the plugins the running CLI started, those of them that are upstream's Go language host)."""
    plugins = descendants(proc.pid)
    assert plugins, "the language host and the provider run as children of the CLI"
    providers = {pid for pid in plugins if {"pulumi.dynamic", "--provider"} & set(command_line(pid))}
    assert providers, "the dynamic provider host runs (python -m pulumi.dynamic, or the repo host's --provider)"
    # Upstream's Go language host asks the engine whether it lives every 5 minutes only
    # (rpcutil.Healthcheck); it holds no job and is not ours to change: killed after the rest exited.
    return plugins, {pid for pid in plugins if is_go_language_host(pid)}


def kill_up(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the `up`'s process group: the CLI dies at once, as on an OOM kill or a lost runner."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def wait_for_plugins_to_exit(plugins: set[int], go_hosts: set[int]) -> None:
    """The plugins of a killed CLI exit by themselves (upstream's Go language host aside: killed here)."""
    deadline = time.monotonic() + PLUGINS_EXIT_WITHIN
    while any(alive(pid) for pid in plugins - go_hosts):
        left = {pid: command_line(pid) for pid in plugins - go_hosts if alive(pid)}
        assert time.monotonic() < deadline, f"the plugins of a killed CLI must exit by themselves: {left}"
        time.sleep(0.5)
    for pid in go_hosts:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
