"""The test folders say their tier, and each holds only tests of its tier, read from the source:

- `tests/unit`: no server at all: no emulator fixture, nothing of the emulator that serves (its data
  modules `defaults` and `catalog` are plain data), no listening socket or HTTP server, no engine;
- `tests/inprocess`: our handlers and clients against servers in this process (the emulator over
  loopback HTTP, tiny loopback servers), never the Pulumi CLI nor a plugin process the engine would start;
- `tests/engine`: every test runs the official Pulumi CLI (or a process as the engine starts it) and
  carries `pytest.mark.engine`, which `-m "not engine"` and tests/conftest.py's dealing of the slow
  engine tests read;
- `tests/emulator`: the emulator package on its own, no engine.

A test "uses" what its parameters (fixtures), its body and the module's helpers and fixtures it calls
reach, transitively (fixtures of the conftest.py files above it included).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
TIERS = ("unit", "inprocess", "engine", "emulator")

# Fixtures and helpers that run the engine: the stack factories of the conftest.py files, and every name
# taken from a module that exists for engine runs (the CLI wrapper and the stack factories of tests/support,
# the plugin's helpers, the Automation API) but plain data and paths.
ENGINE_FIXTURES = {"alaya_stack", "modelarts_stack", "mixed", "alaya_plugin_stack", "modelarts_plugin_stack"}
ENGINE_MODULES = {"support.pulumi_cli", "support.stacks", "support.node_go", "support.s3_backend",
                  "support.interrupted", "support.release_host", "plugin_support", "pulumi.automation"}
PLAIN = {"ROOT", "VENV", "PROGRAMS_VENV", "PROGRAMS", "alaya_job_args", "by_name", "ops_by_name", "change_counts",
         "PulumiFailed"}
# Servers: the emulator's fixtures and serving classes, loopback servers made here.
SERVER_FIXTURES = {"emulator", "emulator_server"}
SERVER_NAMES = {"EmulatorServer", "EmulatorAdmin", "EmulatorHandle", "create_server", "listen", "HTTPServer",
                "ThreadingHTTPServer", "TCPServer", "uvicorn"}
EMULATOR_DATA = {"mltrain_emulator.defaults", "mltrain_emulator.catalog"}


@dataclass
class Uses:
    engine: set[str] = field(default_factory=set)
    server: set[str] = field(default_factory=set)

    def add(self, other: Uses) -> bool:
        """Adds `other`'s uses; whether that changed anything."""
        before = (len(self.engine), len(self.server))
        self.engine |= other.engine
        self.server |= other.server
        return before != (len(self.engine), len(self.server))


def _is_engine_mark(node: ast.AST) -> bool:
    """`pytest.mark.engine` (or a call of it) anywhere in `node`: a decorator or `pytestmark`'s value."""
    return any(isinstance(sub, ast.Attribute) and sub.attr == "engine" and isinstance(sub.value, ast.Attribute)
               and sub.value.attr == "mark" for sub in ast.walk(node))


@dataclass
class Module:
    """One parsed test module or conftest.py, with what its imports bring into it."""

    tree: ast.Module
    engine_names: dict[str, str] = field(default_factory=dict)  # local name -> where it comes from
    engine_modules: set[str] = field(default_factory=set)  # engine modules bound whole (`from support import stacks`)
    imports: Uses = field(default_factory=Uses)

    @classmethod
    def of(cls, tree: ast.Module) -> Module:
        module = cls(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    module.note(alias.name, alias.asname or alias.name.split(".")[0], whole=True)
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    module.note(f"{node.module}.{alias.name}", alias.asname or alias.name, whole=False,
                                parent=node.module, name=alias.name)
        return module

    def note(self, full: str, local: str, *, whole: bool, parent: str = "", name: str = "") -> None:
        if full in ENGINE_MODULES:
            self.engine_modules.add(local)
            self.imports.engine.add(f"import {full}")
        elif parent in ENGINE_MODULES and name not in PLAIN:
            self.engine_names[local] = full
            self.imports.engine.add(f"from {parent} import {name}")
        emulator = full if whole else parent
        if emulator.startswith("mltrain_emulator") and full not in EMULATOR_DATA and parent not in EMULATOR_DATA:
            self.imports.server.add(f"{full}")
        if emulator.split(".")[0] in ("uvicorn", "socketserver") or emulator == "http.server":
            self.imports.server.add(f"{full}")

    def functions(self) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
        """Module-level functions, and the methods of module-level classes under the class's name."""
        found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found[node.name] = node
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        found[f"{node.name}.{item.name}"] = item
        return found

    def direct(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[Uses, set[str]]:
        """What a function's parameters (fixtures) and body use themselves, and the names it calls or
        requests (for the fixed point)."""
        uses = Uses()
        params = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
        for decorator in node.decorator_list:  # indirect parametrization requests a fixture too
            if isinstance(decorator, ast.Call) and any(k.arg == "indirect" for k in decorator.keywords) \
                    and decorator.args and isinstance(decorator.args[0], ast.Constant):
                params |= {p.strip() for p in str(decorator.args[0].value).split(",")}
        uses.engine |= {f"fixture {p}" for p in params & ENGINE_FIXTURES}
        uses.server |= {f"fixture {p}" for p in params & SERVER_FIXTURES}
        called = set(params)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                if sub.id in self.engine_names:
                    uses.engine.add(self.engine_names[sub.id])
                if sub.id in SERVER_NAMES:
                    uses.server.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                if isinstance(sub.value, ast.Name) and sub.value.id in self.engine_modules and sub.attr not in PLAIN:
                    uses.engine.add(f"{sub.value.id}.{sub.attr}")
                if sub.attr in SERVER_NAMES:
                    uses.server.add(sub.attr)
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                called.add(sub.func.id)
        return uses, called


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _reach(modules: list[Module]) -> dict[str, Uses]:
    """Every module-level function, class and fixture of `modules` (a test module and its conftests), with
    what it uses, directly or through the functions and fixtures it calls or requests (a fixed point). A name
    defined in several of them counts with the uses of each definition: the rule errs towards finding more."""
    uses: dict[str, Uses] = {}
    calls: dict[str, set[str]] = {}
    for module in modules:
        for name, node in module.functions().items():
            key = name.split(".")[0]  # a method counts as its class's
            direct, called = module.direct(node)
            uses.setdefault(key, Uses()).add(direct)
            calls.setdefault(key, set()).update(called)
    changed = True
    while changed:
        changed = False
        for key, called in calls.items():
            for other in sorted(called & uses.keys() - {key}):
                changed |= uses[key].add(uses[other])
    return uses


@functools.cache
def _conftest(path: Path) -> Module:
    return Module.of(_parse(path))


def _conftests(path: Path) -> list[Module]:
    """The conftest.py files that apply to the test module at `path`, nearest first."""
    found = []
    folder = path.parent
    while folder == TESTS or TESTS in folder.parents:
        if (folder / "conftest.py").exists():
            found.append(_conftest(folder / "conftest.py"))
        folder = folder.parent
    return found


def violations(tier: str, tree: ast.Module, conftests: Iterable[Module] = ()) -> list[str]:
    """What breaks `tier`'s rule in a test module, one line per test (or per module-wide import)."""
    found: list[str] = []
    module = Module.of(tree)
    module_marked = any(isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)
                        and _is_engine_mark(node.value) for node in tree.body)
    reach = _reach([module, *conftests])
    if tier == "unit" and module.imports.server:
        found.append(f"imports a server: {sorted(module.imports.server)}")
    if tier != "engine" and module.imports.engine:
        found.append(f"imports an engine helper: {sorted(module.imports.engine)}")
    for name, node in module.functions().items():
        if not name.startswith("test_"):
            continue
        uses = reach[name]
        marked = module_marked or any(_is_engine_mark(d) for d in node.decorator_list)
        if tier == "engine":
            if not marked:
                found.append(f"{name}: in tests/engine without pytest.mark.engine")
            if not uses.engine:
                found.append(f"{name}: in tests/engine but runs no engine (in-process tests go to tests/inprocess)")
            continue
        if marked:
            found.append(f"{name}: marked engine outside tests/engine")
        if uses.engine:
            found.append(f"{name}: runs the engine ({sorted(uses.engine)}) outside tests/engine")
        if tier == "unit" and uses.server:
            found.append(f"{name}: starts or uses a server ({sorted(uses.server)}) in tests/unit")
    return found


def test_every_test_file_is_in_a_tier_folder() -> None:
    stray = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py")
                   if p.relative_to(TESTS).parts[0] not in TIERS)
    assert stray == [], f"test files outside tests/{{{','.join(TIERS)}}}: {stray}"


@pytest.mark.parametrize("tier", TIERS)
def test_each_tier_holds_only_its_own_tests(tier: str) -> None:
    broken = {}
    for path in sorted((TESTS / tier).rglob("test_*.py")):
        found = violations(tier, _parse(path), _conftests(path))
        if found:
            broken[str(path.relative_to(TESTS))] = found
    assert broken == {}, "\n".join(f"{p}: {v}" for p, vs in broken.items() for v in vs)


ENGINE_TEST = '''
import pytest
from support.pulumi_cli import Stack

@pytest.mark.engine
def test_up(alaya_stack):
    alaya_stack().up()
'''
INPROCESS_TEST = '''
from support import inprocess

def helper(emulator):
    return inprocess.handler("alaya:TrainingJob", emulator)

def test_create(emulator):
    helper(emulator)
'''
SERVER_TEST = '''
import socket

def serve():
    return socket.create_server(("127.0.0.1", 0))

def test_answers():
    serve()
'''
HIDDEN_ENGINE = '''
from support import stacks

def make(emulator, tmp_path):
    return stacks.alaya_stack(emulator, tmp_path)

def test_up(emulator, tmp_path):
    make(emulator, tmp_path).up()
'''


@pytest.mark.parametrize(("tier", "source", "expected"), [
    ("unit", INPROCESS_TEST, "test_create: starts or uses a server (['fixture emulator'])"),
    ("unit", SERVER_TEST, "test_answers: starts or uses a server (['create_server'])"),
    ("unit", "from mltrain_emulator import EmulatorHandle\n", "imports a server"),
    ("inprocess", ENGINE_TEST, "test_up: marked engine outside tests/engine"),
    ("inprocess", HIDDEN_ENGINE, "test_up: runs the engine (['stacks.alaya_stack'])"),
    ("emulator", ENGINE_TEST, "test_up: runs the engine"),
    ("engine", INPROCESS_TEST, "test_create: in tests/engine without pytest.mark.engine"),
    ("engine", "import pytest\n@pytest.mark.engine\ndef test_x(emulator): pass\n", "test_x: in tests/engine but"),
])
def test_the_rule_fails_on_a_test_in_the_wrong_tier(tier: str, source: str, expected: str) -> None:
    found = violations(tier, ast.parse(source))
    assert any(line.startswith(expected) for line in found), found


@pytest.mark.parametrize(("tier", "source"), [
    ("engine", ENGINE_TEST), ("engine", "import pytest\npytestmark = pytest.mark.engine\n" + HIDDEN_ENGINE),
    ("inprocess", INPROCESS_TEST), ("inprocess", SERVER_TEST),
    ("unit", "from mltrain_emulator import defaults\ndef test_x():\n    assert defaults\n"),
])
def test_the_rule_accepts_a_test_in_its_tier(tier: str, source: str) -> None:
    assert violations(tier, ast.parse(source)) == []
