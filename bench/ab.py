"""This checkout against another, run after run on the same machine, then row by row.

    git clone . ../base && git -C ../base checkout d97bc66 && (cd ../base && bash scripts/bootstrap.sh)
    .venv/bin/python bench/ab.py --against ../base --rounds 2            # full runs: about 40 min
    .venv/bin/python bench/ab.py --against ../base --only 1,4 --rounds 3

One full run against one earlier full run cannot tell a change from the machine's drift (two runs of
one source, an hour apart, had 9 rows "worse" than each other, README.md). So each side runs in its
own checkout, with its own venv and its own `bench/run.py`, in the order base, ours, ours, base, ...
(each pair in turn reversed, so that a drift over the session falls on both sides alike), and
`compare.py` judges a row worse only when every run of ours is worse than every run of the base.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402


def run(checkout: Path, output: Path, only: str, quick: bool) -> None:
    """One `bench/run.py` of a checkout, with that checkout's own venv; its table goes to `output`."""
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{checkout}: no .venv: run `bash scripts/bootstrap.sh` there first")
    argv = [str(python), str(checkout / "bench" / "run.py"), "--output", str(output)]
    argv += ["--only", only] if only else []
    argv += ["--quick"] if quick else []
    print(f"ab: {checkout} -> {output.name}", flush=True)
    subprocess.run(argv, cwd=checkout, check=True, stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="the other checkout (bootstrapped)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each side (default 2)")
    parser.add_argument("--only", default="", help="scenarios, as bench/run.py takes them")
    parser.add_argument("--quick", action="store_true", help="bench/run.py --quick on both sides")
    parser.add_argument("--out", type=Path, default=None, help="where the runs' tables go (a new temp dir)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    out = args.out or Path(tempfile.mkdtemp(prefix="mltrain-ab-"))
    out.mkdir(parents=True, exist_ok=True)
    sides = {"base": args.against.resolve(), "ours": ROOT}
    for round_ in range(args.rounds):
        order = ("base", "ours") if round_ % 2 == 0 else ("ours", "base")
        for side in order:
            run(sides[side], out / f"{side}-{round_ + 1}.md", args.only, args.quick)
    ours = [str(out / f"ours-{i + 1}.md") for i in range(args.rounds)]
    base = [str(out / f"base-{i + 1}.md") for i in range(args.rounds)]
    print(f"ab: tables in {out}", flush=True)
    return compare.main([*ours, "--against", *base])


if __name__ == "__main__":
    sys.exit(main())
