"""Two benchmark tables, row by row: which rows of the first are worse than the second's.

    .venv/bin/python bench/compare.py bench/results.md --against d97bc66     # results.md of a commit
    .venv/bin/python bench/compare.py bench/results.md --against other.md    # or any results file

A row is compared by its ratio where it has one (ours against the no-op measured in the same run, so
a slower machine or a busier hour cancels out; computed from the two figures where they are single
numbers, since the printed ratio is rounded), else by its own figure. Lower is better in every
row; rows whose figures are not numbers (calls per job) must be equal. Figures that differ by no more
than their last printed digit are "same" (0.01 s against 0.02 s); any other difference is reported,
unless `--tolerance` is given (e.g. 0.05: single runs of the timed rows move by about that much,
bench/README.md).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

Row = tuple[str, str, str]  # (ours, baseline, ratio) as the table prints them
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


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
    figures when they are single numbers (the printed ratio is rounded), else its only number."""
    ours, baseline, ratio = row
    numbers, floor = NUMBER.findall(ours), NUMBER.findall(baseline)
    if NUMBER.fullmatch(ratio):
        if len(numbers) == 1 and len(floor) == 1 and float(floor[0]) > 0:
            return "ratio", float(numbers[0]) / float(floor[0]), 0.0
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="a results file (bench/results.md)")
    parser.add_argument("--against", required=True, help="another results file, or a commit")
    parser.add_argument("--tolerance", type=float, default=0.0, help="relative difference taken as equal")
    args = parser.parse_args(argv)
    new, old = rows(table(args.results)), rows(table(args.against))
    worse = 0
    for key, row in new.items():
        if key not in old:
            print(f"{key[:72]:72}  {row[0]:>16}  (no row in {args.against})")
            continue
        said = verdict(row, old[key], args.tolerance)
        worse += said.startswith(("worse", "differs"))
        print(f"{key[:72]:72}  {row[0]:>16} {row[2]:>6}  against {old[key][0]:>16} {old[key][2]:>6}  {said}")
    print(f"{worse} row(s) worse than {args.against}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
