"""Scenario 10: the native plugin `mltrain` beside the dynamic resources, on the same two measures: the
overhead of `pulumi up` + `pulumi destroy` against the no-op baseline (issue 25 item 1: its own targets,
and never slower than the dynamic form), and N creates that each wait D (item 1b). The overhead rows
come from scenario 1's rotation when it ran at the same N; the dynamic wait figures from scenario 3;
otherwise they are measured here, alternating with the plugin's runs."""

from __future__ import annotations

import math
from contextlib import ExitStack

from bench_plan import Facts, Plan
from engine_trace import chain_note
from harness import BASELINE, OURS, PLUGIN, Emulator, bench_stack, median
from report import Row, ratio, secs, verdict
from scenarios import (
    OVERHEAD_KEYS,
    WAIT_TARGET,
    WaitRun,
    cpu_split,
    default_parallel,
    noop_floor,
    overhead_run,
    overhead_target,
    plugin_overhead_row,
    wait_miss,
    wait_run,
    wait_target,
    waiting_floor_note,
)


def plugin(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    return _overhead(emu, plan, facts) + _waits(emu, plan, facts)


# ----- overhead ----------------------------------------------------------------------------------------
def _overhead(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    """At each N of `plan.plugin_ns` that scenario 1 did not already measure in its rotation (`--only 10`),
    the plugin, the dynamic program and the no-op alternate here."""
    rows: list[Row] = []
    for n in plan.plugin_ns:
        if facts.get(f"plugin_overhead_{n}") is not None:
            continue  # scenario 1's row of this run
        programs = (PLUGIN, OURS, BASELINE)
        runs: dict[str, dict[str, list[float]]] = {p: {k: [] for k in OVERHEAD_KEYS} for p in programs}
        totals: dict[str, list[float]] = {p: [] for p in programs}
        repeats = plan.repeats if n <= 50 else plan.repeats_large
        with ExitStack() as opened:
            stacks = {prog: opened.enter_context(bench_stack(prog, emu, count=n)) for prog in programs}
            for _ in range(repeats):
                for program in programs:
                    run = overhead_run(stacks[program], emu)
                    for key, value in run.items():
                        runs[program][key].append(value)
                    totals[program].append(run["up"] + run["down"])
        med = {p: {k: median(v) for k, v in runs[p].items()} for p in programs}
        total = {p: median(totals[p]) for p in programs}
        rows.append(plugin_overhead_row(n, med[PLUGIN], med[BASELINE], total[PLUGIN], total[BASELINE], total[OURS],
                                        repeats, facts, "measured here, alternating with the dynamic form and "
                                        "the no-op (scenario 1 did not run at this N)", med[OURS]))
        target = overhead_target(n)
        o, b = med[OURS], med[BASELINE]
        dyn = total[OURS] / total[BASELINE]
        rows.append(Row(
            "10 overhead, dynamic resources (beside the plugin)", str(n), secs(total[OURS]), secs(total[BASELINE]),
            ratio(total[OURS], total[BASELINE]), str(int(o["calls"])),
            f"`pulumi_mltrain.alaya.TrainingJob`; up {o['up']:.2f} / {b['up']:.2f} s, destroy {o['down']:.2f} / "
            f"{b['down']:.2f} s (dynamic / no-op); " + cpu_split(o, b) + f"; medians of {repeats} alternating "
            f"run(s) (scenario 1 did not run at N = {n} in this invocation)",
            target=f"ratio ≤ {target:.2f} (issue 25 item 1)", verdict=verdict(dyn <= target),
        ))
    return rows


# ----- waits -------------------------------------------------------------------------------------------
def _waits(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    """`--quick` runs only --parallel N (one real wait run); the default --parallel reads "not measured"."""
    n, delay = plan.parallel_n, plan.parallel_delay
    floor = facts.get("parallel_floor")
    if floor is None:
        floor, _ = noop_floor(emu, n)
    waiting, waiting_phases = facts.get("parallel_wait_floor") or noop_floor(emu, n, wait=delay, parallel=n,
                                                                             trace=True)
    rows: list[Row] = []
    for parallel in (None, n):
        effective = parallel or default_parallel()
        waves = math.ceil(n / effective)
        label = f"--parallel {parallel}" if parallel else f"default --parallel ({effective})"
        scenario = f"10 plugin: {n} creates that each wait {delay:g} s, {label}"
        target = wait_target(delay, parallel)
        engine_floor = (f"the engine's own floor at --parallel {effective}: ceil({n}/{effective}) = {waves} "
                        f"wave(s) = {waves * delay:g} s ({waves} x D), plus the engine's time for {n} no-op "
                        f"creates ({floor:.2f} s)")
        if parallel is None and not plan.plugin_default_parallel:
            rows.append(Row(scenario, str(n), "not run", secs(delay), "—", "—",
                            f"not run by `--quick` (one real wait run: --parallel {n}); the full run has it; "
                            f"{engine_floor}", target=target, verdict="—"))
            continue
        dyn_wall = facts.get(f"parallel_wall_{effective}")
        measured_here: WaitRun | None = None
        if dyn_wall is None:
            measured_here = wait_run(emu, OURS, n, delay, parallel)
            dyn_wall = measured_here.wall
        run = wait_run(emu, PLUGIN, n, delay, parallel, trace=parallel is not None)
        facts[f"plugin_wait_{effective}"] = (run.wall / delay, dyn_wall / delay, waves)
        source = ("scenario 3's row of this run" if measured_here is None
                  else "measured just before, the row below")
        rows.append(Row(
            scenario, str(n), secs(run.wall), secs(delay), f"{run.wall / delay:.2f}", str(run.calls),
            f"ratio = wall / D; {engine_floor}; {run.processes} plugin process(es) seen (no 4-call limit: its "
            f"provider calls run on a pool of 256 threads, `MLTRAIN_PROVIDER_THREADS`), peak RSS "
            f"{run.peak_mb:.0f} MB; slowest create as the engine reports it "
            f"{run.slowest if run.slowest is not None else '?'} s; dynamic resources at the same --parallel: "
            f"{dyn_wall:.2f} s = {dyn_wall / delay:.2f} x D ({source})"
            + (waiting_floor_note(n, delay, parallel, waiting) if parallel else "")
            + (chain_note(run.phases, waiting_phases, "plugin") if run.phases and waiting_phases else "")
            + wait_miss(run.wall, delay, parallel, floor, waiting if parallel else None),
            target=target, verdict=verdict(run.wall <= WAIT_TARGET * delay) if parallel else "—",
        ))
        if measured_here is not None:
            rows.append(Row(
                f"10 dynamic: {n} creates that each wait {delay:g} s, {label}", str(n), secs(measured_here.wall),
                secs(delay), f"{measured_here.wall / delay:.2f}", str(measured_here.calls),
                f"ratio = wall / D; beside the plugin row above (scenario 3 did not run in this invocation); "
                f"{measured_here.processes} provider process(es), jobs per provider {measured_here.spread}; "
                f"slowest create {measured_here.slowest if measured_here.slowest is not None else '?'} s",
                target=target, verdict=verdict(measured_here.wall <= WAIT_TARGET * delay) if parallel else "—",
            ))
    return rows
