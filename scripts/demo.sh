#!/usr/bin/env bash
# The demo: the quickstart stack through `pulumi up` against the emulator (mltrain-emulator), its outputs,
# a second preview that reports no changes, then `pulumi destroy`.
# Set KEEP=1 to keep the stack and the emulator running afterwards (it prints how to tear down).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh

state="$root/.state"
mkdir -p "$state/backend" "$state/pulumi-home"
port="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"

# The project's virtualenv, active: the root Pulumi.yaml names none (see there), so both language
# hosts run the program, and the dynamic provider plugin its provider, with PULUMI_PYTHON_CMD.
export VIRTUAL_ENV="$root/.venv" PULUMI_PYTHON_CMD="$root/.venv/bin/python"
export PATH="$root/.tools/bin:$root/.venv/bin:$PATH"
export PULUMI_HOME="$state/pulumi-home" PULUMI_BACKEND_URL="file://$state/backend"
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE:-mltrain-demo}"
export PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true PIP_DISABLE_PIP_VERSION_CHECK=1

echo "== starting the emulator (mltrain-emulator) on $url"
.venv/bin/python -m mltrain_emulator --port "$port" --state-file "$state/emulator.json" \
  >"$state/emulator.log" 2>&1 &
emulator_pid=$!
stop_emulator() { kill "$emulator_pid" 2>/dev/null || true; }
if [ "${KEEP:-0}" != 1 ]; then trap stop_emulator EXIT; fi
for _ in $(seq 1 50); do
  curl -fsS "$url/_admin/requests" >/dev/null 2>&1 && break
  sleep 0.2
done

pulumi stack select --create demo --non-interactive >/dev/null
pulumi config set mltrain:alayaEndpoint "$url" >/dev/null
pulumi config set --secret mltrain:alayaApiKey "$(.venv/bin/python -c 'from mltrain_emulator import defaults; print(defaults.DEFAULT_ALAYA_API_KEY)')" >/dev/null

echo "== pulumi up"
pulumi up --yes --non-interactive
echo "== stack outputs"
pulumi stack output
echo "== pulumi preview (expect no changes)"
pulumi preview --non-interactive --expect-no-changes
if [ "${KEEP:-0}" = 1 ]; then
  echo "== kept: the emulator runs as pid $emulator_pid on $url; to tear down:"
  echo "   cd $root && PATH=$root/.tools/bin:$root/.venv/bin:\$PATH PULUMI_PYTHON_CMD=$PULUMI_PYTHON_CMD \\"
  echo "   PULUMI_HOME=$state/pulumi-home PULUMI_BACKEND_URL=file://$state/backend \\"
  echo "   PULUMI_CONFIG_PASSPHRASE=$PULUMI_CONFIG_PASSPHRASE pulumi destroy --yes --stack demo && kill $emulator_pid"
  exit 0
fi
echo "== pulumi destroy"
pulumi destroy --yes --non-interactive
pulumi stack rm demo --yes --non-interactive >/dev/null
echo "== done: the task was created, recorded and previewed with no changes; destroy removed it from the stack and kept its task on the platform as the run's record"
