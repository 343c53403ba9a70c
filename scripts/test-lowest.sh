#!/usr/bin/env bash
# The unit and in-process tests (tests/unit, with the policy validators; tests/inprocess, the handlers and
# clients against the emulator over loopback HTTP) against the LOWEST supported versions of the direct
# dependencies of pulumi-mltrain and mltrain-emulator (requirements/lowest.txt), in .venv-lowest; test tools
# come from the lock. Left out: the type checkers (tests/unit/typing: the lock's mypy and pyright), the
# wheel builds (tests/unit/packaging) and Huawei's SDK (not a dependency). Extra arguments go to pytest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PIP_DISABLE_PIP_VERSION_CHECK=1
venv=.venv-lowest
if [ ! -x "$venv/bin/python" ]; then
  "${MLTRAIN_PYTHON:-python3}" -m venv "$venv"
fi
tools="$(grep -E '^(pytest|pytest-xdist|execnet|iniconfig|pluggy|hypothesis|sortedcontainers|attrs)==' requirements/dev.lock)"
stamp="$venv/.mltrain-$( (cat requirements/lowest.txt pyproject.toml emulator/pyproject.toml; echo "$tools") \
  | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "test-lowest: installing requirements/lowest.txt into $venv" >&2
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip install -q -r requirements/lowest.txt $tools >&2
  "$venv/bin/python" -m pip install -q --no-deps -e . >&2
  # The emulator (tests/conftest.py starts it for tests/inprocess), a distribution of its own: its floors are in lowest.txt too.
  "$venv/bin/python" -m pip install -q --no-deps -e emulator >&2
  rm -f "$venv"/.mltrain-*; touch "$stamp"
fi
"$venv/bin/python" -m pip check >&2 || true
"$venv/bin/python" - <<'PY'
from importlib import metadata
print("lowest:", ", ".join(f"{n}=={metadata.version(n)}" for n in
      ["pulumi", "httpx", "pydantic", "tenacity", "pyyaml", "fastapi", "starlette", "uvicorn", "pulumi-policy"]))
PY
exec "$venv/bin/python" -m pytest -p no:cacheprovider -n 2 tests/unit tests/inprocess \
  --ignore=tests/unit/typing --ignore=tests/unit/packaging --ignore=tests/inprocess/test_huawei_sdk_interop.py "$@"
