"""Regenerate every file made from the registry and the specs, in one command:

    .venv/bin/python -m tools.generate          # the program side, schema.json (and the wheel's copy), docs
    .venv/bin/python -m tools.generate --sdk    # also the plugin's SDKs from schema.json: sdk/python
                                                # (scripts/sdkgen.sh, needs Go), sdk/nodejs and sdk/go
                                                # (the official Node.js and Go hosts in .tools/bin)

`--check` writes nothing and lists the stale files (exit 1); the sync tests do the same check.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from . import codegen, docs, schema, sdks

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ".venv/bin/python -m tools.generate"
# The wheel's copy of schema.json (package data), which the plugin's GetSchema returns.
PACKAGED_SCHEMA = "provider/pulumi_mltrain/schema.json"


def outputs() -> Iterator[tuple[str, str]]:
    """(path under the repository root, text) of every generated file but sdk/python."""
    yield from codegen.outputs()
    built = schema.build()
    text = schema.dump(built)
    yield "schema.json", text
    yield PACKAGED_SCHEMA, text
    for page, page_text in docs.render_pages(built).items():
        yield f"docs/resources/{page}", page_text
    yield docs.SETTINGS_PAGE, docs.settings_page((ROOT / docs.SETTINGS_PAGE).read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository root to write under")
    parser.add_argument("--check", action="store_true", help="write nothing; list stale files and exit 1 if any")
    parser.add_argument("--sdk", action="store_true",
                        help="then regenerate sdk/python (bash scripts/sdkgen.sh), sdk/nodejs and sdk/go")
    args = parser.parse_args(argv)
    root: Path = args.root
    files = dict(outputs())
    pages = {p.relative_to(root).as_posix() for p in (root / "docs" / "resources").glob("*.md")}
    extra = sorted(pages - set(files))
    stale = [path for path, text in files.items()
             if not (root / path).is_file() or (root / path).read_text() != text]
    if args.check:
        for path in [*stale, *extra]:
            print(f"stale: {path}", file=sys.stderr)
        return 1 if stale or extra else 0
    for path in stale:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(files[path])
        print(f"wrote {path}", file=sys.stderr)
    for path in extra:
        (root / path).unlink()
        print(f"removed {path}", file=sys.stderr)
    if args.sdk:
        subprocess.run(["bash", str(root / "scripts" / "sdkgen.sh"), "--python-only"], check=True)
        for language in sdks.LANGUAGES:
            sdks.generate(root, language)
            print(f"wrote sdk/{language}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
