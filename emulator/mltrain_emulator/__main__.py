"""CLI: ``mltrain-emulator`` (= ``python -m mltrain_emulator``) ``--port 8790 [--state-file F]
[--subscription-delay S] [--fault SPEC ...] [--seed N]``. Binds 127.0.0.1 only and prints the URL and
default credentials.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import uvicorn

from . import defaults as d
from .app import create_app
from .fault_rules import parse_fault_spec
from .server import bind_loopback, uvicorn_config
from .settings import EmulatorSettings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mltrain-emulator",
        description="Emulate Alaya NeW, Huawei IAM and ModelArts v2 on 127.0.0.1.",
    )
    add = parser.add_argument
    add("--port", type=int, default=d.DEFAULT_PORT, help="TCP port (0 = any free port)")
    add("--state-file", type=Path, help="load state from this JSON file (and F.journal) and journal every change")
    add("--subscription-delay", type=float, help="seconds an Alaya subscription stays PROCESSING")
    add("--fault", action="append", default=[], metavar="SPEC",
        help='e.g. "POST /v1/subscription/training/create:status=503:times=2" (repeatable)')
    add("--seed", type=int, default=0, help="seed of the fault-injection RNG")
    add("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    return parser


def banner(url: str) -> str:
    return "\n".join([
        f"mltrain-emulator on {url}",
        f"  Alaya NeW  {url}/v1/... (also /api/osm/v1/...)   Authorization: Bearer {d.DEFAULT_ALAYA_API_KEY}",
        f"  IAM        POST {url}{d.IAM_TOKENS}   user {d.DEFAULT_IAM_USER} / {d.DEFAULT_IAM_PASSWORD}, "
        f"domain {d.DEFAULT_IAM_DOMAIN}, project {d.DEFAULT_PROJECT_NAME}",
        f"  ModelArts  {url}/v2/{d.DEFAULT_PROJECT_ID}/...   X-Auth-Token: <X-Subject-Token from IAM>",
        f"  Admin      {url}{d.ADMIN_PREFIX}/state  (requests, settings, faults, clock/advance, reset, docs)",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        faults = [parse_fault_spec(spec) for spec in args.fault]
        settings = EmulatorSettings(seed=args.seed)
        if args.subscription_delay is not None:
            settings.subscription_delay = args.subscription_delay
    except ValueError as exc:
        parser.error(str(exc))
    app = create_app(settings, state_file=args.state_file, faults=faults)
    sock = bind_loopback(args.port)
    print(banner(f"http://{d.HOST}:{sock.getsockname()[1]}"), flush=True)
    uvicorn.Server(uvicorn_config(app, args.log_level)).run(sockets=[sock])
    app.state.world.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
