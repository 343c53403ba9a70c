"""What the project's wheel holds: the packaged schema.json and no generator, nothing of the emulator
(its own distribution, named only as the `emulator` extra)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from support.pulumi_cli import ROOT


def test_wheel_ships_schema_json_and_no_generator(wheel: Path) -> None:
    """The generators (tools/) are build-time only; the plugin's GetSchema reads the packaged schema.json."""
    names = zipfile.ZipFile(wheel).namelist()
    generators = [n for n in names if n.startswith("tools/")
                  or n.removeprefix("pulumi_mltrain/") in ("codegen.py", "schema.py", "docs.py", "generate.py")]
    assert not generators, generators
    assert "pulumi_mltrain/schema.json" in names, names
    assert zipfile.ZipFile(wheel).read("pulumi_mltrain/schema.json") == (ROOT / "schema.json").read_bytes()


def test_wheel_carries_no_emulator(wheel: Path) -> None:
    """The emulator is the mltrain-emulator distribution: pulumi-mltrain's wheel names it only as its extra."""
    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    assert "pulumi_mltrain/__init__.py" in names, names  # the listing is the package's
    emulator = [n for n in names if "emulator" in n.lower()]  # no module, package or script of it
    assert not emulator, emulator
    [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
    requires = [line for line in archive.read(metadata).decode().splitlines() if line.startswith("Requires-Dist:")]
    extra = [line for line in requires if 'extra == "emulator"' in line]
    assert extra == ['Requires-Dist: mltrain-emulator<0.3,>=0.2; extra == "emulator"'], requires
    [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "mltrain-emulator" not in archive.read(entry_points).decode()
