"""What the provider says to the user (progress lines of long waits, one-off notes), attributed to the
Pulumi resource they concern: the one channel of both forms, the dynamic provider and the native plugin.

A line names the resource (kind, Pulumi resource name, platform ID), the state, the time waited and
the wait's deadline, e.g. `[mltrain] TrainingJob 'llama3-sft' (tt-3f9c0a1b): RUNNING after 42s
(deadline 20m)`, so a reader of a CI log with forty jobs knows which one is slow without scrolling.

Inside a provider process the engine's address is the last command-line argument (the native plugin
also says so with `connect`), and the engine's `Log` call takes a URN: a line sent there is shown under
its resource (in the progress display and the diagnostics), a line without one under the stack. Where
that is not possible (not in a provider process, the engine refusing the call) the line goes to stderr,
which the engine shows of a dynamic provider; of a native plugin it shows stderr only once the plugin
fails, so nothing the user should read may go there first: every line goes through `emit`.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .ownership import Mark, resource_of

PREFIX = "[mltrain]"
_ADDRESS = re.compile(r"^[\w.\-\[\]:]+:\d+$")


@dataclass(frozen=True)
class Label:
    """What a wait is about: the resource kind and name, the platform ID, and the URN if known.

    `doing` names a step that is not the resource's own state (e.g. "stopping", "deleting",
    "subscription rk-1"), so that lines of a delete do not read like lines of a create.
    """

    kind: str
    name: str
    object_id: str | None = None
    urn: str | None = None
    doing: str | None = None

    @classmethod
    def of(cls, kind: str, spec: Any, owner: Mark | None = None, *, object_id: str | None = None,
           doing: str | None = None) -> Label:
        """The Pulumi resource name from the owner mark's URN, else the spec's (physical) name."""
        urn = owner.urn if owner is not None else None
        name = resource_of(urn) if urn else str(getattr(spec, "name", "") or "?")
        return cls(kind, name, object_id, urn, doing)

    def doing_now(self, object_id: str, doing: str) -> Label:
        """The same resource, at a step of its own on `object_id` ("stopping", "deleting")."""
        return Label(self.kind, self.name, object_id, self.urn, doing)

    def heading(self) -> str:
        ident = f" ({self.object_id})" if self.object_id else ""
        step = f", {self.doing}" if self.doing else ""
        return f"{self.kind} {self.name!r}{ident}{step}"


def duration(seconds: float) -> str:
    """Compact and stable: 42s, 3m05s, 20m, 1h30m."""
    total = max(0, round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m" if minutes else f"{hours}h"
    if minutes:
        return f"{minutes}m{secs:02d}s" if secs else f"{minutes}m"
    return f"{secs}s"


Sink = Callable[[str, "str | None"], None]


class Reporter:
    """Writes the lines of one wait; never the same line twice."""

    def __init__(self, heading: str, urn: str | None, timeout: float, sink: Sink | None = None) -> None:
        self.heading = heading
        self.urn = urn
        self.timeout = timeout
        self.sink = sink or emit
        self._said: set[str] = set()

    def line(self, text: str, elapsed: float) -> bool:
        """Say `text` (with the time waited and the deadline); False if exactly this was said already."""
        full = f"{PREFIX} {self.heading}: {text} after {duration(elapsed)} (deadline {duration(self.timeout)})"
        if full in self._said:
            return False
        self._said.add(full)
        self.sink(full, self.urn)
        return True


# ----- where lines go ---------------------------------------------------------------------------
_LOCK = threading.Lock()
_ENGINE: list[Any] = []  # [stub] once connected, [None] once given up


def engine_address(argv: list[str] | None = None) -> str | None:
    """The engine's address when this process is a dynamic provider (`python -m pulumi.dynamic ADDR`) or
    the native plugin (`pulumi-resource-mltrain ADDR`): the last argument, after any flags the engine
    puts first (`--logtostderr -v=9 --tracing ENDPOINT`)."""
    args = sys.argv if argv is None else argv
    if len(args) < 2 or not _ADDRESS.match(args[-1]):
        return None
    main = args[0].replace(os.sep, "/")
    dynamic = main.endswith("pulumi/dynamic/__main__.py") or main == "pulumi.dynamic"
    plugin = main.endswith(("pulumi-resource-mltrain", "pulumi_mltrain/plugin/__main__.py"))  # the native plugin
    return args[-1] if dynamic or plugin else None


def connect(address: str | None) -> None:
    """Say every later line to the engine at `address` (the native plugin's server knows it from its start);
    None: to the engine the command line names, if any."""
    with _LOCK:
        _ENGINE[:] = [_connect(address)] if address is not None else []


def _engine() -> Any:
    with _LOCK:
        if not _ENGINE:
            _ENGINE.append(_connect(engine_address()))
        return _ENGINE[0]


def _connect(address: str | None) -> Any:
    if address is None:
        return None
    try:
        import grpc
        from pulumi.runtime.proto import engine_pb2_grpc

        return engine_pb2_grpc.EngineStub(grpc.insecure_channel(address))
    except Exception:  # an SDK without the stubs: stderr it is
        return None


def notice(text: str, owner: Mark | None) -> None:
    """A one-off line about a resource (e.g. the removal of an unrecorded job before a create), under the
    resource when its owner mark names it. Not a plain print: the engine hides what a native plugin
    writes to stderr (it shows it only after the plugin fails), so in the plugin form a print never
    reaches the user; the engine's `Log` call reaches them in both forms."""
    emit(f"{PREFIX} {text}", owner.urn if owner is not None else None)


def emit(line: str, urn: str | None) -> None:
    """To the engine under `urn` (None: under the stack) when possible, else to stderr."""
    stub = _engine()
    if stub is not None:
        try:
            from pulumi.runtime.proto import engine_pb2

            stub.Log(engine_pb2.LogRequest(severity=engine_pb2.INFO, message=line, urn=urn or ""), timeout=5)
            return
        except Exception:
            with _LOCK:
                _ENGINE[:] = [None]  # the engine refused once: do not slow every later line down
    print(line, file=sys.stderr, flush=True)
