#!/usr/bin/env bash
# The whole test suite: lint and types, then unit, emulator, engine, fault, policy tests.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -k alaya`). Four xdist workers on 2 cores:
# the suite needs about 500 CPU-seconds, but most of its wall time is waiting (emulated jobs moving
# through their states, deadlines, the engine's own pauses): with two workers a full run took 620 s
# wall for 497 CPU-s (40 % of two cores busy). Engine tests are collected first (tests/conftest.py).
# CI (.ci/run) also runs scripts/test-lowest.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
echo "== ruff"; .venv/bin/ruff check provider policy tests bench scripts examples tools
echo "== mypy"; .venv/bin/mypy
echo "== pytest"
exec .venv/bin/python -m pytest -p no:cacheprovider -n 4 "$@"
