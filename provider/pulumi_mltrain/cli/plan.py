"""What an update spends: the training runs it starts and the running jobs it stops.

`mltrain-plan` reads `pulumi preview --json` (files, or standard input; several previews one after
another are read in turn) and prints per stack the runs the update starts, with their GPUs, the most
hours each can run (its timeout), their cost per hour and at most, and the running jobs it stops or
replaces; it exits 1 above the caps given (`--max-new-gpu-hours`, `--max-new-cost`, `--no-stop-running`).
The policy `new-run-budget` (mltrain_policies) counts with the same functions (`run_of`, `Impact`).

What counts as a run is what the provider said at check (runs.py): a training job's `run_reason`
that starts with `first run` or `new run:`, on a step that creates or replaces it. An unchanged job,
or one changed in place, keeps the reason of the run it already has: its step is `same` or `update`,
and it is not counted; neither is an adopted job (`adopted: ...`). A job's timeout is the input its
registry entry names (`registry.RunFacts`: Alaya NeW's `timeout_hours` when `enable_timeout_cancel` is on,
ModelArts' `auto_stop_hours`); without one a run is unbounded. A job whose `max_attempts` allows more
runs than this one (held failures started again by later `pulumi up`s, see runs.md) counts each of them:
its GPU-hours and cost at most are one run's times the attempts it has left. A job whose platform prices
it carries its price per hour from the catalogue (Alaya NeW's `cost_per_hour`); the others (ModelArts
gives only a `billing_code`) cost "price unknown", never estimated. A replacement of a job with a
`checkpoint` whose `resume` is on starts from the checkpoint of the job it replaces: its step says
`resumes from <run ID>`.

This module needs neither pulumi-policy nor a running engine, and names no platform: what it reads of a
job comes from the registry.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from .. import ownership, registry, runs
from .. import settings as settings_table
from ..spec import property_name

# Step operations of `pulumi preview --json`.
STARTING_OPS = ("create", "replace", "create-replacement")
STOPPING_OPS = ("replace", "delete-replaced", "delete")
# How the CLI writes a value unknown during a preview.
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
# The provider's default `mltrain:keepRuns` (a preview does not show the stack's setting).
DEFAULT_KEEP: int = settings_table.DEFAULTS["keep_runs"]


starts_run = runs.starts_run


def kind_of(resource_type: str) -> str | None:
    """`alaya:TrainingJob` for either form's type token of a training job, else None."""
    found = registry.resource(resource_type)
    return found.kind if found is not None and found.run is not None else None


def facts(kind: str) -> registry.RunFacts:
    """What a training job of `kind` is read by (its registry entry's `RunFacts`)."""
    found = registry.of_kind(kind)
    if found is None or found.run is None:
        raise KeyError(f"{kind} is no training job of the registry")
    return found.run


def value(props: Mapping[str, Any], key: str) -> Any:
    """A property by its field name, in the dynamic form's spelling or the plugin's (camelCase)."""
    for name in (key, property_name(key)):
        try:
            return props[name]
        except KeyError:
            continue
    return None


def number(raw: Any) -> float | None:
    """A known number (the engine's are floats), else None (absent, unknown or not a number)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    return int(raw) if float(raw).is_integer() else float(raw)


def fmt(amount: float | None) -> str:
    if amount is None:
        return "-"
    rounded = round(float(amount), 2)
    return f"{int(rounded)}" if rounded.is_integer() else f"{rounded:g}"


def timeout_hours(kind: str, props: Mapping[str, Any]) -> float | None:
    """The most hours a job can run (its timeout), None when it has none (unbounded)."""
    run = facts(kind)
    hours = number(value(props, run.timeout))
    if run.timeout_switch is not None and value(props, run.timeout_switch) is False:
        return None  # the timeout applies only with its switch on (Alaya NeW's enable_timeout_cancel)
    return hours


@dataclass(frozen=True)
class Run:
    """A run an update starts: one created or replaced training job."""

    name: str
    kind: str
    reason: str
    gpus: float | None  # None: the catalogue gave no GPU count (a preview without credentials)
    hours: float | None  # None: no timeout, unbounded
    cost_per_hour: float | None  # None: price unknown (always where the platform gives no price)
    replaces: bool = False
    attempts: int = 1  # the runs it may start from here: this one and the retries its max_attempts leaves
    resumes_from: str | None = None  # the run whose checkpoint it starts from (checkpoints.py)

    @property
    def timeout_field(self) -> str:
        return facts(self.kind).timeout

    @property
    def gpu_hours(self) -> float | None:
        """GPUs x hours at most; 0 without GPUs; None when unbounded or the GPUs are unknown."""
        if self.gpus == 0:
            return 0
        if self.gpus is None or self.hours is None:
            return None
        return self.gpus * self.hours * self.attempts

    @property
    def max_cost(self) -> float | None:
        """Cost per hour x hours at most; None when the price is unknown or the run unbounded."""
        if self.cost_per_hour is None or self.hours is None:
            return None
        return self.cost_per_hour * self.hours * self.attempts

    def row(self) -> list[str]:
        gpus = "unknown" if self.gpus is None else fmt(self.gpus)
        hours = f"unbounded (no {self.timeout_field})" if self.hours is None else \
            f"{fmt(self.hours)} ({self.timeout_field})"
        if self.gpu_hours is not None:
            gpu_hours = fmt(self.gpu_hours)
        else:
            gpu_hours = "unknown" if self.gpus is None else "unbounded"
        if self.cost_per_hour is None:
            per_hour = at_most = "price unknown"
        else:
            per_hour = f"{fmt(self.cost_per_hour)}/h"
            at_most = fmt(self.max_cost) if self.max_cost is not None else "unbounded"
        step = "replace" if self.replaces else "create"
        if self.attempts > 1:
            step += f" (up to {self.attempts} runs)"
        if self.resumes_from:
            step += f", resumes from {self.resumes_from}"
        return [self.name, self.kind, step, gpus, hours, gpu_hours, per_hour, at_most]


@dataclass(frozen=True)
class Stop:
    """A job the update stops: replaced or deleted while its recorded status/phase is live."""

    name: str
    kind: str
    state: str | None  # the recorded status/phase; None when it is not visible (a stack policy)
    how: str  # "replaced" or "deleted"
    job_id: str | None = None

    def line(self) -> str:
        state = f"{facts(self.kind).state} {self.state}" if self.state else \
            "its status is not visible here, it may be running"
        job = f" {self.job_id}" if self.job_id else ""
        return f"{self.kind} '{self.name}'{job} ({state}) is {self.how}"


@dataclass(frozen=True)
class Kept:
    """A job the update replaces or deletes, and whether its run stays as a record (docs/runs.md#run-history)."""

    name: str
    kind: str
    how: str  # "replaced" or "deleted"
    keep_runs: int  # the job's own keep_runs, else the one given (mltrain:keepRuns); 0 deletes it
    job_id: str | None = None

    def line(self) -> str:
        job = f" {self.job_id}" if self.job_id else ""
        if self.keep_runs:
            return (f"kept as a record: {self.kind} '{self.name}'{job} ({self.how}; keep_runs={self.keep_runs}, "
                    "older records beyond it are deleted)")
        return f"deleted: {self.kind} '{self.name}'{job} ({self.how}; keep_runs=0)"


@dataclass(frozen=True)
class Caps:
    """The limits of one update: None for no limit."""

    max_gpu_hours: float | None = None
    max_cost: float | None = None
    no_stop_running: bool = False


@dataclass
class Impact:
    """What one stack's update starts and stops."""

    stack: str
    runs: list[Run] = field(default_factory=list)
    stops: list[Stop] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # jobs whose run the preview cannot describe
    kept: list[Kept] = field(default_factory=list)  # the jobs replaced or deleted: kept as records or deleted

    @property
    def unbounded(self) -> list[Run]:
        """Runs with GPUs and no timeout, or whose GPUs are unknown: their GPU-hours have no bound."""
        return [r for r in self.runs if r.gpu_hours is None]

    @property
    def gpu_hours(self) -> float:
        """GPU-hours at most of the bounded runs."""
        return sum(r.gpu_hours or 0 for r in self.runs)

    @property
    def priced(self) -> list[Run]:
        return [r for r in self.runs if r.cost_per_hour is not None]

    @property
    def unpriced(self) -> list[Run]:
        return [r for r in self.runs if r.cost_per_hour is None]

    @property
    def cost_per_hour(self) -> float:
        return sum(r.cost_per_hour or 0 for r in self.runs)

    @property
    def cost(self) -> float | None:
        """Cost at most of the priced runs; None when one of them is unbounded."""
        if any(r.max_cost is None for r in self.priced):
            return None
        return sum(r.max_cost or 0 for r in self.priced)

    def breaches(self, caps: Caps) -> list[tuple[str, str]]:
        """(the Caps field, a sentence) for each cap the update goes beyond."""
        found: list[tuple[str, str]] = []
        if caps.max_gpu_hours is not None:
            if self.unbounded:
                why = "; ".join(f"'{r.name}' has " + ("unknown GPUs" if r.gpus is None else f"no {r.timeout_field}")
                                for r in self.unbounded)
                found.append(("max_gpu_hours", "the new runs' GPU-hours are unbounded (above "
                              f"{fmt(caps.max_gpu_hours)}): {why}"))
            elif self.gpu_hours > caps.max_gpu_hours:
                found.append(("max_gpu_hours", f"the new runs take up to {fmt(self.gpu_hours)} GPU-hours, above the "
                              f"cap of {fmt(caps.max_gpu_hours)}"))
        if caps.max_cost is not None:
            cost = self.cost
            if cost is None:
                found.append(("max_cost", f"the new runs' cost is unbounded (above {fmt(caps.max_cost)}): "
                              + ", ".join(f"'{r.name}'" for r in self.priced if r.max_cost is None)
                              + " has a price and no timeout"))
            elif cost > caps.max_cost:
                found.append(("max_cost", f"the new runs cost up to {fmt(cost)}, above the cap of "
                              f"{fmt(caps.max_cost)}" + self._unpriced_note()))
        if caps.no_stop_running and self.stops:
            found.append(("no_stop_running", "the update stops running jobs: "
                          + "; ".join(s.line() for s in self.stops)))
        return found

    def _unpriced_note(self) -> str:
        if not self.unpriced:
            return ""
        return " (not counted, price unknown: " + ", ".join(f"'{r.name}'" for r in self.unpriced) + ")"

    def summary(self) -> list[str]:
        """The totals, a line each."""
        count = len(self.runs)
        lines = [f"new runs: {count}"]
        if self.runs:
            hours = "unbounded" if self.unbounded else fmt(self.gpu_hours)
            lines.append(f"GPU-hours at most: {hours}")
            if self.priced:
                cost = "unbounded" if self.cost is None else fmt(self.cost)
                lines.append(f"cost at most: {cost} ({fmt(self.cost_per_hour)}/h)" + self._unpriced_note())
            else:
                lines.append("cost at most: price unknown")
        if self.stops:
            lines.append("stops running jobs:")
            lines += [f"  {s.line()}" for s in self.stops]
        else:
            lines.append("stops running jobs: none")
        if self.kept:
            lines.append("records:")
            lines += [f"  {k.line()}" for k in self.kept]
        if self.unknown:
            lines.append("not counted (unknown at preview): " + "; ".join(self.unknown))
        return lines


HEADER = ["resource", "kind", "step", "GPUs", "hours at most", "GPU-hours", "cost/h", "cost at most"]


def run_of(kind: str, name: str, props: Mapping[str, Any], replaces: bool | None = None) -> Run | None:
    """The run a training job starts, from its checked inputs (`props`, either spelling), or None when
    its `run_reason` says no run starts. `replaces`: whether it replaces a job (else read from the
    reason: a new run replaces one, a first run does not)."""
    reason = value(props, runs.RUN_REASON)
    if not starts_run(reason):
        return None
    gpus = number(value(props, "gpu_count"))
    price_output = facts(kind).price
    price = number(value(props, price_output)) if price_output is not None else None  # None: no price
    budget = number(value(props, "max_attempts")) or 1
    attempt = number(props.get(ownership.ATTEMPT_KEY)) or 1
    return Run(name, kind, reason, gpus, timeout_hours(kind, props), price,
               reason.startswith(runs.NEW) if replaces is None else replaces,
               max(1, int(budget) - int(attempt) + 1))


def resumes(kind: str, props: Mapping[str, Any], old: Mapping[str, Any]) -> str | None:
    """The run a replacement starts from (checkpoints.py): the replaced job's ID, when the new inputs keep a
    checkpoint whose `resume` is on; None for a run that starts fresh."""
    checkpoint = value(props, "checkpoint")
    if not isinstance(checkpoint, Mapping) or checkpoint.get("resume") is False:
        return None
    job_id = old.get("id") or value(old.get("outputs") or {}, facts(kind).job_id)
    return str(job_id) if isinstance(job_id, str) and job_id and job_id != UNKNOWN else None


def stop_of(kind: str, name: str, outputs: Mapping[str, Any], how: str) -> Stop | None:
    """The job a replace or delete stops, when its recorded status/phase is live."""
    run = facts(kind)
    state = value(outputs, run.state)
    if not isinstance(state, str) or state.upper() not in {s.upper() for s in run.live}:
        return None
    job_id = value(outputs, run.job_id)
    return Stop(name, kind, state, how, str(job_id) if job_id else None)


# ----- pulumi preview --json ----------------------------------------------------------------------

def stack_of(urn: str) -> str:
    """`urn:pulumi:<stack>::<project>::...` -> `<project>/<stack>`."""
    project, stack = ownership.project_and_stack(urn)
    return f"{project}/{stack}" if project else stack


def _props(state: Any) -> dict[str, Any]:
    """A step state's checked inputs, with its outputs for what the inputs lack."""
    if not isinstance(state, Mapping):
        return {}
    return {**(state.get("outputs") or {}), **(state.get("inputs") or {})}


def kept_of(kind: str, name: str, outputs: Mapping[str, Any], how: str, keep_runs: int) -> Kept:
    """What becomes of the job a replace or delete ends: its own `keep_runs` (either spelling), else
    `keep_runs` (the provider's setting, which a preview does not show)."""
    own = number(value(outputs, "keep_runs"))
    job_id = value(outputs, facts(kind).job_id)
    return Kept(name, kind, how, int(own) if own is not None else keep_runs, str(job_id) if job_id else None)


def impacts(previews: Iterable[Mapping[str, Any]], keep_runs: int = DEFAULT_KEEP) -> list[Impact]:
    """The impact of each stack the previews cover, in the order they name them (`keep_runs`: the
    provider's `mltrain:keepRuns`, for jobs that set none)."""
    found: dict[str, Impact] = {}
    for preview in previews:
        seen_runs: set[str] = set()
        seen_stops: set[str] = set()
        # The state each replaced job had (a replacement's steps do not all carry it).
        replaced = {str(s.get("urn", "")): s["oldState"] for s in preview.get("steps") or []
                    if s.get("op") in ("replace", "delete-replaced") and isinstance(s.get("oldState"), Mapping)}
        for step in preview.get("steps") or []:
            urn, op = str(step.get("urn", "")), str(step.get("op", ""))
            new, old = step.get("newState") or {}, step.get("oldState") or {}
            kind = kind_of(str(new.get("type") or old.get("type") or ownership.type_of(urn)))
            if kind is None:
                continue
            impact = found.setdefault(stack_of(urn), Impact(stack_of(urn)))
            name = ownership.resource_of(urn)
            if op in STARTING_OPS and urn not in seen_runs:
                seen_runs.add(urn)
                props = _props(new)
                run = run_of(kind, name, props, replaces=op != "create")
                if run is not None:
                    previous = resumes(kind, props, old or replaced.get(urn) or {}) if op != "create" else None
                    impact.runs.append(replace(run, resumes_from=previous))
                elif value(props, runs.RUN_REASON) in (None, UNKNOWN):
                    impact.unknown.append(f"{kind} '{name}' ({op}: its inputs are not all known, so no "
                                          "run_reason)")
            if op in STOPPING_OPS and urn not in seen_stops:
                seen_stops.add(urn)
                how = "deleted" if op == "delete" else "replaced"
                stop = stop_of(kind, name, old.get("outputs") or {}, how)
                if stop is not None:
                    impact.stops.append(stop)
                if old.get("id") or old.get("outputs"):
                    impact.kept.append(kept_of(kind, name, old.get("outputs") or {}, how, keep_runs))
    return list(found.values())


def documents(text: str) -> Iterator[Mapping[str, Any]]:
    """The JSON documents of `text`, one after another (`pulumi preview --json` of several stacks)."""
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return
        doc, at = decoder.raw_decode(text, at)
        if not isinstance(doc, Mapping) or "steps" not in doc:
            raise ValueError("not the output of `pulumi preview --json` (no `steps`)")
        yield doc


def table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in rows]


def report(impact: Impact, caps: Caps) -> list[str]:
    lines = [f"stack {impact.stack}:"]
    if impact.runs:
        lines += [f"  {line}" for line in table([HEADER, *(r.row() for r in impact.runs)])]
    lines += [f"  {line}" for line in impact.summary()]
    lines += [f"  over the cap: {text} ({FLAGS[cap]})" for cap, text in impact.breaches(caps)]
    return lines


FLAGS = {"max_gpu_hours": "--max-new-gpu-hours", "max_cost": "--max-new-cost", "no_stop_running": "--no-stop-running"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="mltrain-plan",
        description="What a `pulumi preview --json` of pulumi-mltrain training jobs would start and stop: the new "
                    "runs (GPUs, hours at most, cost) and the running jobs replaced or deleted.")
    parser.add_argument("files", nargs="*", help="`pulumi preview --json` output (default, or `-`: standard input)")
    parser.add_argument("--max-new-gpu-hours", type=float, metavar="N",
                        help="exit 1 when the new runs can take more GPU-hours than N (or are unbounded)")
    parser.add_argument("--max-new-cost", type=float, metavar="X",
                        help="exit 1 when the new runs with a known price can cost more than X (or are unbounded)")
    parser.add_argument("--no-stop-running", action="store_true",
                        help="exit 1 when the update replaces or deletes a job whose recorded status is live")
    parser.add_argument("--keep-runs", type=int, metavar="N", default=None,
                        help="the stack's mltrain:keepRuns, for jobs that set no keep_runs (default: "
                             f"MLTRAIN_KEEP_RUNS, else {DEFAULT_KEEP}); says which replaced or deleted jobs stay as "
                             "records")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = parse_args(argv)
    out = stdout or sys.stdout
    caps = Caps(args.max_new_gpu_hours, args.max_new_cost, args.no_stop_running)
    texts: list[str] = []
    try:
        for path in args.files or ["-"]:
            if path == "-":
                texts.append((stdin or sys.stdin).read())
            else:
                with open(path, encoding="utf-8") as handle:
                    texts.append(handle.read())
        previews = [doc for text in texts for doc in documents(text)]
    except (OSError, ValueError) as err:
        print(f"mltrain-plan: {err}", file=sys.stderr)
        return 2
    keep = args.keep_runs
    if keep is None:
        from_env = os.environ.get(settings_table.BY_NAME["keep_runs"].env, "").strip()
        keep = int(from_env) if from_env.isdigit() else DEFAULT_KEEP
    found = impacts(previews, keep)
    if not found:
        print("no training jobs in the preview: no new runs, no running job stopped", file=out)
    over = False
    for impact in found:
        print("\n".join(report(impact, caps)), file=out)
        over = over or bool(impact.breaches(caps))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
