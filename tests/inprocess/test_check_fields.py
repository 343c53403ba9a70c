"""Bad input, field by field: for every input of every resource (read from the specs, so a new field
is covered as it appears), invalid values put into otherwise valid inputs come back from `check` as
failures that name the resource and a field, never as an exception. Both forms: the `check` of the
resource's handler from the registry (what the dynamic provider serves) and the plugin's, with credentials
for the emulator, so the catalogue checks run too.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pulumi.provider.experimental import provider as p
from pydantic import BaseModel

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain import registry
from pulumi_mltrain.config import Settings
from pulumi_mltrain.plugin import sdk
from pulumi_mltrain.plugin.provider import MltrainPlugin
from pulumi_mltrain.spec import nested_model, property_name, to_property_names
from support import inprocess

# Valid inputs of each resource (its required fields and what makes the cross-field rules hold).
ENGINE = {"engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}
VALID: dict[str, dict[str, Any]] = {
    "alaya:TrainingJob": {"product_code": "PRD-TRAIN-2", "worker_count": 2, "training_framework": "pytorch",
                          "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
                          "start_command": "python3 train.py", "timeout_hours": 12,
                          "storage_mounts": [{"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
                                              "file_directory": "datasets", "mount_path": "/root/nas/datasets"}]},
    "alaya:StorageMount": {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
                           "file_directory": "datasets", "mount_path": "/root/nas/datasets"},
    "modelarts:Algorithm": {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py", **ENGINE,
                            "inputs": [{"name": "data_url"}], "outputs": [{"name": "train_url"}]},
    "modelarts:TrainingJob": {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/",
                              "boot_file": "obs://b/code/train.py", **ENGINE,
                              "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
                              "outputs": [{"name": "train_url", "obs_url": "obs://b/out/"}]},
}
CALLS = {r.kind: r.calls() for r in registry.RESOURCES}
UNKNOWN_KEY = "bogus_field"

# Values no field takes as they are, or takes only by luck: wrong types, out-of-range numbers,
# malformed strings (relative and escaping paths, bad OBS URLs), nested garbage.
MALFORMED = ["", " ", "mnt/datasets", "../etc/passwd", "/root/../etc", "obs://", "s3://b/x/", "x" * 5000, "\x00"]
FIXED: list[Any] = [*MALFORMED, True, -1, 2**63, 0.5, math.nan, -math.inf, {}, [None], [{UNKNOWN_KEY: 1}],
                    {UNKNOWN_KEY: {"a": [[1]]}}]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
                    st.sampled_from(MALFORMED), st.text(max_size=20))
garbage = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)


def nested(kind: str, name: str) -> type[BaseModel] | None:
    """The model a field holds (one or a list of them), if any."""

    def find(annotation: Any) -> type[BaseModel] | None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return annotation
        return next((m for m in map(find, getattr(annotation, "__args__", ()) or ()) if m is not None), None)

    return find(CALLS[kind].spec_type.model_fields[name].annotation)


def bad_values(kind: str, name: str) -> st.SearchStrategy[Any]:
    """Garbage, and for a field of nested objects also objects with garbage in one of their keys."""
    model = nested(kind, name)
    if model is None:
        return garbage
    keys = st.sampled_from([*model.model_fields, UNKNOWN_KEY])
    item = st.builds(lambda k, v: {k: v}, keys, garbage)
    base = VALID[kind].get(name)
    if isinstance(base, list) and base:
        item = st.builds(lambda k, v: {**base[0], k: v}, keys, garbage)
    return st.one_of(garbage, item, st.lists(item, min_size=1, max_size=2))


def credentials(emulator: EmulatorHandle) -> dict[str, str]:
    return {"mltrain:alayaEndpoint": emulator.url, "mltrain:alayaApiKey": emulator.alaya_api_key,
            "mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
            "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiProjectId": emulator.project_id,
            "mltrain:huaweiUser": emulator.iam_user, "mltrain:huaweiDomain": emulator.iam_domain,
            "mltrain:huaweiPassword": emulator.iam_password}


Check = Callable[[dict[str, Any]], list[tuple[str, str]]]


@pytest.fixture(scope="module")
def plugin_loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def handler_check(kind: str, emulator: EmulatorHandle) -> Check:
    handler = inprocess.serving(kind, Settings.load(credentials(emulator), env={}))

    def check(props: dict[str, Any]) -> list[tuple[str, str]]:
        # With the key the dynamic face adds to every resource's inputs (its pickled provider).
        return inprocess.failures(handler, {**props, "__provider": "blob"})

    return check


def all_fields(model: type[BaseModel]) -> set[str]:
    """The field names of `model` and of the models nested in it."""
    found = set(model.model_fields)
    for info in model.model_fields.values():
        inner = nested_model(info.annotation)
        if inner is not None:
            found |= all_fields(inner)
    return found


def python_path(path: str, names: dict[str, str]) -> str:
    """A property path in schema names read back in Python names, segment by segment."""
    parts = []
    for part in path.split("."):
        name, bracket, rest = part.partition("[")
        parts.append(names.get(name, name) + bracket + rest)
    return ".".join(parts)


def keys_of(value: Any) -> set[str]:
    """Every key of every object in `value`, nested ones too."""
    if isinstance(value, dict):
        return {str(k) for k in value} | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def plugin_check(kind: str, emulator: EmulatorHandle, loop: asyncio.AbstractEventLoop) -> Check:
    plugin = MltrainPlugin()
    variables = {key.replace("mltrain:", "mltrain:config:"): value for key, value in credentials(emulator).items()}
    loop.run_until_complete(plugin.configure(p.ConfigureRequest(variables, {}, True, False)))
    urn = f"urn:pulumi:dev::proj::mltrain:{kind}::x"

    model = CALLS[kind].spec_type
    names = {property_name(f): f for f in all_fields(model)}
    snake = {f for f in names.values() if property_name(f) != f}  # Python names the schema spells otherwise

    def check(props: dict[str, Any]) -> list[tuple[str, str]]:
        """The props sent as every SDK of the plugin sends them (schema.json's camelCase names, nested
        too); the failures' property paths, which name the properties so, read back as Python names."""
        wire = to_property_names(props, model)
        request = p.CheckRequest(urn, {}, sdk.wrap(wire), b"")
        result = loop.run_until_complete(plugin.check(request))
        failures = [(f.property, f.reason) for f in result.failures or []]
        for prop, _ in failures:
            # Field segments only: a map's keys (`environments.0_a`) and an unknown key are the user's
            # own data, named as sent (an unknown `pool_id` inside `tags` is not the field `poolId`).
            segments = {part.partition("[")[0] for part in prop.split(".")}
            assert not segments & snake - keys_of(wire), f"not a schema name: {prop}"
        return [(python_path(prop, names), reason) for prop, reason in failures]

    return check


@pytest.fixture(params=["handler", "plugin"])
def checks(request: pytest.FixtureRequest, emulator: EmulatorHandle,
           plugin_loop: asyncio.AbstractEventLoop) -> Callable[[str], Check]:
    if request.param == "handler":
        return lambda kind: handler_check(kind, emulator)
    return lambda kind: plugin_check(kind, emulator, plugin_loop)


def assert_names_fields(kind: str, failures: list[tuple[str, str]], given: Any = None) -> None:
    """Every failure names an input of the resource, in its property and (after the resource) its reason."""
    fields = {*CALLS[kind].spec_type.model_fields, UNKNOWN_KEY}
    label = CALLS[kind].kind
    for prop, reason in failures:
        root = prop.split(".")[0].split("[")[0]
        assert root in fields, (given, prop, reason)
        assert reason.startswith(f"{label}: {prop} "), (given, prop, reason)


@pytest.mark.parametrize("kind", VALID)
def test_the_valid_inputs_pass_and_an_unknown_key_is_named(kind: str, checks: Callable[[str], Check]) -> None:
    check = checks(kind)
    assert check(VALID[kind]) == [], "the valid inputs of this test must stay valid"
    failures = check({**VALID[kind], UNKNOWN_KEY: 1})
    assert [f for f, _ in failures] == [UNKNOWN_KEY]
    assert_names_fields(kind, failures)


def fuzz(kind: str, name: str, check: Check) -> None:
    """Random bad values of one field (a few: every field of every resource gets its turn)."""

    @settings(max_examples=4, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(bad_values(kind, name))
    def run(value: Any) -> None:
        assert_names_fields(kind, check({**VALID[kind], name: value}), (name, value))

    run()


@pytest.mark.parametrize("kind", VALID)
def test_bad_values_of_every_field_are_failures_naming_it(kind: str, checks: Callable[[str], Check]) -> None:
    check = checks(kind)
    for name in CALLS[kind].spec_type.model_fields:
        for value in FIXED:
            assert_names_fields(kind, check({**VALID[kind], name: value}), (name, value))
        fuzz(kind, name, check)


def test_a_relative_mount_path_is_a_failure_of_mount_path(checks: Callable[[str], Check]) -> None:
    failures = checks("alaya:StorageMount")({**VALID["alaya:StorageMount"], "mount_path": "mnt/datasets"})
    assert failures == [("mount_path", "StorageMount: mount_path must be an absolute path (start with /)")]
