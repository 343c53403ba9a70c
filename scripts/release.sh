#!/usr/bin/env bash
# The release command: every artifact of one version into dist/ (or --out DIR): the Python distributions,
# the plugin as an executable archive for `pulumi plugin install`, the npm package, the Go module in a
# module proxy's layout and SHA256SUMS. tools/release.py says what each is and how it is made.
#
#   bash scripts/release.sh 0.2.0 [--out DIR]
#
# The version must be the project's everywhere already (pyproject.toml, schema.json, the SDKs). Needs the
# project's .venv (made here by the bootstrap's first step; a release needs no engine), npm, and PyPI and
# the npm registry (or their caches) for the builds' own tools. .github/workflows/release.yml runs this
# on a `v*` tag, then publishes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh --venv-only
exec .venv/bin/python -m tools.release "$@"
