#!/usr/bin/env bash
# Builds the TypeScript SDK into the npm package as it is published: sdk/nodejs holds the TypeScript
# sources the official Node.js host generated (`npm run build` is `tsc`, into bin/); the package is
# bin/ with the compiled JavaScript, the declarations, package.json and README.md, which is what
# `npm publish sdk/nodejs/bin` uploads and what examples/typescript installs
# (`"@mltrain/pulumi-mltrain": "file:../../sdk/nodejs/bin"`, copied into node_modules by its .npmrc's
# install-links=true, so that the program and the SDK share one @pulumi/pulumi).
#
# The build's own tools (typescript, @types/node, @pulumi/pulumi's declarations) are exactly those of
# scripts/sdkgen/nodejs-package-lock.json (`npm ci`; refresh it with `npm install --package-lock-only`
# in a copy of sdk/nodejs after the SDK's package.json changes). The result is cached outside the clone
# by the hash of the sources and the lock (MLTRAIN_NODEJS_SDK_CACHE, default ~/.cache/pulumi-mltrain/nodejs-sdk),
# so a second run only copies it into sdk/nodejs/bin. Prints the path of sdk/nodejs/bin.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v npm >/dev/null || { echo "build-nodejs-sdk: no 'npm' on PATH; install Node.js (>= 20) with npm" >&2; exit 1; }

lock=scripts/sdkgen/nodejs-package-lock.json
key="$({ find sdk/nodejs -type f -not -path 'sdk/nodejs/bin/*' -not -path 'sdk/nodejs/node_modules/*' -print0 \
  | sort -z | xargs -0 sha256sum; sha256sum "$lock"; } | sha256sum | cut -c1-16)"
cache="${MLTRAIN_NODEJS_SDK_CACHE:-$HOME/.cache/pulumi-mltrain/nodejs-sdk}"
mkdir -p "$cache"
export npm_config_cache="${npm_config_cache:-$HOME/.cache/pulumi-mltrain/npm}"

exec 9>"$cache/build.lock"
flock 9
built="$cache/$key/package"
if [ ! -f "$built/index.js" ]; then
  echo "build-nodejs-sdk: compiling sdk/nodejs once (cache: $cache/$key)" >&2
  stage="$(mktemp -d "$cache/tmp.XXXX")"
  trap 'rm -rf "$stage"' EXIT
  tar -C sdk/nodejs --exclude=./bin --exclude=./node_modules -cf - . | tar -C "$stage" -xf -
  cp "$lock" "$stage/package-lock.json"
  (cd "$stage" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error >&2 && npm run --silent build >&2)
  cp "$stage/package.json" "$stage/README.md" "$stage/bin/"
  rm -rf "$cache/$key"; mkdir -p "$cache/$key"
  mv "$stage/bin" "$built"
fi
if ! diff -rq "$built" sdk/nodejs/bin >/dev/null 2>&1; then
  rm -rf sdk/nodejs/bin
  cp -R "$built" sdk/nodejs/bin
fi
echo "$root/sdk/nodejs/bin"
