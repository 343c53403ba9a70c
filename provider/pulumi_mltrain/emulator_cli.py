"""`mltrain-emulator`: the console script of `python -m pulumi_mltrain.emulator`, with a hint when
the emulator extra (FastAPI, uvicorn) is not installed instead of a bare ImportError."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    try:
        from .emulator.__main__ import main as run
    except ImportError as exc:
        print(f"mltrain-emulator: {exc}; the emulator needs its server packages: "
              'pip install "pulumi-mltrain[emulator]"', file=sys.stderr)
        return 2
    return run(argv)
