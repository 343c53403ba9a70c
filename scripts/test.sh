#!/usr/bin/env bash
# The whole test suite: lint and types, then unit, emulator, engine, fault, policy tests.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -k alaya`). Two xdist workers: every
# engine command starts the CLI, a language host and Python provider processes, so the engine tests
# use the CPUs rather than wait on them, and four workers were no faster than two on 2 cores (an
# engine subset: 251 s with -n 4, 227 s with -n 2, on a machine shared with other jobs). The whole
# run needs about 1130 CPU-seconds: 15-18 min on 2 shared cores.
# CI (.ci/run) also runs scripts/test-lowest.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
echo "== ruff"; .venv/bin/ruff check provider policy tests bench scripts examples tools
echo "== mypy"; .venv/bin/mypy
echo "== pytest"
exec .venv/bin/python -m pytest -p no:cacheprovider -n 2 "$@"
