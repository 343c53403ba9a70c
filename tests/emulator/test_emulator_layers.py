"""The import arrows of the emulator package (emulator/README.md, "Layout"): the two platforms,
`mltrain_emulator.alaya` and `mltrain_emulator.modelarts`, build on the shared core at the package's top
level and never import each other. Nor do they import the top-level modules that join the two (the app,
the admin API, the fault middleware, and the catalog, errors and records that name both platforms),
which would reach the other platform through them. Read from the sources with `ast`."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.imports import imported_modules

PACKAGE = Path(__file__).resolve().parents[2] / "emulator" / "mltrain_emulator"
PLATFORMS = ("alaya", "modelarts")
JOINS = tuple(f"mltrain_emulator.{name}" for name in (
    "app", "admin", "patching", "faults", "middleware", "server", "testing", "__main__", "catalog", "errors",
    "records"))


def imported(path: Path, root: Path = PACKAGE) -> set[str]:
    return imported_modules(path, root, "mltrain_emulator")


def reaches(names: set[str], targets: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names for t in targets if n == t or n.startswith(f"{t}."))


def test_the_check_finds_relative_and_absolute_imports_of_the_other_platform(tmp_path: Path) -> None:
    """What the checks below would flag, written the ways a platform module could import the other one."""
    module = tmp_path / "alaya" / "bad.py"
    module.parent.mkdir()
    module.write_text("from ..modelarts.errors import ModelArtsError\nfrom .. import modelarts\n"
                      "import mltrain_emulator.modelarts.iam\nfrom ..catalog import flavor\n"
                      "from . import contract\nfrom .. import defaults\nfrom ..state import World\n")
    found = imported(module, tmp_path)
    assert reaches(found, ("mltrain_emulator.modelarts",)) == [
        "mltrain_emulator.modelarts", "mltrain_emulator.modelarts.errors",
        "mltrain_emulator.modelarts.errors.ModelArtsError", "mltrain_emulator.modelarts.iam"]
    assert reaches(found, JOINS) == ["mltrain_emulator.catalog", "mltrain_emulator.catalog.flavor"]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_platform_imports_nothing_of_the_other(platform: str) -> None:
    others = tuple(f"mltrain_emulator.{p}" for p in PLATFORMS if p != platform)
    found = {str(p.relative_to(PACKAGE)): reaches(imported(p), others)
             for p in sorted((PACKAGE / platform).rglob("*.py"))}
    assert len(found) > 6, found
    assert not any(found.values()), {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_platform_imports_no_module_that_joins_both(platform: str) -> None:
    found = {str(p.relative_to(PACKAGE)): reaches(imported(p), JOINS)
             for p in sorted((PACKAGE / platform).rglob("*.py"))}
    assert len(found) > 6, found
    assert not any(found.values()), {k: v for k, v in found.items() if v}
