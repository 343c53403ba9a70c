#!/usr/bin/env bash
# Makes a fresh clone runnable: the Python virtualenv (.venv) with the project and the locked
# dependencies (requirements/dev.lock), and .tools/bin with the Pulumi CLI, its Python language
# host and the dynamic provider plugin (the official ones when found, MLTRAIN_LANGUAGE_HOST=official|repo
# forces a choice: see step 2). Idempotent and quick once done; every other script starts by running it
# (scripts/release.sh with --venv-only: the virtualenv alone).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PIP_DISABLE_PIP_VERSION_CHECK=1

# 1. Python environment: exactly the versions in requirements/dev.lock (refresh it with
#    `bash scripts/lock.sh`), then the project and the emulator (emulator/, the mltrain-emulator
#    distribution) without resolving anything again. Reinstalled only when the lock or a pyproject.toml changes.
python="${MLTRAIN_PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=".venv/.mltrain-$(cat requirements/dev.lock pyproject.toml emulator/pyproject.toml sdk/python/pyproject.toml \
  | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "bootstrap: installing requirements/dev.lock into .venv" >&2
  .venv/bin/python -m pip install -q -r requirements/dev.lock >&2
  # The editable installs are -qq: pip prints the build backend's warnings, and setuptools warns about every
  # editable install and about the generated SDK's metadata (upstream codegen's table-form license, no
  # README), none of which a newcomer can act on. Errors still print.
  .venv/bin/python -m pip install -qq --no-deps -e . >&2
  # After the project: reinstalling it removes the console scripts its earlier metadata named.
  .venv/bin/python -m pip install -qq --no-deps -e emulator >&2
  # The generated SDK of the native plugin (sdk/python, scripts/sdkgen.sh); its dependencies are in the lock.
  .venv/bin/python -m pip install -qq --no-deps --no-build-isolation -e sdk/python >&2
  rm -f .venv/.mltrain-*; touch "$stamp"
fi
# `--venv-only`: this step alone (scripts/release.sh: a release needs no engine).
if [ "${1:-}" = "--venv-only" ]; then
  exit 0
fi
# 1b. The test programs' environment (.venv-programs): what a user's infra repo installs, the project
#    and the generated SDK with their runtime dependencies at the locked versions, nothing of the
#    development tools. The engine's Python host lists this environment with `pip list` on every
#    preview and up (about 0.3 CPU-s less than listing .venv's 120 packages), and every engine test
#    shows that the runtime needs nothing beyond its declared dependencies. Its pip is the locked one,
#    as in .venv: the host also runs `pip --version`, and the two cost 0.3 CPU-s with a current pip
#    against 0.7 with the pip that `python -m venv` bundles.
if [ ! -x .venv-programs/bin/python ]; then
  "$python" -m venv .venv-programs
fi
programs_stamp=".venv-programs/.mltrain-${stamp#.venv/.mltrain-}"
if [ ! -f "$programs_stamp" ]; then
  echo "bootstrap: installing the runtime dependencies (constrained by requirements/dev.lock) into .venv-programs" >&2
  .venv-programs/bin/python -m pip install -qq -c requirements/dev.lock pip -e . -e sdk/python >&2
  rm -f .venv-programs/.mltrain-*; touch "$programs_stamp"
fi
# An editable install leaves the project's modules and the generated SDK uncompiled (pip byte-compiles
# only what it copies), and with PYTHONDONTWRITEBYTECODE set every process would compile them again:
# about 70 ms of each provider process. compileall writes only what is missing or stale.
.venv/bin/python -m compileall -q provider emulator/mltrain_emulator sdk/python/pulumi_mltrain_native >/dev/null

# 2. The Pulumi engine: a matching `pulumi` on PATH, else one built from the Go modules.
want="${MLTRAIN_PULUMI_VERSION:-v3.274.1}"
mkdir -p .tools/bin
engine_dir=""
if command -v pulumi >/dev/null 2>&1 && [ "$(pulumi version 2>/dev/null)" = "$want" ]; then
  engine_dir="$(dirname "$(readlink -f "$(command -v pulumi)")")"
fi
if [ -n "$engine_dir" ] && [ "$engine_dir" = "$root/.tools/bin" ]; then
  engine_dir=""   # that is our own link from an earlier run
fi
if [ -z "$engine_dir" ]; then
  engine_dir="$(bash scripts/engine/build-pulumi.sh)"
fi
# A hard link (or copy) rather than a symlink: the CLI looks for bundled plugins next to the
# real path of its executable, and ours live in .tools/bin.
if ! cmp -s "$engine_dir/pulumi" .tools/bin/pulumi 2>/dev/null; then
  ln -f "$engine_dir/pulumi" .tools/bin/pulumi 2>/dev/null || cp "$engine_dir/pulumi" .tools/bin/pulumi
fi

# The Python language host and the dynamic provider plugin (pulumi-language-python,
# pulumi-language-python-exec, pulumi-resource-pulumi-python). MLTRAIN_LANGUAGE_HOST picks one:
#   official  upstream's, as users run it: from the official installation of the `pulumi` on PATH, else
#             from MLTRAIN_OFFICIAL_HOST (default ../shared/engine/official beside this repository);
#             fails when neither has it;
#   repo      this repository's scripts/engine/language_host.py (the fallback for a machine with neither);
#   (unset)   official when found, else repo.
# Re-runs rewrite .tools/bin for the host chosen, so switching back and forth works.
venv_python="$root/.venv/bin/python"
host_files="pulumi-language-python pulumi-language-python-exec pulumi-resource-pulumi-python"
is_official() { [ -x "$1/pulumi-language-python" ] && [ -f "$1/pulumi-language-python-exec" ] \
  && [ -f "$1/pulumi-resource-pulumi-python" ]; }
official_dir=""
if [ -n "$engine_dir" ] && is_official "$engine_dir"; then
  official_dir="$engine_dir"
else
  shared="${MLTRAIN_OFFICIAL_HOST:-$root/../shared/engine/official}"
  if is_official "$shared"; then official_dir="$(cd "$shared" && pwd -P)"; fi
fi
language_host="${MLTRAIN_LANGUAGE_HOST:-}"
case "$language_host" in
  "") language_host="$([ -n "$official_dir" ] && echo official || echo repo)" ;;
  official)
    if [ -z "$official_dir" ]; then
      echo "bootstrap: MLTRAIN_LANGUAGE_HOST=official, but no official Python language host was found: neither" \
        "beside a pulumi $want on PATH nor in ${MLTRAIN_OFFICIAL_HOST:-$root/../shared/engine/official}" \
        "(it needs $host_files; MLTRAIN_OFFICIAL_HOST names another folder)" >&2
      exit 1
    fi ;;
  repo) ;;
  *) echo "bootstrap: MLTRAIN_LANGUAGE_HOST=$language_host: give official or repo (or leave it unset)" >&2; exit 1 ;;
esac
# Remove first: writing through an earlier run's symlink would overwrite the official files themselves.
for f in $host_files; do rm -f ".tools/bin/$f"; done
if [ "$language_host" = official ]; then
  # Symlinks: the Go host finds pulumi-language-python-exec beside its own real path.
  for f in $host_files; do ln -s "$official_dir/$f" ".tools/bin/$f"; done
  host_note="official Python language host from $official_dir"
else
  cat > .tools/bin/pulumi-language-python <<SH
#!/bin/sh
exec "$venv_python" -u "$root/scripts/engine/language_host.py" "\$@"
SH
  cat > .tools/bin/pulumi-resource-pulumi-python <<SH
#!/bin/sh
# Dynamic providers run in the project's virtualenv unless Pulumi.yaml names another one, and
# exit when the engine goes away.
python="$venv_python"
if [ -n "\${PULUMI_RUNTIME_VIRTUALENV:-}" ] && [ -x "\${PULUMI_RUNTIME_VIRTUALENV%/}/bin/python" ]; then
  python="\${PULUMI_RUNTIME_VIRTUALENV%/}/bin/python"
fi
exec "\$python" -u "$root/scripts/engine/language_host.py" --provider "\$@"
SH
  chmod 0755 .tools/bin/pulumi-language-python .tools/bin/pulumi-resource-pulumi-python
  host_note="the repository's Python language host (scripts/engine/language_host.py)"
fi
# 2b. The Node.js and Go language hosts (pulumi-language-nodejs, pulumi-language-go), when the official
#    folder has them: they generate the plugin's TypeScript and Go SDKs (scripts/sdkgen.sh) and run
#    programs in those languages. Symlinked like the Python host; absent hosts leave nothing behind.
for f in pulumi-language-nodejs pulumi-language-go; do
  rm -f ".tools/bin/$f"
  for dir in "$official_dir" "${MLTRAIN_OFFICIAL_HOST:-$root/../shared/engine/official}"; do
    if [ -n "$dir" ] && [ -x "$dir/$f" ]; then ln -s "$(cd "$dir" && pwd -P)/$f" ".tools/bin/$f"; break; fi
  done
done
# 3. The Pulumi YAML language host (runtime: yaml), built once from its Go module into the cache.
yaml_version="${MLTRAIN_YAML_VERSION:-v1.25.0}"
yaml_bin="${MLTRAIN_ENGINE_CACHE:-$HOME/.cache/pulumi-mltrain/engine}/yaml-$yaml_version/pulumi-language-yaml"
if [ ! -x "$yaml_bin" ] && command -v go >/dev/null 2>&1; then
  echo "bootstrap: building pulumi-language-yaml $yaml_version from Go modules, once (about 2 min)" >&2
  mkdir -p "$(dirname "$yaml_bin")"; yaml_stage="$(mktemp -d "$(dirname "$yaml_bin")/tmp.XXXX")"
  if CGO_ENABLED=0 GOFLAGS="-mod=mod -modcacherw" GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOBIN="$yaml_stage" \
    go install -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=${yaml_version#v}" \
    "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$yaml_version" >&2; then
    mv "$yaml_stage/pulumi-language-yaml" "$yaml_bin"
  else
    echo "bootstrap: pulumi-language-yaml did not build; Pulumi YAML programs (tests/engine/plugin/test_yaml.py) fail" >&2
  fi
  rm -rf "$yaml_stage"
fi
if [ -x "$yaml_bin" ]; then ln -sf "$yaml_bin" .tools/bin/pulumi-language-yaml; fi
echo "bootstrap: ready ($(.tools/bin/pulumi version), $(.venv/bin/python --version), $host_note)" >&2
