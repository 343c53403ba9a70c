"""The providers pickled into states by earlier releases load with the current code, in this process,
without the engine (the engine-tier `test_upgrade.py` loads them through a refresh too).

Two forms name a provider: the states of the baselines hold the program side's `LazyProvider`
classes (`pulumi_mltrain.alaya._resources:_TrainingJobProvider`) and the stack identity's provider;
the dynamic provider classes of 0.1 (`pulumi_mltrain.alaya.training_job:TrainingJobProvider`, the
registry's former targets) must load too, although the platform modules no longer define them: each
module resolves that name on first use, and its dynamic provider serves the registry's platform calls.
"""

from __future__ import annotations

import base64
import json
import struct
import subprocess
import sys
from pathlib import Path

import dill
import pytest
from pulumi.dynamic import ResourceProvider

from pulumi_mltrain import registry
from pulumi_mltrain.dynamic_provider import MltrainProvider

BASELINES = Path(__file__).parents[1] / "engine" / "upgrade" / "baselines"
OLD_PATHS = ("pulumi_mltrain.alaya.training_job:TrainingJobProvider",
             "pulumi_mltrain.alaya.storage_mount:StorageMountProvider",
             "pulumi_mltrain.modelarts.algorithm:AlgorithmProvider",
             "pulumi_mltrain.modelarts.training_job:TrainingJobProvider")


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


def _baseline_pickles() -> set[str]:
    found: set[str] = set()
    for state in BASELINES.glob("*/dynamic-*.json"):
        for record in json.loads(state.read_text())["deployment"]["resources"]:
            blob = (record.get("inputs") or {}).get("__provider")
            if blob:
                found.add(blob)
    return found


def test_baseline_pickles_load() -> None:
    pickles = _baseline_pickles()
    assert len(pickles) >= 5, "the baselines hold the identity's and each resource's provider"
    for blob in pickles:
        provider = dill.loads(base64.b64decode(blob))
        assert isinstance(provider, ResourceProvider), provider
        assert type(provider).__module__.startswith("pulumi_mltrain."), type(provider)


def test_the_baselines_pickle_form_is_the_one_built_here() -> None:
    identity = _pickle_of("pulumi_mltrain.identity:StackIdentityProvider")
    assert base64.b64encode(identity).decode() in _baseline_pickles()


@pytest.mark.parametrize("path", OLD_PATHS)
def test_old_provider_class_paths_load(path: str) -> None:
    provider = dill.loads(_pickle_of(path))
    entry = next(r for r in registry.RESOURCES if r.provider_path == path)
    assert isinstance(provider, MltrainProvider)
    assert type(provider) is entry.provider(), "one class per resource type, whichever path names it"
    assert provider.handler.calls is entry.calls()
    # and it pickles again under the same path
    assert dill.loads(dill.dumps(provider)).__class__ is type(provider)
    assert f"{type(provider).__module__}:{type(provider).__qualname__}" == path


def test_platform_modules_load_no_adapter() -> None:
    """A platform module, the registry's handlers and the plugin never load the dynamic adapter (nor
    the program side); the old class path loads it on first use."""
    code = """
import sys
from pulumi_mltrain import registry
from pulumi_mltrain.plugin import provider
for r in registry.RESOURCES:
    r.handler()
assert "pulumi_mltrain.dynamic_provider" not in sys.modules
assert "pulumi_mltrain.program_resource" not in sys.modules
from pulumi_mltrain.alaya import training_job
assert "pulumi_mltrain.dynamic_provider" not in sys.modules
training_job.TrainingJobProvider
assert "pulumi_mltrain.dynamic_provider" in sys.modules
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
