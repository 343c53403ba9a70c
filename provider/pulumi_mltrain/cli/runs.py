"""`mltrain-runs`: the training runs of this backend's stacks on the platforms (docs/abandoned-runs.md).

    mltrain-runs abandoned [--config-stack NAME] [--platform alaya|modelarts] [--json] [--stop [--yes]]
    mltrain-runs held [--json]
    mltrain-runs history [--stack S] [--resource R] [--config-stack NAME] [--json]
    mltrain-runs prune [--stack S] [--resource R] [--keep N] [--config-stack NAME] [--yes]

Run it where `pulumi` runs for the project (its folder, the same login and environment): the
backend's stacks are read with the `pulumi` CLI (`MLTRAIN_PULUMI` names another binary), and the
platforms' credentials come from the config of `--config-stack` (else the selected stack), then
from the environment (MLTRAIN_*), as the provider reads them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import MltrainError
from ..registry import FAMILIES
from .abandoned import AbandonedRun, HeldRun, abandoned_runs, held_runs, read_backend, stack_settings, stop
from .history import HistoryRun, prune, run_history


def _table(runs: Sequence[AbandonedRun]) -> str:
    head = ("PLATFORM", "JOB ID", "NAME", "STACK", "RESOURCE", "WHY", "STATUS", "AGE (h)", "COST SO FAR")
    rows = [head] + [(r.platform, r.job_id, r.name or "-", r.stack, r.resource, r.why, r.status,
                      "?" if r.age_hours is None else f"{r.age_hours:.2f}",
                      "unknown" if r.cost_so_far is None else f"{r.cost_so_far:.2f}") for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def _held_table(runs: Sequence[HeldRun]) -> str:
    head = ("STACK", "RESOURCE", "JOB ID", "STATUS", "ATTEMPT", "JOB")
    rows = [head] + [(r.stack, r.resource, r.job_id, r.status or "-", str(r.attempt),
                      "kept" if r.job_kept else "deleted") for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def _shown(args: argparse.Namespace, runs: Sequence[Any], table: Callable[[Sequence[Any]], str], none: str) -> bool:
    """Print `runs` as JSON (`--json`) or as a table (`none` when there are none); whether a table was shown."""
    if args.json:
        print(json.dumps([r.as_dict() for r in runs], indent=2))
        return False
    print(table(runs) if runs else none)
    return bool(runs)


def _held(args: argparse.Namespace) -> int:
    """The held failed runs the backend's stacks record; how to run one again is in its failure."""
    try:
        runs = held_runs()
    except MltrainError as err:
        print(f"mltrain-runs: {err}", file=sys.stderr)
        return 2
    if _shown(args, runs, _held_table, "no held runs"):
        print("\nEach one fails `pulumi up` until it runs again: `pulumi config set mltrain:rerunFailed <JOB ID>` (or "
              "MLTRAIN_RERUN_FAILED) then `pulumi up`, or `pulumi up --replace <urn>`; "
              "`pulumi destroy` removes it from the stack and keeps its job as a record (keep_runs).")
    return 0


def _history_table(runs: Sequence[HistoryRun]) -> str:
    head = ("STACK", "RESOURCE", "JOB ID", "STATUS", "KIND", "RUN REASON", "START", "END", "GPU-H", "FINAL METRICS",
            "REPLACED BY", "RESUMED FROM", "LOGS")
    rows = [head] + [(r.stack, r.resource, r.job_id, r.status,
                      "held" if r.held else "record" if r.record else "current", (r.run_reason or "-")[:60],
                      r.start or "-", r.end or "-",
                      "?" if r.gpu_hours is None else f"{r.gpu_hours:g}",
                      ", ".join(f"{k}={v:g}" for k, v in (r.final_metrics or {}).items()) or "-",
                      r.replaced_by or "-", r.resumed_from or "-", r.logs or "-") for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def _history(args: argparse.Namespace) -> int:
    """The runs of the backend's stacks (current, kept records, held), or `prune` of the records."""
    try:
        settings = stack_settings(args.config_stack)
        backend = read_backend()
        runs = run_history(settings, stack=args.stack, resource=args.resource, backend=backend)
        if args.command == "prune":
            keep = args.keep
            doomed = len([r for r in runs if r.record])
            if not args.yes and doomed and not sys.stdin.isatty():
                print("mltrain-runs: prune deletes records; pass --yes to prune without a confirmation",
                      file=sys.stderr)
                return 2
            if not args.yes and doomed and input("Delete the records beyond keep_runs? [y/N] ").strip().lower() \
                    not in ("y", "yes"):
                print("nothing deleted", file=sys.stderr)
                return 1
            gone = prune(settings, runs, backend, keep)
            for record in gone:
                print(f"deleted record {record.job_id} ({record.stack} {record.resource})", file=sys.stderr)
            print(f"{len(gone)} record(s) deleted")
            return 0
    except MltrainError as err:
        print(f"mltrain-runs: {err}", file=sys.stderr)
        return 2
    _shown(args, runs, _history_table, "no runs")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mltrain-runs", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ab = sub.add_parser("abandoned", help="jobs marked by a stack of this backend that no stack records")
    ab.add_argument("--config-stack", help="the stack whose config holds the credentials (default: the selected one)")
    ab.add_argument("--platform", action="append", choices=tuple(FAMILIES),
                    help="only this platform (repeatable; default: every platform the settings configure)")
    ab.add_argument("--include-removed-stacks", action="store_true",
                    help="also list jobs whose mark names a stack of this backend's projects that no longer exists "
                    "(a force-removed stack); such a job may also belong to a stack of that name in another backend")
    ab.add_argument("--json", action="store_true", help="print the runs as JSON")
    ab.add_argument("--stop", action="store_true", help="stop the runs that are still live, after a confirmation")
    ab.add_argument("--yes", action="store_true", help="with --stop: no confirmation (CI)")
    held = sub.add_parser("held", help="failed runs the backend's stacks hold (docs/runs.md#held-failures)")
    held.add_argument("--json", action="store_true", help="print the runs as JSON")
    for command, text in (("history", "every run of the backend's training jobs: current, kept records, held "
                                       "(docs/runs.md#run-history)"),
                          ("prune", "delete the kept records beyond keep_runs")):
        one = sub.add_parser(command, help=text)
        one.add_argument("--stack", help="only this stack (PROJECT/STACK or STACK)")
        one.add_argument("--resource", help="only this resource (its name in the program)")
        one.add_argument("--config-stack",
                         help="the stack whose config holds the credentials (default: the selected one)")
        if command == "history":
            one.add_argument("--json", action="store_true", help="print the runs as JSON")
        else:
            one.add_argument("--keep", type=int, help="records to keep per resource (default: its keep_runs, else "
                             "mltrain:keepRuns)")
            one.add_argument("--yes", action="store_true", help="no confirmation (CI)")
    args = parser.parse_args(argv)
    if args.command == "held":
        return _held(args)
    if args.command in ("history", "prune"):
        return _history(args)
    try:
        settings = stack_settings(args.config_stack)
        runs = abandoned_runs(settings, platforms=args.platform, removed_stacks=args.include_removed_stacks)
    except MltrainError as err:
        print(f"mltrain-runs: {err}", file=sys.stderr)
        return 2
    if _shown(args, runs, _table, "no abandoned runs") and any(r.cost_so_far is None for r in runs):
        print("\nModelArts gives no prices, and Alaya NeW none for a product it does not list: those costs "
              "are unknown here.")
    if not args.stop:
        return 0
    live = [r for r in runs if r.live]
    if not live:
        print("nothing to stop", file=sys.stderr)
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            print("mltrain-runs: --stop asks for a confirmation; pass --yes to stop without one", file=sys.stderr)
            return 2
        answer = input(f"Stop {len(live)} run(s): {', '.join(r.job_id for r in live)}? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing stopped", file=sys.stderr)
            return 1
    failed = 0
    for run in live:
        try:
            stop(settings, run)
            print(f"stopped {run.platform} {run.job_id} ({run.stack} {run.resource})", file=sys.stderr)
        except MltrainError as err:
            failed += 1
            print(f"mltrain-runs: could not stop {run.platform} {run.job_id}: {err}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
