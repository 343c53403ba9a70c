"""Every path into tests/ that a test or helper spells out (`ROOT / "tests" / ...`, `Path(__file__).parent /
...`) exists: a folder moved between tiers leaves no test pointing at its old place."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def _parts(node: ast.expr) -> list[str] | None:
    """The string parts of a `/` chain, with its base as the first part ("ROOT", "HERE"), or None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left = _parts(node.left)
        if left is not None and isinstance(node.right, ast.Constant) and isinstance(node.right.value, str):
            return [*left, node.right.value]
        return None
    if isinstance(node, ast.Name) and node.id == "ROOT":
        return ["ROOT"]
    if isinstance(node, ast.Attribute) and node.attr == "parent" and isinstance(node.value, ast.Call) \
            and isinstance(node.value.func, ast.Name) and node.value.func.id == "Path" and node.value.args \
            and isinstance(node.value.args[0], ast.Name) and node.value.args[0].id == "__file__":
        return ["HERE"]
    return None


def spelled_paths(path: Path) -> list[Path]:
    """The longest `/` chains of a module that start at the repository (ROOT) or at the module's folder."""
    found: list[Path] = []
    seen: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if id(node) in seen or not isinstance(node, ast.BinOp):
            continue
        parts = _parts(node)
        if parts is None or len(parts) < 2:
            continue
        for sub in ast.walk(node):
            seen.add(id(sub))
        base = ROOT if parts[0] == "ROOT" else path.parent
        if parts[0] == "ROOT" and parts[1] != "tests":
            continue  # outside tests/: not this test's business
        found.append(base.joinpath(*parts[1:]))
    return found


def test_every_spelled_path_into_tests_exists() -> None:
    modules = [p for p in TESTS.rglob("*.py") if "programs" not in p.relative_to(TESTS).parts]
    missing = {str(p.relative_to(TESTS)): [str(q.relative_to(ROOT)) for q in spelled_paths(p) if not q.exists()]
               for p in modules}
    assert {k: v for k, v in missing.items() if v} == {}


def test_a_path_to_a_moved_folder_is_found(tmp_path: Path) -> None:
    module = tmp_path / "test_x.py"
    module.write_text('MANY = ROOT / "tests" / "faults" / "programs" / "many_jobs"\n'
                      'HERE = Path(__file__).parent / "programs" / "gone"\n')
    assert spelled_paths(module) == [ROOT.joinpath("tests", "faults", "programs", "many_jobs"),
                                     tmp_path.joinpath("programs", "gone")]
