#!/usr/bin/env bash
# The whole test suite: lint and types, then unit, emulator, engine, fault, policy tests.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -k alaya`). Two xdist workers: the
# suite fits in ~30 min on 2 cores. CI (.ci/run) also runs scripts/test-lowest.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
echo "== ruff"; .venv/bin/ruff check provider policy tests bench scripts examples tools
echo "== mypy"; .venv/bin/mypy
echo "== pytest"
exec .venv/bin/python -m pytest -p no:cacheprovider -n 2 "$@"
