"""Two benchmark tables, row by row: which rows of the first are worse than the second's.

    .venv/bin/python bench/compare.py bench/results.md --against d97bc66     # results.md of a commit
    .venv/bin/python bench/compare.py bench/results.md --against other.md    # or any results file
    .venv/bin/python bench/compare.py ours-1.md ours-2.md --against base-1.md base-2.md   # runs of each

A row is compared by its ratio where it has one (ours against the no-op measured in the same run, so
a slower machine or a busier hour cancels out; computed from the two figures where they are single
numbers whose quotient it is, since the printed ratio is rounded), else by its own figure. Lower is better in every
row; rows whose figures are not numbers (calls per job) must be equal. Figures that differ by no more
than their last printed digit are "same" (0.01 s against 0.02 s); any other difference is reported,
unless `--tolerance` is given (e.g. 0.05: single runs of the timed rows move by about that much,
bench/README.md). With several runs on a side (`bench/ab.py` makes them, alternating), a row is
worse only when every run of ours is worse than every run of the other side, better only when every
run is better, and "same (overlap)" otherwise: two full runs of one source differ by more than one
run against another can show. The run-length row (15) is compared over the scenarios every table
ran, from the seconds per scenario in its notes: a table with more scenarios is longer by them.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

Row = tuple[str, str, str]  # (ours, baseline, ratio) as the table prints them
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
RUN_LENGTH = "15 the run itself"
TOOK = re.compile(r"seconds per scenario ([^;|]+)")


def rows(text: str) -> dict[str, Row]:
    """The table's rows by "scenario [N]"."""
    found: dict[str, Row] = {}
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith(("| scenario", "|---")):
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if len(cells) >= 5:
            found[f"{cells[0]} [{cells[1]}]"] = (cells[2], cells[3], cells[4])
    return found


def scenario_seconds(text: str) -> dict[str, float] | None:
    """The seconds per scenario the run-length row's notes give, or None (an older table)."""
    for line in text.splitlines():
        found = TOOK.search(line) if line.startswith(f"| {RUN_LENGTH} |") else None
        if found:
            return {key: float(value) for key, value in (part.split(": ") for part in found.group(1).split(", "))}
    return None


def over_common_scenarios(texts: list[str], tables: list[dict[str, Row]]) -> str:
    """Each table's run-length row without the seconds of the scenarios that not every table ran
    (rewritten in `tables`); what was left out, or "" where nothing was (or a table gives no seconds)."""
    took = [scenario_seconds(text) for text in texts]
    if not took or any(seconds is None for seconds in took):
        return ""
    sets = [set(seconds or {}) for seconds in took]
    common = set.intersection(*sets)
    left_out = sorted(set.union(*sets) - common, key=lambda key: (len(key), key))
    if not left_out:
        return ""
    for seconds, found in zip(took, tables, strict=True):
        for key, (ours, baseline, ratio) in list(found.items()):
            if key.startswith(RUN_LENGTH) and NUMBER.search(ours):
                extra = sum(value for name, value in (seconds or {}).items() if name not in common) / 60
                found[key] = (f"{float(NUMBER.findall(ours)[0]) - extra:.1f} min", baseline, ratio)
    return f"over the scenarios every table ran (without {', '.join(left_out)})"


def table(source: str) -> str:
    """A results file's text, or `bench/results.md` as a commit of this repository holds it."""
    path = Path(source)
    if path.is_file():
        return path.read_text()
    root = Path(__file__).resolve().parents[1]
    return subprocess.run(["git", "show", f"{source}:bench/results.md"], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def figure(row: Row) -> tuple[str, float, float] | None:
    """What a row is judged by, as (kind, value, resolution): its ratio where it has one, from its two
    figures when they are single numbers whose quotient is the printed ratio rounded (a ratio that is
    not their quotient, such as the emulator rows' median of blocks, is taken as printed), else its
    only number."""
    ours, baseline, ratio = row
    numbers, floor = NUMBER.findall(ours), NUMBER.findall(baseline)
    if NUMBER.fullmatch(ratio):
        if len(numbers) == 1 and len(floor) == 1 and float(floor[0]) > 0:
            quotient = float(numbers[0]) / float(floor[0])
            if abs(quotient - float(ratio)) <= unit(ratio) / 2 * 1.0001:
                return "ratio", quotient, 0.0
        return "ratio", float(ratio), unit(ratio)
    return ("figure", float(numbers[0]), unit(numbers[0])) if len(numbers) == 1 else None


def unit(text: str) -> float:
    """The value of the last printed digit of a number as the table prints it."""
    return 10.0 ** -len(text.partition(".")[2])


def verdict(new: Row, old: Row, tolerance: float) -> str:
    mine, theirs = figure(new), figure(old)
    if mine is None or theirs is None or mine[0] != theirs[0]:
        return "same" if new[0] == old[0] else "differs"
    kind, a, resolution = mine
    b = theirs[1]
    if abs(a - b) <= max(resolution, theirs[2]) * 1.0001 or abs(a - b) <= tolerance * abs(b):
        return "same"
    if b == 0:
        return "worse" if a > 0 else "better"
    change = a / b - 1
    return f"{'worse' if change > 0 else 'better'} ({kind} {change:+.1%})"


def verdict_of_runs(news: list[Row], olds: list[Row], tolerance: float) -> str:
    """One row over several runs a side: worse or better only when every pair of runs says so."""
    said = [verdict(new, old, tolerance) for new in news for old in olds]
    if len(said) == 1:
        return said[0]
    if figure(news[0]) is None:  # calls per job: the same when each of ours is one the base has given
        return "same" if {new[0] for new in news} <= {old[0] for old in olds} else "differs"
    words = {s.split(" ", 1)[0] for s in said}
    if words == {"same"} or words == {"differs"}:
        return said[0]
    if len(words) > 1:
        return "same (overlap)" if words <= {"same", "worse", "better"} else "differs"
    changes = sorted(float(c) for s in said for c in re.findall(r"([-+]\d+(?:\.\d+)?)%", s))
    kind = said[0].split("(", 1)[1].split(" ", 1)[0] if "(" in said[0] else ""
    spread = f" ({kind} {changes[0]:+.1f}% to {changes[-1]:+.1f}%)" if changes else ""
    return f"{said[0].split(' ', 1)[0]}{spread}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="results file(s) (bench/results.md), one per run")
    parser.add_argument("--against", nargs="+", required=True,
                        help="other results file(s), one per run, or a commit")
    parser.add_argument("--tolerance", type=float, default=0.0, help="relative difference taken as equal")
    args = parser.parse_args(argv)
    texts = [table(source) for source in [*args.results, *args.against]]
    news = [rows(text) for text in texts[:len(args.results)]]
    olds = [rows(text) for text in texts[len(args.results):]]
    run_length = over_common_scenarios(texts, [*news, *olds])
    against = " ".join(args.against)
    worse = 0
    for key, row in news[0].items():
        mine = [run[key] for run in news if key in run]
        theirs = [run[key] for run in olds if key in run]
        if not theirs:
            print(f"{key[:72]:72}  {row[0]:>16}  (no row in {against})")
            continue
        said = verdict_of_runs(mine, theirs, args.tolerance)
        worse += said.startswith(("worse", "differs"))
        note = f"; {run_length}" if run_length and key.startswith(RUN_LENGTH) else ""
        print(f"{key[:72]:72}  {_span(mine, 0):>16} {_span(mine, 2):>6}  against "
              f"{_span(theirs, 0):>16} {_span(theirs, 2):>6}  {said}{note}")
    print(f"{worse} row(s) worse than {against}")
    return 0


def _span(runs: list[Row], column: int) -> str:
    """A column over the runs: its one value, or the first and the last where they differ."""
    values = [run[column] for run in runs]
    return values[0] if len(set(values)) == 1 else f"{values[0]}..{values[-1]}"


if __name__ == "__main__":
    sys.exit(main())
