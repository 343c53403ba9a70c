"""The modules a source file imports, read with `ast` (nothing is imported): the layering checks of
tests/unit/test_layers.py and the emulator's independence check in tests/emulator."""

from __future__ import annotations

import ast
from pathlib import Path


def imported_modules(path: Path, root: Path, top: str, source: str | None = None) -> set[str]:
    """The absolute names `path` (a module of the package `top`, whose folder is `root`) imports, relative
    imports resolved and the imported names included (`from . import x` gives `top.x`). `source`
    replaces the file's text. A relative import above `top` gives `<above the top-level package>`."""
    package = [top, *path.relative_to(root).parent.parts]  # a module's package is its folder
    names: set[str] = set()
    text = path.read_text() if source is None else source
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            if node.level > len(package):
                base = ["<above the top-level package>"]
            module = ".".join([*base, *([node.module] if node.module else [])])
            names |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return names
