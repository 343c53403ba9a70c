#!/usr/bin/env bash
# Refreshes requirements/dev.lock, the exact versions development and CI install (bootstrap.sh):
#   bash scripts/lock.sh            # keep current pins where the ranges allow, add what is new
#   bash scripts/lock.sh --upgrade  # move every pin to the newest version inside pyproject's ranges
# Then run `bash scripts/test.sh` and commit pyproject.toml with requirements/dev.lock.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
uv="${MLTRAIN_UV:-$root/.venv/bin/uv}"
[ -x "$uv" ] || uv="$(command -v uv || true)"
if [ -z "$uv" ]; then
  echo "lock: uv not found; run bash scripts/bootstrap.sh (or pip install uv)" >&2
  exit 1
fi
# The dev extra names pulumi-mltrain[emulator], i.e. mltrain-emulator, which no index has: the emulator's
# folder is given as a second input (on stdin), so its dependency ranges are resolved with the rest. Both
# projects stay out of the lock; bootstrap.sh installs them editable.
printf './emulator\n' | "$uv" pip compile pyproject.toml - --extra dev --python-version 3.11 --universal \
  --no-emit-package pulumi-mltrain --no-emit-package mltrain-emulator \
  --custom-compile-command "bash scripts/lock.sh" -o requirements/dev.lock "$@"
