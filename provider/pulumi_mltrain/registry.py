"""The one list of what this package provides: its resources and its program-time functions.

The generators (`python -m tools.generate`: the program side, schema.json, docs), the native plugin
(type tokens, invokes) and the policy pack (both type tokens of each resource) all read it, so a
resource or function added here appears everywhere at once. Each resource names its platform calls
(`platform_calls.PlatformCalls`), which one `Handler` serves for both faces: the dynamic provider
(`dynamic_provider.DynamicProvider`, which names the resource by its kind) and the plugin. It imports no
platform code and neither adapter: a resource's calls and the function modules load on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .handler import Handler
    from .platform_calls import PlatformCalls

PACKAGE = "mltrain"
# The plugin's Python SDK (sdk/python, scripts/sdkgen.sh) and the code `pulumi import` writes import this
# package; it differs from `pulumi_mltrain` (the dynamic resources) so that both install side by side.
PYTHON_PACKAGE = "pulumi_mltrain_native"


@dataclass(frozen=True)
class Resource:
    """One resource: its family (the type token's module), name, platform calls and summary line."""

    family: str
    name: str
    calls_path: str  # "module:Class" of its PlatformCalls, which a Handler serves for both faces
    summary: str

    @property
    def kind(self) -> str:
        """`alaya:TrainingJob`: the name in messages and the tail of both type tokens."""
        return f"{self.family}:{self.name}"

    @property
    def dynamic_type(self) -> str:
        """The dynamic resource's type name (`dynamic/alaya:TrainingJob`), part of its URNs."""
        return f"dynamic/{self.kind}"

    @property
    def dynamic_token(self) -> str:
        return f"pulumi-python:{self.dynamic_type}"

    @property
    def token(self) -> str:
        """The native plugin's (and schema.json's) type token, `mltrain:alaya:TrainingJob`."""
        return f"{PACKAGE}:{self.kind}"

    def calls(self) -> type[PlatformCalls[Any, Any, Any]]:
        """Its declaration (spec, outputs, timeouts) and platform primitives (imports the platform)."""
        module, _, name = self.calls_path.partition(":")
        found: type[PlatformCalls[Any, Any, Any]] = getattr(importlib.import_module(module), name)
        return found

    def handler(self) -> Handler[Any, Any, Any]:
        """A new handler of the resource (not configured: it reads settings from the environment)."""
        from .handler import Handler

        return Handler(self.calls())


# The families: the type token's module, the program-side package (`pulumi_mltrain.<family>`, whose
# `__init__.py` is generated) and its docstring.
FAMILIES: dict[str, str] = {
    "alaya": """Alaya NeW resources: distributed training tasks and NAS storage mounts.

The classes are generated (`_resources.py`) and import neither pydantic nor the platform clients:
those load in the provider process. They are imported on first use, so a provider process that
loads `alaya.training_job` never loads the program side (and the generator runs without it).
""",
    "modelarts": """Huawei Cloud ModelArts v2 resources: algorithms and training jobs with OBS data channels.

    from pulumi_mltrain import modelarts
    flavor = modelarts.get_flavors("CPU")[0]["flavor_id"]      # runs at program time
    algo = modelarts.Algorithm("pytorch-cpu", code_dir="obs://bucket/code/",
                               boot_file="obs://bucket/code/train.py", engine_name="PyTorch",
                               engine_version="pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64")
    job = modelarts.TrainingJob("train", algorithm_id=algo.algorithm_id, flavor_id=flavor,
                                inputs=[modelarts.DataInput(name="data_url", obs_url="obs://bucket/data/")])

Credentials come from stack config (`mltrain:huaweiIamEndpoint`, `mltrain:modelartsEndpoint`,
`mltrain:huaweiProjectName`/`huaweiProjectId`, `mltrain:huaweiUser`, `mltrain:huaweiDomain`,
`mltrain:huaweiPassword` as a secret) or the MLTRAIN_* environment, never from resource arguments.
""",
}

# Each family's platform client ("module:Class", built from `config.Settings`), which the program-time
# functions call (`program_calls.program_call`); the handlers build their own (`<family>/base.py`).
CLIENTS: dict[str, str] = {
    "alaya": "pulumi_mltrain.alaya.client:AlayaClient",
    "modelarts": "pulumi_mltrain.modelarts.client:ModelArtsClient",
}


def client_type(family: str) -> Callable[[Any], Any]:
    """The client class of `family` (imports the platform's client on first use)."""
    path = CLIENTS.get(family)
    if path is None:
        raise KeyError(f"unknown family {family!r}; this provider has {', '.join(CLIENTS)}")
    module, _, name = path.partition(":")
    found: Callable[[Any], Any] = getattr(importlib.import_module(module), name)
    return found


# The type tokens (family:name) are part of every URN: never change them.
RESOURCES: tuple[Resource, ...] = (
    Resource("alaya", "TrainingJob", "pulumi_mltrain.alaya.training_job:TrainingJobCalls",
             "An Alaya NeW distributed training task."),
    Resource("alaya", "StorageMount", "pulumi_mltrain.alaya.storage_mount:StorageMountCalls",
             "A NAS directory for training tasks; its `mount` output plugs into a TrainingJob's storage mounts."),
    Resource("modelarts", "Algorithm", "pulumi_mltrain.modelarts.algorithm:AlgorithmCalls",
             "A Huawei Cloud ModelArts v2 algorithm: code, engine, parameters and the channels it expects."),
    Resource("modelarts", "TrainingJob", "pulumi_mltrain.modelarts.training_job:TrainingJobCalls",
             "A Huawei Cloud ModelArts v2 training job."),
)


def resource(token: str) -> Resource | None:
    """The resource of a type token in either form (`mltrain:...` or `pulumi-python:dynamic/...`)."""
    return next((r for r in RESOURCES if token in (r.token, r.dynamic_token)), None)


@dataclass(frozen=True)
class Function:
    """A program-time lookup (e.g. modelarts.get_flavors) described by pydantic models."""

    token: str
    description: str
    inputs: type[BaseModel]
    outputs: type[BaseModel]
    func: Callable[..., Any]
    items: str | None = None  # the function returns this field of `outputs` (an array) itself


# The modules that declare the functions (with `function(...)`), imported by `functions()`.
FUNCTION_MODULES = ("pulumi_mltrain.alaya.function_schema", "pulumi_mltrain.modelarts.function_schema")
_FUNCTIONS: dict[str, Function] = {}


def function(
    token: str, inputs: type[BaseModel], outputs: type[BaseModel], *, items: str | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a program-time function (schema.json, the plugin's invokes). `items`: the function
    returns that array field of `outputs` itself (a catalogue list), and schema.json says so."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        _FUNCTIONS[token] = Function(token, (func.__doc__ or "").strip(), inputs, outputs, func, items)
        return func

    return register


def functions() -> dict[str, Function]:
    """Token -> Function, every one declared (loads the function modules, and with them the clients)."""
    for module in FUNCTION_MODULES:
        importlib.import_module(module)
    return dict(sorted(_FUNCTIONS.items()))
