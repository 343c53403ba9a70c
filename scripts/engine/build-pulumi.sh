#!/usr/bin/env bash
# Builds the Pulumi CLI at a pinned version from its Go modules (the Go module proxy is the one
# route to the engine on machines without the Pulumi installer), into a cache shared by clones.
# Prints the folder that holds the `pulumi` binary.
set -euo pipefail

PULUMI_VERSION="${MLTRAIN_PULUMI_VERSION:-v3.274.1}"
CACHE="${MLTRAIN_ENGINE_CACHE:-$HOME/.cache/pulumi-mltrain/engine}/$PULUMI_VERSION"
BIN="$CACHE/bin"
CLI_PKG=github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
VERSION_VAR=github.com/pulumi/pulumi/sdk/v3/go/common/version.Version

if [ -x "$BIN/pulumi" ] && [ "$("$BIN/pulumi" version 2>/dev/null)" = "$PULUMI_VERSION" ]; then
  echo "$BIN"; exit 0
fi
command -v go >/dev/null || { echo "build-pulumi: no 'go' on PATH; install Go >= 1.26 or put pulumi $PULUMI_VERSION on PATH" >&2; exit 1; }

export CGO_ENABLED=0 GOFLAGS=-modcacherw GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p "$CACHE"
log="$CACHE/build.log"
echo "build-pulumi: building pulumi $PULUMI_VERSION from Go modules, once (about 6 min; log: $log)" >&2
set +e  # run the build in a subshell that stops at its first error, and report it here
(
  set -euo pipefail
  go mod init example.invalid/pulumi-engine-build
  # pkg/go.mod's replace directives do not apply to a dependency: repeat its non-local one.
  gomod="$(go mod download -json "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')"
  go mod edit -json "$gomod" | python3 -c '
import json, sys
for r in json.load(sys.stdin).get("Replace") or []:
    if r["New"].get("Version"):
        print("-replace=%s=%s@%s" % (r["Old"]["Path"], r["New"]["Path"], r["New"]["Version"]))' > replaces
  if [ -s replaces ]; then xargs go mod edit < replaces; fi
  go get -tool "$CLI_PKG@$PULUMI_VERSION"
  go get "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" "github.com/pulumi/pulumi/sdk/v3@$PULUMI_VERSION"
  for m in github.com/pulumi/pulumi/pkg/v3 github.com/pulumi/pulumi/sdk/v3; do
    v="$(go list -m -f '{{.Version}}' "$m")"
    [ "$v" = "$PULUMI_VERSION" ] || { echo "build-pulumi: $m resolved to $v, want $PULUMI_VERSION" >&2; exit 1; }
  done
  stage="$(mktemp -d "$CACHE/bin.tmp.XXXX")"
  go build -trimpath -tags osusergo,grpcnotrace \
    -ldflags "-s -w -X $VERSION_VAR=$PULUMI_VERSION" -o "$stage/pulumi" "$CLI_PKG"
  [ "$("$stage/pulumi" version)" = "$PULUMI_VERSION" ]
  rm -rf "$BIN"; mv "$stage" "$BIN"
) >"$log" 2>&1
status=$?
set -e
if [ "$status" -ne 0 ]; then
  tail -n 30 "$log" >&2
  echo "build-pulumi: the build failed; the full log is $log" >&2
  exit 1
fi
echo "$BIN"
