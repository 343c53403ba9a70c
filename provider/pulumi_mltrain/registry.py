"""The one list of what this package provides: its resources and its program-time functions.

The generators (`python -m tools.generate`: the program side, schema.json, docs), the native plugin
(type tokens, invokes) and the policy pack (both type tokens of each resource) all read it, so a
resource or function added here appears everywhere at once. Each resource names its platform calls
(`platform_calls.PlatformCalls`), which one `Handler` serves for both faces: the dynamic provider
(`dynamic_provider.DynamicProvider`, which names the resource by its kind) and the plugin. It imports no
platform code and neither adapter: a resource's calls and the function modules load on first use.

Each resource also declares, once, the facts that the code reading many platforms needs of it
(`RunFacts` of a training job, its image and environment inputs, where its owner mark lives): the
commands `mltrain-plan` and `mltrain-runs`, the policy pack, the docs generator and the test support
read them here instead of naming a platform. They are plain values (no platform module is imported);
tests/unit/test_platform_facts.py checks them against each platform's specs and contract.
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
class RunFacts:
    """What a training job's runs are read by, as the names of its inputs and outputs (the spec's field
    names) and the platform's states: `mltrain-plan` and the policy `new-run-budget` count runs with
    them, `mltrain-runs held` reads a held run's state, the policy pack bounds timeouts, nodes and GPUs."""

    job_id: str  # the output that holds the platform's job ID
    state: str  # the output that holds the platform's state of the job at the last create or refresh
    live: frozenset[str]  # the states in which the job runs or is about to (a stop or delete ends a run)
    timeout: str  # the input of the most hours a run takes before the platform stops it
    nodes: str  # the input of the number of nodes
    node_type: str  # the input that fixes a node's GPUs (a product, a flavor)
    timeout_switch: str | None = None  # a switch `timeout` applies only with (set alone, `timeout` turns it on)
    create_timeout_bounds: bool = False  # without `timeout`, a create timeout with wait_for="completed" bounds a run
    price: str | None = None  # the output of its price per hour; None: the platform gives no price


@dataclass(frozen=True)
class Resource:
    """One resource: its family (the type token's module), name, platform calls and summary line, and
    the facts read by the code that serves every platform alike."""

    family: str
    name: str
    calls_path: str  # "module:Class" of its PlatformCalls, which a Handler serves for both faces
    summary: str
    run: RunFacts | None = None  # a training job: what its runs are read by
    image: str | None = None  # the input naming a container image (the policy allowed-image-registries)
    env: str | None = None  # the input of environment variables (the policy no-plaintext-secrets)
    # What marks an object as this resource's, for its docs page (docs/resources/); `{NAME}` is a name of
    # the family's wire/contract.py (`ownership_text`).
    ownership: str = ""

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

    def ownership_text(self) -> str:
        """`ownership` with the names of the family's contract filled in (imports `<family>/wire/contract.py`)."""
        contract = importlib.import_module(f"{__package__}.{self.family}.wire.contract")
        return self.ownership.format_map(vars(contract))

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

The classes are generated (`program/alaya_resources.py`) and import neither pydantic nor the platform clients:
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
# functions call (`program.calls.program_call`); the handlers build theirs through `Context.client`.
CLIENTS: dict[str, str] = {
    "alaya": "pulumi_mltrain.alaya.wire.client:AlayaClient",
    "modelarts": "pulumi_mltrain.modelarts.wire.client:ModelArtsClient",
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
ALAYA_JOB = Resource(
    "alaya", "TrainingJob", "pulumi_mltrain.alaya.training_job:TrainingJobCalls",
    "An Alaya NeW distributed training task.",
    run=RunFacts(job_id="training_task_id", state="status",
                 live=frozenset({"QUEUED", "STARTING", "RUNNING", "PAUSED"}),  # alaya/wire/contract.py LIVE
                 timeout="timeout_hours", timeout_switch="enable_timeout_cancel", price="cost_per_hour",
                 nodes="worker_count", node_type="product_code"),
    image="image", env="env",
    ownership="the environment variable `{OWNER_ENV}` of the task (stack identity and URN; "
    "the create body has no labels or tags). Alaya NeW does not publish its task detail: the provider "
    "assumes it returns `env` as sent. The variable is hidden from diffs and refused as a user-declared "
    "variable (`alaya/wire/contract.py`, `OWNER_ENV`).")
ALAYA_MOUNT = Resource(
    "alaya", "StorageMount", "pulumi_mltrain.alaya.storage_mount:StorageMountCalls",
    "A NAS directory for training tasks; its `mount` output plugs into a TrainingJob's storage mounts.",
    ownership="none needed: a mount is no platform object. It checks that the storage exists "
    "and is Active; deleting it removes nothing remote.")
MODELARTS_ALGORITHM = Resource(
    "modelarts", "Algorithm", "pulumi_mltrain.modelarts.algorithm:AlgorithmCalls",
    "A Huawei Cloud ModelArts v2 algorithm: code, engine, parameters and the channels it expects.",
    image="image_url",
    ownership="the algorithm's `metadata.tags` `{OWNER_STACK}` and `{OWNER_URN}`; "
    "updates keep them and adoption adds them (`modelarts/wire/contract.py`).")
MODELARTS_JOB = Resource(
    "modelarts", "TrainingJob", "pulumi_mltrain.modelarts.training_job:TrainingJobCalls",
    "A Huawei Cloud ModelArts v2 training job.",
    run=RunFacts(job_id="job_id", state="phase",
                 live=frozenset({"Creating", "Pending", "Running"}),  # modelarts/wire/contract.py TERMINABLE
                 timeout="auto_stop_hours", create_timeout_bounds=True,
                 nodes="node_count", node_type="flavor_id"),
    image="image_url", env="environments",
    ownership="the job's tags `{OWNER_STACK}` and `{OWNER_URN}`, written through the job "
    "tags API right after the create (a job whose tags cannot be written is deleted). ModelArts' job detail "
    "and search return no `metadata.annotations` (Huawei's Terraform provider documents this), so no "
    "annotation carries it; jobs made by 0.1.x kept it there and stay this stack's through the state that "
    "records them (`modelarts/wire/contract.py`).")
RESOURCES: tuple[Resource, ...] = (ALAYA_JOB, ALAYA_MOUNT, MODELARTS_ALGORITHM, MODELARTS_JOB)
# The training jobs: the resources whose objects are runs.
TRAINING_JOBS: tuple[Resource, ...] = tuple(r for r in RESOURCES if r.run is not None)


def resource(token: str) -> Resource | None:
    """The resource of a type token in either form (`mltrain:...` or `pulumi-python:dynamic/...`)."""
    return next((r for r in RESOURCES if token in (r.token, r.dynamic_token)), None)


def of_kind(kind: str) -> Resource | None:
    """The resource of a kind (`alaya:TrainingJob`, the tail of both type tokens)."""
    return next((r for r in RESOURCES if r.kind == kind), None)


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
