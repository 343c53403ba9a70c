"""Scenario 10 (issue 14 item 6): the native plugin `mltrain` beside the dynamic resources, on the same
two measures: the overhead of `pulumi up` + `pulumi destroy` against the no-op baseline, and N creates
that each wait D. The dynamic figures come from scenarios 1 and 3 when they ran in the same invocation
(at the same N); otherwise they are measured here, alternating with the plugin's runs."""

from __future__ import annotations

import math
from contextlib import ExitStack

from harness import BASELINE, OURS, PLUGIN, Emulator, bench_stack, median
from report import NOT_MEASURED, Row, ratio, secs, verdict
from scenarios import (
    OVERHEAD_KEYS,
    Facts,
    Plan,
    WaitRun,
    default_parallel,
    noop_floor,
    overhead_run,
    overhead_target,
    wait_run,
)

NO_OWN_TARGET = "issue 14 gives the plugin no target of its own: the dynamic rows' target"


def plugin(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    return _overhead(emu, plan, facts) + _waits(emu, plan, facts)


# ----- overhead ----------------------------------------------------------------------------------------
def _overhead(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    """The plugin and the no-op baseline always alternate here (the same background load); the dynamic
    program joins the rotation only when scenario 1 did not measure this N."""
    n = plan.plugin_n
    reused = facts.get(f"overhead_total_{n}")
    programs = (PLUGIN, BASELINE) if reused else (PLUGIN, OURS, BASELINE)
    runs: dict[str, dict[str, list[float]]] = {p: {k: [] for k in OVERHEAD_KEYS} for p in programs}
    totals: dict[str, list[float]] = {p: [] for p in programs}
    with ExitStack() as opened:
        stacks = {prog: opened.enter_context(bench_stack(prog, emu, count=n)) for prog in programs}
        for _ in range(plan.repeats):
            for program in programs:
                run = overhead_run(stacks[program], emu)
                for key, value in run.items():
                    runs[program][key].append(value)
                totals[program].append(run["up"] + run["down"])
    med = {p: {k: median(v) for k, v in runs[p].items()} for p in programs}
    total = {p: median(totals[p]) for p in programs}
    target = overhead_target(n)
    p, b = med[PLUGIN], med[BASELINE]
    if reused:
        dyn_total, dyn_base = reused
        dynamic = (f"dynamic resources at N = {n}: {dyn_total:.2f} s, ratio {dyn_total / dyn_base:.2f} "
                   f"(scenario 1's row of this run, against its own no-op runs)")
    else:
        dyn_total, dyn_base = total[OURS], total[BASELINE]
        dynamic = "dynamic resources: the row below, measured in the same rotation"
    facts["plugin_overhead"] = (n, total[PLUGIN] / total[BASELINE], dyn_total / dyn_base)
    rows = [Row(
        "10 plugin overhead: up + destroy vs the bare engine", str(n), secs(total[PLUGIN]), secs(total[BASELINE]),
        ratio(total[PLUGIN], total[BASELINE]), str(int(p["calls"])),
        f"native plugin (generated SDK `pulumi_mltrain_native`, default provider, `pulumi-resource-mltrain` "
        f"on PATH); up {p['up']:.2f} / {b['up']:.2f} s, destroy {p['down']:.2f} / {b['down']:.2f} s (plugin / "
        f"no-op); CPU s provider processes {p['provider_cpu']:.2f} / {b['provider_cpu']:.2f}, program "
        f"{p['program_cpu']:.2f} / {b['program_cpu']:.2f}, emulator {p['emulator_cpu']:.2f} / "
        f"{b['emulator_cpu']:.2f}; provider processes during up {p['procs']:.0f} / {b['procs']:.0f}, peak RSS "
        f"{p['rss_mb']:.0f} / {b['rss_mb']:.0f} MB; {dynamic}; plugin / dynamic = "
        f"{total[PLUGIN] / dyn_total:.2f}; default --parallel; medians of {plan.repeats} alternating run(s); "
        f"{NO_OWN_TARGET}",
        target=f"ratio ≤ {target:.2f}", verdict=verdict(total[PLUGIN] / total[BASELINE] <= target),
    )]
    if not reused:
        o = med[OURS]
        rows.append(Row(
            "10 overhead, dynamic resources (beside the plugin)", str(n), secs(dyn_total), secs(dyn_base),
            ratio(dyn_total, dyn_base), str(int(o["calls"])),
            f"`pulumi_mltrain.alaya.TrainingJob` (one provider process by default); up {o['up']:.2f} / "
            f"{b['up']:.2f} s, destroy {o['down']:.2f} / {b['down']:.2f} s (dynamic / no-op); CPU s provider "
            f"processes {o['provider_cpu']:.2f}, program {o['program_cpu']:.2f}; provider processes during up "
            f"{o['procs']:.0f}; the same no-op runs as the row above; medians of {plan.repeats} alternating "
            f"run(s) (scenario 1 did not run at N = {n} in this invocation)",
            target=f"ratio ≤ {target:.2f}", verdict=verdict(dyn_total / dyn_base <= target),
        ))
    return rows


# ----- waits -------------------------------------------------------------------------------------------
def _waits(emu: Emulator, plan: Plan, facts: Facts) -> list[Row]:
    """`--quick` runs only --parallel N (one real wait run); the default --parallel reads "not measured"."""
    n, delay = plan.parallel_n, plan.parallel_delay
    floor = facts.get("parallel_floor")
    if floor is None:
        floor = noop_floor(emu, n)
    rows: list[Row] = []
    for parallel in (None, n):
        effective = parallel or default_parallel()
        waves = math.ceil(n / effective)
        label = f"--parallel {parallel}" if parallel else f"default --parallel ({effective})"
        scenario = f"10 plugin: {n} creates that each wait {delay:g} s, {label}"
        target = f"≤ 2 x D = {2 * delay:g} s"
        engine_floor = (f"the engine's own floor at --parallel {effective}: ceil({n}/{effective}) = {waves} "
                        f"wave(s) = {waves * delay:g} s ({waves} x D), plus the engine's time for {n} no-op "
                        f"creates ({floor:.2f} s)")
        if parallel is None and not plan.plugin_default_parallel:
            rows.append(Row(scenario, str(n), "not run", secs(delay), "—", "—",
                            f"not run by `--quick` (one real wait run: --parallel {n}); the full run has it; "
                            f"{engine_floor}", target=target, verdict=NOT_MEASURED))
            continue
        dyn_wall = facts.get(f"parallel_wall_{effective}")
        measured_here: WaitRun | None = None
        if dyn_wall is None:
            measured_here = wait_run(emu, OURS, n, delay, parallel)
            dyn_wall = measured_here.wall
        run = wait_run(emu, PLUGIN, n, delay, parallel)
        facts[f"plugin_wait_{effective}"] = (run.wall / delay, dyn_wall / delay, waves)
        source = ("scenario 3's row of this run" if measured_here is None
                  else "measured just before, the row below")
        rows.append(Row(
            scenario, str(n), secs(run.wall), secs(delay), f"{run.wall / delay:.2f}", str(run.calls),
            f"ratio = wall / D; {engine_floor}; {run.processes} plugin process(es) seen (no 4-call limit: its "
            f"provider calls run on a pool of 256 threads, `MLTRAIN_PROVIDER_THREADS`), peak RSS "
            f"{run.peak_mb:.0f} MB; slowest create as the engine reports it "
            f"{run.slowest if run.slowest is not None else '?'} s; dynamic resources at the same --parallel: "
            f"{dyn_wall:.2f} s = {dyn_wall / delay:.2f} x D ({source}); {NO_OWN_TARGET}",
            target=target, verdict=verdict(run.wall <= 2 * delay),
        ))
        if measured_here is not None:
            rows.append(Row(
                f"10 dynamic: {n} creates that each wait {delay:g} s, {label}", str(n), secs(measured_here.wall),
                secs(delay), f"{measured_here.wall / delay:.2f}", str(measured_here.calls),
                f"ratio = wall / D; beside the plugin row above (scenario 3 did not run in this invocation); "
                f"{measured_here.processes} provider process(es), jobs per provider {measured_here.spread}; "
                f"slowest create {measured_here.slowest if measured_here.slowest is not None else '?'} s",
                target=target, verdict=verdict(measured_here.wall <= 2 * delay),
            ))
    return rows
