#!/usr/bin/env bash
# Regenerates sdk/python, sdk/nodejs and sdk/go. sdk/python (the typed Python SDK of the native `mltrain` plugin, package
# pulumi_mltrain_native: schema.json's language.python.packageName) from schema.json with Pulumi's own
# Python code generator (scripts/sdkgen, pinned to pkg/v3 v3.274.1 like the engine). The SDK is
# committed; CI does not run this: tests/unit/test_generated_sdk.py checks the input hashes in
# sdk/python/SDKGEN_INPUTS.
# The generator binary is cached by the hash of its sources outside the clone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

inputs="scripts/sdkgen/main.go scripts/sdkgen/go.mod scripts/sdkgen/go.sum"
key="$(cat $inputs | sha256sum | cut -c1-16)"
CACHE="${MLTRAIN_SDKGEN_CACHE:-$HOME/.cache/pulumi-mltrain/sdkgen}/$key"
bin="$CACHE/sdkgen"
if [ ! -x "$bin" ]; then
  command -v go >/dev/null || { echo "sdkgen: no 'go' on PATH; install Go >= 1.26 to regenerate the SDK" >&2; exit 1; }
  echo "sdkgen: building the generator once (cache: $CACHE)" >&2
  mkdir -p "$CACHE"
  stage="$(mktemp "$CACHE/sdkgen.tmp.XXXX")"
  (cd scripts/sdkgen && CGO_ENABLED=0 GOFLAGS=-modcacherw GOTOOLCHAIN="${GOTOOLCHAIN:-local}" \
    go build -trimpath -ldflags "-s -w" -o "$stage" .)
  mv "$stage" "$bin"
fi
"$bin" -schema schema.json -out sdk/python -stamp "$inputs"
echo "sdkgen: wrote sdk/python from schema.json" >&2
# The TypeScript and Go SDKs, with the official Node.js and Go hosts (tools/sdks.py); `python -m
# tools.generate --sdk` runs them itself after this script (--python-only).
if [ "${1:-}" != "--python-only" ]; then
  .venv/bin/python -c 'import sys; from pathlib import Path; from tools import sdks
for language in sdks.LANGUAGES:
    sdks.generate(Path.cwd(), language); print(f"sdkgen: wrote sdk/{language} from schema.json", file=sys.stderr)'
fi
