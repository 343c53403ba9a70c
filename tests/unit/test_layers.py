"""The import arrows of the provider package point one way (docs/development.md, "Layout"): the two
adapters (`dynamic_provider.py` for `pulumi.dynamic`, `plugin/` for the native plugin) build on the core
and the platforms. So the platforms and the lifecycle import neither adapter, and nothing outside
`plugin/` imports the plugin. Read from the sources with `ast`.

The generated `alaya/_resources.py` and `modelarts/_resources.py` hold the resources' `DynamicProvider`
subclasses, which sit in the platform folders because states name their paths (they are pickled into them);
they are the dynamic face, not platform code, so they import the adapter and nothing else.

The program side is `program/`: it reads the wire (clients through the registry, contracts, result types)
but none of the provider side's logic, and only the modules listed in `INTO_THE_PROGRAM` import it.

The wire is each platform's `wire/` folder (paths and constants, the client, the answer models, auth) and the
shared `transport.py` and `answers.py`: what speaks HTTP and checks answers. It imports none of the provider
side's logic either, so that a client can be read, tested and reused without the resources that call it."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.imports import imported_modules

PACKAGE = Path(__file__).resolve().parents[2] / "provider" / "pulumi_mltrain"
ADAPTERS = ("pulumi_mltrain.plugin", "pulumi_mltrain.dynamic_provider", "pulumi.dynamic")
PLATFORMS = ("alaya", "modelarts", "lifecycle")
PICKLED = "_resources.py"  # generated, in each platform folder: the providers states name


def imported(path: Path, root: Path = PACKAGE) -> set[str]:
    return imported_modules(path, root, "pulumi_mltrain")


def reaches(names: set[str], targets: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names for t in targets if n == t or n.startswith(f"{t}."))


def test_the_check_finds_relative_and_absolute_imports_of_an_adapter(tmp_path: Path) -> None:
    """What the checks below would flag, written the ways a platform module could import an adapter."""
    module = tmp_path / "alaya" / "bad.py"
    module.parent.mkdir()
    module.write_text("from ..plugin.owner import stack_identity\nfrom .. import dynamic_provider\n"
                      "from pulumi.dynamic import ResourceProvider\nfrom . import contract\n")
    assert reaches(imported(module, tmp_path), ADAPTERS) == [
        "pulumi.dynamic", "pulumi.dynamic.ResourceProvider", "pulumi_mltrain.dynamic_provider",
        "pulumi_mltrain.plugin.owner", "pulumi_mltrain.plugin.owner.stack_identity"]


@pytest.mark.parametrize("folder", PLATFORMS)
def test_platforms_and_the_lifecycle_import_no_adapter(folder: str) -> None:
    found = {str(p.relative_to(PACKAGE)): reaches(imported(p), ADAPTERS)
             for p in sorted((PACKAGE / folder).rglob("*.py")) if p.name != PICKLED}
    assert len(found) > 3, found
    assert not any(found.values()), {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("folder", ["alaya", "modelarts"])
def test_the_pickled_providers_import_the_adapter_and_nothing_else(folder: str) -> None:
    names = imported(PACKAGE / folder / PICKLED)
    ours = {n for n in names if n.startswith("pulumi_mltrain.")}
    assert ours == {"pulumi_mltrain.dynamic_provider", "pulumi_mltrain.dynamic_provider.DynamicProvider"}, \
        sorted(names)


def test_nothing_outside_the_plugin_imports_it() -> None:
    found = {str(p.relative_to(PACKAGE)): reaches(imported(p), ("pulumi_mltrain.plugin",))
             for p in sorted(PACKAGE.rglob("*.py")) if "plugin" not in p.relative_to(PACKAGE).parts}
    assert len(found) > 40, len(found)
    assert not any(found.values()), {k: v for k, v in found.items() if v}


PROGRAM = "pulumi_mltrain.program"
# What the program side must not load: the provider side's logic (the handler, the lifecycles, each
# resource's platform calls and its primitives) and the plugin.
PROVIDER_SIDE = ("pulumi_mltrain.handler", "pulumi_mltrain.platform_calls", "pulumi_mltrain.lifecycle",
                 "pulumi_mltrain.training_jobs", "pulumi_mltrain.plugin", "pulumi_mltrain.cli",
                 "pulumi_mltrain.alaya.training_job", "pulumi_mltrain.alaya.storage_mount",
                 "pulumi_mltrain.alaya.tasks", "pulumi_mltrain.modelarts.training_job",
                 "pulumi_mltrain.modelarts.algorithm", "pulumi_mltrain.modelarts.jobs")
# The modules outside `program/` that import it, and why.
INTO_THE_PROGRAM = {
    "__init__.py": "the package's lazy `Provider`",
    "alaya/__init__.py": "generated: the resource classes and functions, loaded on first use",
    "modelarts/__init__.py": "generated: the resource classes and functions, loaded on first use",
    "alaya/function_schema.py": "declares the functions for schema.json and the plugin's invokes",
    "modelarts/function_schema.py": "declares the functions for schema.json and the plugin's invokes",
}


def test_the_program_side_imports_none_of_the_provider_side() -> None:
    found = {str(p.relative_to(PACKAGE)): reaches(imported(p), PROVIDER_SIDE)
             for p in sorted((PACKAGE / "program").glob("*.py"))}
    assert len(found) >= 6, found
    assert not any(found.values()), {k: v for k, v in found.items() if v}


def test_only_the_listed_modules_import_the_program_side() -> None:
    found = {str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("*.py"))
             if "program" not in p.relative_to(PACKAGE).parts and reaches(imported(p), (PROGRAM,))}
    assert found == set(INTO_THE_PROGRAM), sorted(found ^ set(INTO_THE_PROGRAM))


WIRE_FOLDERS = ("alaya/wire", "modelarts/wire")
SHARED_WIRE = ("transport.py", "answers.py")
# The provider side the wire must not load: the program side's list, the program side itself, the dynamic
# adapter, the registry (every resource's platform calls) and each platform's modules outside its wire.
NOT_FOR_THE_WIRE = tuple(dict.fromkeys((
    *PROVIDER_SIDE, PROGRAM, "pulumi_mltrain.dynamic_provider", "pulumi_mltrain.registry",
    *(f"pulumi_mltrain.{platform}.{p.stem}" for platform in ("alaya", "modelarts")
      for p in sorted((PACKAGE / platform).glob("*.py")) if p.name != "__init__.py"))))


def wire_modules() -> list[Path]:
    return [*(p for folder in WIRE_FOLDERS for p in sorted((PACKAGE / folder).glob("*.py"))),
            *(PACKAGE / name for name in SHARED_WIRE)]


def test_the_wire_check_flags_provider_side_imports(tmp_path: Path) -> None:
    """What the check below would flag, written the ways a wire module could reach the provider side."""
    module = tmp_path / "alaya" / "wire" / "bad.py"
    module.parent.mkdir(parents=True)
    module.write_text("from ..tasks import status\nfrom ...lifecycle import takeover\n"
                      "from . import contract\nfrom ... import transport, registry\n")
    assert reaches(imported(module, tmp_path), NOT_FOR_THE_WIRE) == [
        "pulumi_mltrain.alaya.tasks", "pulumi_mltrain.alaya.tasks.status", "pulumi_mltrain.lifecycle",
        "pulumi_mltrain.lifecycle.takeover", "pulumi_mltrain.registry"]


def test_the_wire_imports_none_of_the_provider_side() -> None:
    modules = wire_modules()
    assert {p.name for p in modules} >= {"client.py", "contract.py", "answers.py", "iam.py", "signer.py",
                                         "transport.py"}, modules
    assert "pulumi_mltrain.modelarts.jobs" in NOT_FOR_THE_WIRE and "pulumi_mltrain.alaya.catalog" in NOT_FOR_THE_WIRE
    found = {str(p.relative_to(PACKAGE)): reaches(imported(p), NOT_FOR_THE_WIRE) for p in modules}
    assert not any(found.values()), {k: v for k, v in found.items() if v}
