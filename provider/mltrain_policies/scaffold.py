"""`mltrain-policy-pack DIR`: write a Pulumi policy-pack folder (PulumiPolicy.yaml, __main__.py,
requirements.txt, as in Pulumi's Python policy template) that serves the installed pack, so an
infra repo keeps no copy of the validators and upgrades them with `pip install -U`."""

from __future__ import annotations

import argparse
import os
import sys
from importlib import metadata
from pathlib import Path

from . import DESCRIPTION

MAIN = '''"""pulumi-mltrain's policy pack, served from the installed `mltrain_policies` module."""

from mltrain_policies.pack import serve

serve()
'''


def _version() -> str:
    try:
        return metadata.version("pulumi-mltrain")
    except metadata.PackageNotFoundError:
        return "0.2.0"


def files(virtualenv: str | None) -> dict[str, str]:
    """The folder's files by name; `virtualenv` is written relative to the folder when given."""
    version = _version()
    options = f"  options:\n    virtualenv: {virtualenv}\n" if virtualenv else ""
    return {
        "PulumiPolicy.yaml": f"description: {DESCRIPTION}\nversion: {version}\nruntime:\n  name: python\n{options}",
        "__main__.py": MAIN,
        "requirements.txt": f"pulumi-mltrain[policy]>={version}\n",
    }


def write(folder: Path, virtualenv: str | None, force: bool = False) -> list[Path]:
    """Write the pack folder; refuse to overwrite changed files unless `force`."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in files(virtualenv).items():
        path = folder / name
        if path.exists() and path.read_text() != text and not force:
            raise FileExistsError(f"{path} exists and differs; pass --force to overwrite it")
        path.write_text(text)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="mltrain-policy-pack",
        description="Write a Pulumi policy-pack folder that runs pulumi-mltrain's policies "
                    "(use it with `pulumi preview --policy-pack DIR`).")
    parser.add_argument("folder", type=Path, help="the pack folder to create, e.g. policy/")
    parser.add_argument("--virtualenv", help="the virtualenv with pulumi-mltrain[policy] (default: the "
                        "one running this command, relative to the folder); 'none' to leave it out")
    parser.add_argument("--force", action="store_true", help="overwrite files that differ")
    args = parser.parse_args(argv)
    venv: str | None = args.virtualenv
    if venv is None:
        venv = os.path.relpath(sys.prefix, args.folder.resolve())
    elif venv == "none":
        venv = None
    try:
        for path in write(args.folder, venv, args.force):
            print(f"wrote {path}")
    except FileExistsError as exc:
        parser.error(str(exc))
    print(f"run it with: pulumi preview --policy-pack {args.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
