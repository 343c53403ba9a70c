"""mltrain-emulator, the emulator's own distribution (emulator/): it imports nothing of pulumi_mltrain (so a
wrong constant of the provider cannot pass on both sides), its wheel carries the whole package, and
pulumi-mltrain's `emulator` extra installs it into a fresh virtualenv outside the repository (the
`installed_venv` fixture, shared with tests/engine/packaging)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from support.imports import imported_modules
from support.packaging import run
from support.pulumi_cli import ROOT

PACKAGE = ROOT / "emulator" / "mltrain_emulator"


def _imported_modules(path: Path, source: str | None = None) -> set[str]:
    """The absolute names of the modules a source file of the package imports, relative imports resolved."""
    return imported_modules(path, PACKAGE, "mltrain_emulator", source)


def test_emulator_imports_nothing_of_pulumi_mltrain() -> None:
    sources = sorted(PACKAGE.rglob("*.py"))
    assert len(sources) > 20, sources
    imported = {str(path.relative_to(PACKAGE)): _imported_modules(path) for path in sources}
    # The walk sees imports at all (absolute and relative), so an empty answer below is a finding.
    assert "fastapi" in imported["app.py"] and "mltrain_emulator.alaya.contract" in imported["defaults.py"]
    outside = {name: sorted(m for m in modules if not m.partition(".")[0].isidentifier()
                            or m.split(".")[0] == "pulumi_mltrain")
               for name, modules in imported.items()}
    assert not any(outside.values()), {k: v for k, v in outside.items() if v}


@pytest.mark.parametrize(("module", "source"), [
    ("defaults.py", "from ..alaya import contract\n"), ("alaya/validation.py", "from ...alaya import contract\n"),
    ("alaya/validation.py", "from pulumi_mltrain.alaya import contract\n"),
    ("modelarts/documents.py", "import pulumi_mltrain.modelarts.contract\n")])
def test_the_import_check_finds_the_provider(module: str, source: str) -> None:
    """The check above finds each way the emulator could read the provider's constants (the first is how it did,
    when the Alaya validation was a module of the package's top level), from the top level and from a subpackage."""
    modules = _imported_modules(PACKAGE / module, source)
    assert any(m.startswith("<above") or m.startswith("pulumi_mltrain") for m in modules), modules


def test_emulator_wheel_carries_the_package_and_its_console_script(emulator_wheel: Path) -> None:
    archive = zipfile.ZipFile(emulator_wheel)
    names = set(archive.namelist())
    expected = {f"mltrain_emulator/{p.relative_to(PACKAGE)}" for p in PACKAGE.rglob("*.py")}
    assert expected <= names, sorted(expected - names)
    assert "mltrain_emulator/py.typed" in names
    assert not [n for n in names if n.startswith("pulumi_mltrain")], names
    [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "mltrain-emulator = mltrain_emulator.__main__:main" in archive.read(entry_points).decode()


@pytest.mark.slow
def test_emulator_extra_installs_mltrain_emulator_in_a_fresh_venv(installed_venv: Path) -> None:
    venv = installed_venv
    installed = run(venv / "bin" / "python", "-m", "pip", "list", "--format=freeze").lower().replace("_", "-")
    for name in ("pulumi-mltrain==", "mltrain-emulator==0.2.0", "fastapi==", "uvicorn==", "starlette=="):
        assert name in installed, installed
    run(venv / "bin" / "python", "-m", "pip", "check")
    assert "Emulate Alaya NeW" in run(venv / "bin" / "mltrain-emulator", "--help")
    origin = run(venv / "bin" / "python", "-c", "import mltrain_emulator; print(mltrain_emulator.__file__)")
    assert Path(origin.strip()).is_relative_to(venv), origin
