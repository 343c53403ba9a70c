#!/usr/bin/env bash
# The whole test suite: lint and types, then unit, emulator, engine, fault, policy tests.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -k alaya`). Six xdist workers with work
# stealing on 2 cores: most of an engine test's wall time is waiting (emulated jobs moving through their
# states, polls, the engine's own pauses), so two workers kept the two cores 40 % busy and four about
# 50 %; six keep them busy, and work stealing ends the long tests that one worker would otherwise queue
# alone (tests/conftest.py deals the slow engine tests out to the workers first). Bytecode is written even
# where PYTHONDONTWRITEBYTECODE is set: otherwise every worker rewrites the asserts of every test module
# again (7 CPU-s of collection per worker instead of 3). Measured on 2 cores: 275 s of pytest at 912 tests
# (486 CPU-s in the tests, 359 of them in the 202 `pulumi` commands) one evening, 342-388 s at 913 (625-699
# CPU-s, 466-517 in 207 commands) the day before: the cores stay busy, and deliver less when the host is.
# CI (.ci/run) also runs scripts/test-lowest.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
echo "== ruff"; .venv/bin/ruff check provider policy tests bench scripts examples tools emulator plugin-package
echo "== mypy"; .venv/bin/mypy
echo "== pytest"
exec env -u PYTHONDONTWRITEBYTECODE .venv/bin/python -m pytest -p no:cacheprovider -n 6 --dist worksteal "$@"
