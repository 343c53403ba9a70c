"""The providers pickled into states by earlier releases load with the current code and serve calls, in
this process, without the engine (the engine-tier `test_upgrade.py` loads them through a refresh too).

The released states (the baselines of 0.1.0 and 0.2.0) name the program side's `DynamicProvider` classes
(`pulumi_mltrain.alaya._resources:_TrainingJobProvider`, ...) and the stack identity's provider
(`pulumi_mltrain.identity:StackIdentityProvider`, later `pulumi_mltrain.stack_identity:...`): those
paths must keep loading. The program side now pickles each kind's shared instance by name
(`pulumi_mltrain.alaya._resources:training_job`), which loads as the same provider.
"""

from __future__ import annotations

import base64
import importlib
import json
import pickletools
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dill
from pulumi.dynamic import ConfigureRequest, DiffResult, ReadResult, ResourceProvider
from pulumi.dynamic.config import Config
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_mltrain import alaya, modelarts, registry
from pulumi_mltrain.dynamic_provider import DynamicProvider
from pulumi_mltrain.stack_identity import StackIdentityProvider
from support.state import without_ciphertext

BASELINES = Path(__file__).parents[1] / "engine" / "upgrade" / "baselines"
RELEASED_PATHS = {
    "pulumi_mltrain.alaya._resources:_TrainingJobProvider",
    "pulumi_mltrain.alaya._resources:_StorageMountProvider",
    "pulumi_mltrain.modelarts._resources:_AlgorithmProvider",
    "pulumi_mltrain.modelarts._resources:_TrainingJobProvider",
    "pulumi_mltrain.identity:StackIdentityProvider",
    "pulumi_mltrain.stack_identity:StackIdentityProvider",
}


def _pickle_of(path: str) -> bytes:
    """What dill wrote (protocol 4) for an instance of the class at `path` with no state, byte for byte
    the form of the baselines' pickles (`pulumi_mltrain.identity:StackIdentityProvider`)."""
    module, _, name = path.partition(":")
    body = b""
    for text in (module, name):
        data = text.encode()
        body += b"\x8c" + bytes([len(data)]) + data + b"\x94"  # SHORT_BINUNICODE, MEMOIZE
    body += b"\x93\x94)\x81\x94."  # STACK_GLOBAL, MEMOIZE, EMPTY_TUPLE, NEWOBJ, MEMOIZE, STOP
    return b"\x80\x04\x95" + struct.pack("<Q", len(body)) + body  # PROTO 4, FRAME


def _records() -> Iterator[dict[str, Any]]:
    """Every resource of the baselines' dynamic states that holds a pickled provider."""
    for state in sorted(BASELINES.glob("*/dynamic-*.json")):
        for record in json.loads(state.read_text())["deployment"]["resources"]:
            if (record.get("inputs") or {}).get("__provider"):
                yield record


def _baseline_pickles() -> set[str]:
    return {record["inputs"]["__provider"] for record in _records()}


def _path(blob: str) -> str:
    """The class path a pickled provider names (the two strings before its STACK_GLOBAL)."""
    strings: list[str] = []
    for op, arg, _ in pickletools.genops(base64.b64decode(blob)):
        if op.name == "STACK_GLOBAL":
            return ":".join(strings[-2:])
        if isinstance(arg, str):
            strings.append(arg)
    raise AssertionError(f"not a class reference: {blob}")


def test_baseline_pickles_load() -> None:
    pickles = _baseline_pickles()
    assert len(pickles) >= 5, "the baselines hold the identity's and each resource's provider"
    for blob in pickles:
        provider = dill.loads(base64.b64decode(blob))
        assert isinstance(provider, ResourceProvider), provider
        assert provider.__dict__ == {}, "a class reference: nothing of an instance in the state"
    assert {_path(blob) for blob in pickles} == RELEASED_PATHS, "every released path, and only those"


def test_the_baselines_pickle_form_is_the_one_built_here() -> None:
    """A class's instance other than the shared one pickles byte for byte as the released states hold
    it; the program side pickles the shared instance, a reference by name of its own (63 B, not 77),
    that loads as that instance, of the same class."""
    pickles = _baseline_pickles()
    identity = _pickle_of("pulumi_mltrain.identity:StackIdentityProvider")
    assert base64.b64encode(identity).decode() in pickles
    for cls in (alaya.TrainingJob, alaya.StorageMount, modelarts.Algorithm, modelarts.TrainingJob):
        released = serialize_provider(cls._provider_class())
        assert released in pickles, cls
        written = cls._pickled_provider()
        assert written not in pickles and len(base64.b64decode(written)) < len(base64.b64decode(released)), cls
        shared = dill.loads(base64.b64decode(written))
        assert shared is cls._provider_class.shared() and type(shared) is cls._provider_class, cls
        assert _path(written) == f"{cls._provider_class.__module__}:{cls._provider_class.shared_as}", cls
    assert serialize_provider(StackIdentityProvider()) in pickles


def test_every_released_path_imports_the_class_the_program_side_pickles() -> None:
    """The program side moved to `program/`; the paths states name stay modules of their own (re-exports
    where the class moved), each giving the very class that the current code pickles."""
    from pulumi_mltrain import identity
    from pulumi_mltrain.program import stack_identity

    current = {cls._provider_class for cls in (alaya.TrainingJob, alaya.StorageMount, modelarts.Algorithm,
                                               modelarts.TrainingJob)} | {StackIdentityProvider}
    for path in RELEASED_PATHS:
        module, _, name = path.partition(":")
        assert getattr(importlib.import_module(module), name) in current, path
    assert identity.StackIdentityProvider is stack_identity.StackIdentityProvider is StackIdentityProvider
    assert _path(serialize_provider(stack_identity.StackIdentityProvider())) == \
        "pulumi_mltrain.stack_identity:StackIdentityProvider"
    for cls in (alaya.TrainingJob, alaya.StorageMount, modelarts.Algorithm, modelarts.TrainingJob):
        assert _path(serialize_provider(cls._provider_class())) in RELEASED_PATHS, cls
        assert type(dill.loads(base64.b64decode(cls._pickled_provider()))) is cls._provider_class, cls


def test_the_released_providers_serve_calls() -> None:
    """Each pickled provider of the baselines, unpickled as a provider process does, configured, and asked
    the diff a no-change preview makes (the stored outputs against the stored inputs): its handler is the
    registry's, and nothing changes. No server runs here, so a call that reached a platform would fail."""
    served: set[str] = set()
    for record in _records():
        blob = record["inputs"]["__provider"]
        provider = dill.loads(base64.b64decode(blob))
        inputs, outputs = without_ciphertext(record["inputs"]), without_ciphertext(record.get("outputs") or {})
        if isinstance(provider, StackIdentityProvider):
            found = provider.read(record["id"], outputs)
            assert isinstance(found, ReadResult) and found.outs == {"value": record["id"]}, record["urn"]
            served.add(_path(blob))
            continue
        assert isinstance(provider, DynamicProvider), record["urn"]
        entry = registry.resource(record["type"])
        assert entry is not None and provider.kind == entry.kind, (record["urn"], provider.kind)
        provider.configure(ConfigureRequest(Config({}, "upgrade")))
        assert provider.handler.calls is entry.calls()
        diff = provider.diff(record["id"], outputs, inputs)
        assert isinstance(diff, DiffResult), record["urn"]
        assert (diff.changes, diff.replaces, diff.delete_before_replace) == (False, [], True), record["urn"]
        served.add(_path(blob))
    assert served == RELEASED_PATHS


def test_the_provider_process_loads_none_of_the_program_side() -> None:
    """The handlers, the plugin and every released provider path, loaded as a provider process loads them:
    the program side (`program/`) stays out."""
    code = f"""
import importlib, sys
from pulumi_mltrain import registry
from pulumi_mltrain.plugin import provider
for r in registry.RESOURCES:
    r.handler()
for path in {sorted(RELEASED_PATHS)!r}:
    module, _, name = path.partition(":")
    getattr(importlib.import_module(module), name)
print(sorted(m for m in sys.modules if m.startswith("pulumi_mltrain.program.")))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]", done.stdout


def test_platform_modules_load_no_adapter() -> None:
    """A platform module, the registry's handlers and the plugin never load the dynamic adapter (nor
    the program side)."""
    code = """
import sys
from pulumi_mltrain import registry
from pulumi_mltrain.plugin import provider
for r in registry.RESOURCES:
    r.handler()
from pulumi_mltrain.alaya import training_job
from pulumi_mltrain.modelarts import algorithm
assert "pulumi_mltrain.dynamic_provider" not in sys.modules
assert "pulumi_mltrain.program.resource" not in sys.modules
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
