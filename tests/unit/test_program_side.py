"""The program side: generated from the specs, import-light, typed, and pickled as a class reference."""

from __future__ import annotations

import ast
import base64
import inspect
import subprocess
import sys
from pathlib import Path
from typing import Any

import dill
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_mltrain import alaya, modelarts, registry
from pulumi_mltrain.alaya import _resources as alaya_providers
from pulumi_mltrain.dynamic_provider import DynamicProvider
from tools import codegen
from tools.generate import COMMAND

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = f"run `{COMMAND}` and commit the result"


def test_generated_modules_are_current() -> None:
    for path, text in codegen.outputs():
        assert (ROOT / path).read_text() == text, f"{path} is stale: {REGENERATE}"


def test_programs_import_neither_pydantic_nor_httpx_nor_tenacity() -> None:
    """Nor the handler, the settings, the registry or a platform: the pickled providers load those on
    their first call, in the provider process."""
    code = ("import sys; import pulumi_mltrain.alaya, pulumi_mltrain.modelarts; "
            "from pulumi_mltrain.alaya import StorageMount, TrainingJob; "
            "from pulumi_mltrain.modelarts import Algorithm, ObsChannel, TrainingJob as J; "
            "print(sorted(m for m in ('pydantic','httpx','tenacity','pulumi_mltrain.handler','pulumi_mltrain.config',"
            "'pulumi_mltrain.registry','pulumi_mltrain.alaya.training_job','pulumi_mltrain.modelarts.wire.client') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == "[]", out.stderr


def test_signatures_are_explicit_and_name_is_optional() -> None:
    params = inspect.signature(alaya.TrainingJob.__init__).parameters
    assert params["product_code"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["product_code"].default is inspect.Parameter.empty
    assert params["worker_count"].default is inspect.Parameter.empty
    for cls in (alaya.TrainingJob, modelarts.TrainingJob, modelarts.Algorithm):
        assert inspect.signature(cls.__init__).parameters["name"].default is None, cls
    doc = " ".join((alaya.TrainingJob.__init__.__doc__ or "").split())  # as read, whatever the wrapping
    assert "worker_count: Number of nodes" in doc and "Required." in doc
    assert "Allowed: 'created', 'running'" in doc
    assert "Changing it replaces the resource." in doc


def test_field_table_matches_the_specs() -> None:
    for decl in registry.RESOURCES:
        handler = decl.calls()
        cls = getattr({"alaya": alaya, "modelarts": modelarts}[decl.family], decl.name)
        assert cls._inputs == tuple(handler.spec_type.model_fields)
        assert cls._outputs == tuple(handler.output_type.model_fields)
        assert cls._id_fields == tuple(handler.output_type.id_fields())
        assert issubclass(cls._provider_class, DynamicProvider) and cls._provider_class.kind == decl.kind
        assert cls._resource_type_name == f"dynamic/{decl.family}:{decl.name}"  # URNs


def test_helpers_build_plain_dicts_that_accept_inputs() -> None:
    import pulumi

    url = pulumi.Output.from_input("obs://bucket/data/")
    channel = modelarts.ObsChannel(name="data_url", obs_url=url)
    assert channel == {"name": "data_url", "obs_url": url}


def test_the_pickled_provider_is_a_reference_that_loads_on_first_use() -> None:
    text = alaya.TrainingJob._pickled_provider()
    raw = base64.b64decode(text)
    assert b"pulumi_mltrain.alaya._resources" in raw and b"training_job" in raw and b"pydantic" not in raw
    assert len(raw) == 63, "the pickled provider should be a bare reference to the shared instance"
    assert len(text) == 84, "every resource's state holds this twice"
    loaded = dill.loads(raw)
    assert isinstance(loaded, DynamicProvider) and loaded is alaya_providers.training_job
    entry = registry.resource("mltrain:alaya:TrainingJob")
    assert entry is not None and loaded.handler.calls is entry.calls()
    assert serialize_provider(loaded) == text  # loading the handler never changes the state


def _annotations(cls: type) -> dict[str, str]:
    """The `if TYPE_CHECKING:` attribute annotations of a generated class, as source text."""
    tree = ast.parse(inspect.getsource(cls))
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = ast.unparse(node.annotation)
    return out


def test_every_attribute_typed_as_never_none_is_declared() -> None:
    for decl in codegen.RESOURCES:
        cls = getattr({"alaya": alaya, "modelarts": modelarts}[decl.family], decl.name)
        required = {name for name, p in inspect.signature(cls.__init__).parameters.items()
                    if p.default is inspect.Parameter.empty and p.kind is inspect.Parameter.KEYWORD_ONLY}
        annotated = _annotations(cls)
        assert annotated, cls
        for attr, text in annotated.items():
            if "None" in text:
                continue  # may read as None: given or not
            assert attr in (*cls._declared(), *cls._id_fields, *required), (decl.name, attr, text)


def test_constant_defaults_read_without_being_registered() -> None:
    """An input left out with a constant default reads as that default (known, in a preview too) and is
    not registered; with ignore_changes, which may keep a stored value, every default is registered."""
    import pulumi

    class Mocks(pulumi.runtime.Mocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
            return f"{args.name}-id", dict(args.inputs)

        def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
            return {}, None

    pulumi.runtime.set_mocks(Mocks(), preview=True)
    seen: dict[str, Any] = {}

    def program() -> pulumi.Output[Any]:
        common = {"product_code": "PRD-TRAIN-2", "worker_count": 1, "image": "img", "max_retry_count": 2}
        plain = alaya.TrainingJob("plain", **common)
        kept = alaya.TrainingJob("kept", **common, opts=pulumi.ResourceOptions(ignore_changes=["priority"]))
        for name, job in (("plain", plain), ("kept", kept)):  # the SDK sets an Output per registered property
            seen[name] = {k for k, v in vars(job).items() if isinstance(v, pulumi.Output)}
        return pulumi.Output.all(plain.priority, plain.wait_for, plain.env, plain.description
                                 ).apply(lambda v: seen.update(values=v))

    run: Any = pulumi.runtime.test
    run(program)()
    assert seen["values"] == [3, "created", {}, None]
    fixed = alaya.TrainingJob._fixed_defaults()
    assert "priority" in fixed and "enable_auto_retry" not in fixed, "a default another input implies is not fixed"
    assert "enable_auto_retry" in seen["plain"] and not fixed & seen["plain"]
    assert fixed <= seen["kept"]
