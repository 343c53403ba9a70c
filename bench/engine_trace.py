"""Scenario 16: where `pulumi up` and `pulumi destroy` wait, read from the engine's own trace.

`--otel-traces file://PATH` makes the engine write every span it sees as OTLP JSON lines: its gRPC calls
to the language host (Run), from the program (RegisterResource) and to the provider (Check, Create,
Delete). The engine's step generator takes one registration at a time and calls the provider's Check for
it before it hands the step on; only the executor's Creates and Deletes run up to --parallel at once. So a
Check's latency, and the provider process's first call (its imports), add to an `up` in series, while a
Create's overlaps the others. The spans show it: the phases below, and how many Checks were ever in flight
at once (measured, not assumed).
"""

from __future__ import annotations

import json
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_plan import Facts, Plan
from harness import BASELINE, OURS, BenchStack, Emulator, bench_stack
from report import Row, ratio, secs

RPC = "pulumirpc.ResourceProvider/"
RUN = "pulumirpc.LanguageRuntime/Run"


@dataclass(frozen=True)
class Span:
    start: float
    end: float
    name: str

    @property
    def seconds(self) -> float:
        return self.end - self.start


def read(path: Path) -> list[Span]:
    """The spans of one command's trace file (one OTLP JSON document per line)."""
    spans: list[Span] = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        for resource in json.loads(line).get("resourceSpans", []):
            for scope in resource.get("scopeSpans", []):
                for span in scope.get("spans", []):
                    spans.append(Span(int(span["startTimeUnixNano"]) / 1e9, int(span["endTimeUnixNano"]) / 1e9,
                                      span["name"]))
    if not spans:
        raise ValueError(f"{path} holds no spans")
    return spans


def most_at_once(spans: list[Span]) -> int:
    """The largest number of these spans in flight at the same moment."""
    edges = sorted([(s.start, 1) for s in spans] + [(s.end, -1) for s in spans])
    level = peak = 0
    for _, step in edges:
        level += step
        peak = max(peak, level)
    return peak


@dataclass(frozen=True)
class Calls:
    """One provider method's spans in one command."""

    count: int
    first: float  # start of the first, from the command's start
    last_end: float  # end of the last, from the command's start
    longest: float
    median: float
    at_once: int

    @classmethod
    def of(cls, spans: list[Span], t0: float) -> Calls | None:
        if not spans:
            return None
        return cls(len(spans), min(s.start for s in spans) - t0, max(s.end for s in spans) - t0,
                   max(s.seconds for s in spans), statistics.median(s.seconds for s in spans), most_at_once(spans))

    @property
    def span(self) -> float:
        return self.last_end - self.first

    def text(self, method: str) -> str:
        return (f"{self.count} {method}s over {self.span:.2f} s (longest {self.longest * 1000:.0f} ms, median "
                f"{self.median * 1000:.1f} ms, at most {self.at_once} at once)")


@dataclass(frozen=True)
class Phases:
    """One command's wall time cut where the engine waits on someone else."""

    total: float
    program_start: float | None  # engine start to the language host's Run (up only)
    calls: dict[str, Calls]  # Check, Create, Delete: those the command made

    @classmethod
    def of(cls, spans: list[Span]) -> Phases:
        t0, t1 = min(s.start for s in spans), max(s.end for s in spans)
        runs = [s.start for s in spans if s.name == RUN]
        calls = {m: c for m in ("Check", "Create", "Delete")
                 if (c := Calls.of([s for s in spans if s.name == RPC + m], t0)) is not None}
        return cls(t1 - t0, (min(runs) - t0) if runs else None, calls)

    def text(self) -> str:
        parts = []
        if self.program_start is not None:
            parts.append(f"program started at {self.program_start:.2f} s")
        for method, found in self.calls.items():
            parts.append(f"first {method} at {found.first:.2f} s, " + found.text(method))
        last = max((c.last_end for c in self.calls.values()), default=self.total)
        parts.append(f"after the last call {self.total - last:.2f} s")
        return "; ".join(parts)


def traced(st: BenchStack, command: str, *extra: str) -> tuple[float, Any, Phases]:
    """(wall, result, phases) of one command of a bench stack run with the engine's trace on."""
    with tempfile.TemporaryDirectory(prefix="mltrain-trace-") as tmp:
        path = Path(tmp) / f"{command}.json"
        wall, result = st.timed(command, f"--otel-traces=file://{path}", *extra)
        return wall, result, Phases.of(read(path))


def chain_note(ours: Phases, base: Phases, who: str = "ours") -> str:
    """The serial Check chain against the no-op's, for a row's notes."""
    o, b = ours.calls.get("Check"), base.calls.get("Check")
    if o is None or b is None:
        return ""
    first = " (the dynamic provider process's first call: its imports)" if who == "ours" else ""
    text = (f"; engine trace ({who} / no-op): first Check at {o.first:.2f} / {b.first:.2f} s (the provider "
            f"process's launch before it), Check chain {o.span:.2f} / {b.span:.2f} s, at most "
            f"{o.at_once} / {b.at_once} Check at once (the step generator's series), longest Check "
            f"{o.longest * 1000:.0f} / {b.longest * 1000:.0f} ms{first}, median {o.median * 1000:.1f} / "
            f"{b.median * 1000:.1f} ms")
    oc, bc = ours.calls.get("Create"), base.calls.get("Create")
    if oc is not None and bc is not None:
        text += (f"; Creates {oc.median:.2f} / {bc.median:.2f} s (median), the last ended at {oc.last_end:.2f} / "
                 f"{bc.last_end:.2f} s; the command ended at {ours.total:.2f} / {base.total:.2f} s")
    return text


def where_it_waits(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    """One traced `up` and `destroy` of N jobs, ours then the no-op, with the platform answering at once."""
    n = plan.trace_n
    found: dict[str, dict[str, Phases]] = {}
    for program in (OURS, BASELINE):
        with bench_stack(program, emu, count=n) as st:
            emu.reset()
            found[program] = {command: traced(st, command)[2] for command in ("up", "destroy")}
    facts["trace"] = (n, found)
    rows = []
    for command in ("up", "destroy"):
        o, b = found[OURS][command], found[BASELINE][command]
        rows.append(Row(
            f"16 where `pulumi {command}` waits (engine trace)", str(n), secs(o.total), secs(b.total),
            ratio(o.total, b.total), "—",
            f"ours: {o.text()} | no-op: {b.text()}; one traced run each (`--otel-traces`), default --parallel, "
            "platform delays 0",
            target="— (explains scenario 1)"))
    return rows


def cycle(calls: Calls) -> float:
    """Seconds from one Check to the next after the first (the first is the provider process's start-up)."""
    return (calls.span - calls.longest) / max(calls.count - 1, 1)


def finding(n: int, found: dict[str, dict[str, Phases]]) -> str:
    """The observation at the end of the report: what the traced up and destroy paid in series."""
    o_up, b_up = found[OURS]["up"], found[BASELINE]["up"]
    o_down, b_down = found[OURS]["destroy"], found[BASELINE]["destroy"]
    text = f"Where an `up` and a `destroy` wait (scenario 16, N = {n}, one traced run each): "
    oc, bc = o_up.calls.get("Check"), b_up.calls.get("Check")
    if oc is not None and bc is not None:
        text += (f"the engine called Check for one resource at a time (at most {oc.at_once} in flight), so our "
                 f"{oc.count} Checks took {oc.span:.2f} s in series against the no-op's {bc.span:.2f} s: the longest "
                 f"{oc.longest * 1000:.0f} ms (the provider process's first call, which imports pydantic, httpx "
                 f"and the specs: scenario 6), then one Check every {cycle(oc) * 1000:.0f} ms against "
                 f"{cycle(bc) * 1000:.0f} ms, of which the Check call itself took a median {oc.median * 1000:.1f} ms "
                 f"against {bc.median * 1000:.1f} ms; the rest is the engine's handling of each registration and "
                 "the program's next one, on two cores shared with the Creates in flight")
        created = o_up.calls.get("Create")
        if created is not None:
            text += f" (median Create {created.median * 1000:.0f} ms: four platform calls, and the emulator's work)"
        text += ". "
    od, bd = o_down.calls.get("Delete"), b_down.calls.get("Delete")
    if od is not None and bd is not None:
        text += (f"In `destroy` up to {od.at_once} Deletes were in flight at once, and they waited for the first "
                 f"one's imports: median Delete {od.median * 1000:.0f} ms against {bd.median * 1000:.0f} ms. ")
    return text + (f"Up {o_up.total:.2f} / {b_up.total:.2f} s, destroy {o_down.total:.2f} / {b_down.total:.2f} s "
                   "(ours / no-op).")
