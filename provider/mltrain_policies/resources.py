"""How the pack reads our resources: which types are ours, property access, and per-job facts.

Every form of a resource is judged alike: the dynamic type `pulumi-python:dynamic/alaya:TrainingJob`
(`pulumi_mltrain`) and the plugin's `mltrain:alaya:TrainingJob` (the generated SDK, Pulumi YAML, any
language). `ours()` recognises both from the package's registry (`pulumi_mltrain.registry`, which
schema.json is built from) and returns the *kind* (`alaya:TrainingJob`) that names the resource in
every message, with the registry's entry: what a rule reads of a platform's job (its timeout, node
count, image and environment inputs) are the entry's facts, so the rules that hold on every platform
name none.

The dynamic form delivers the spec's field names (`worker_count`); the plugin delivers schema.json's
camelCase names (`workerCount`, `spec.property_name` of the field), and states written by the plugin
before 0.2 the field names. Nested objects also accept the platform's spelling where their model does
(`NasMount`: `mountPath`, `onlyRead`), so `Fields` reads every property by its field name, trying the
schema name and the other spellings the spec model accepts; messages always use the field name.

Policies see a resource's *checked inputs* (the provider's `check` result: python field names,
defaults filled). Two cases differ and both are handled here:

* During a preview in which some input is unknown (e.g. `storage_mounts=[mount.mount]` before the
  StorageMount exists), the provider cannot validate the whole spec and returns the program's
  inputs as given: defaults are absent and implied switches (`timeout_hours` turns
  `enable_timeout_cancel` on) are not applied yet.
* Stack policies get the resources' *outputs*; during a preview of a create the engine passes the
  program's inputs instead. Numbers arrive as floats (`2.0`).

Property access goes through `get()`: a missing key is None; an unknown value raises the SDK's
`UnknownValueError`, which pulumi-policy turns into an advisory "can't run policy during preview"
note. Never iterate all props: the dynamic provider's `__provider` blob is large (the engine
drops `__`-prefixed keys before analysis today, but nothing here relies on it).
"""

from __future__ import annotations

import functools
import posixpath
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pulumi_policy.proxy import UnknownValueError
from pydantic import AliasChoices, BaseModel

from pulumi_mltrain import registry as package
from pulumi_mltrain.registry import Resource, RunFacts

# The resources whose objects are runs, and those with an image input.
TRAINING_JOBS = package.TRAINING_JOBS
WITH_IMAGE = tuple(res for res in package.RESOURCES if res.image is not None)

# The two forms a resource is declared in.
DYNAMIC = "dynamic"
PLUGIN = "plugin"


@dataclass(frozen=True)
class Form:
    """What a type token stands for: the kind, the form that declared it, the kind's spec model and its
    registry entry."""

    kind: str
    form: str
    model: type[BaseModel]
    entry: Resource


@functools.cache
def registry() -> dict[str, Form]:
    """Type token -> Form, for both tokens of every resource of the package's registry."""
    found: dict[str, Form] = {}
    for resource in package.RESOURCES:
        model = resource.calls().spec_type
        found[resource.dynamic_token] = Form(resource.kind, DYNAMIC, model, resource)
        found[resource.token] = Form(resource.kind, PLUGIN, model, resource)
    return found


def token(kind: str, form: str) -> str:
    """The type token of `kind` in `form` (DYNAMIC or PLUGIN)."""
    for found, entry in registry().items():
        if entry.kind == kind and entry.form == form:
            return found
    raise KeyError(f"no {form} type for {kind}")


def kind(resource_type: str) -> str:
    """`alaya:TrainingJob` for either token of it; other types as they are."""
    form = registry().get(resource_type)
    return form.kind if form else resource_type


def label(resource_type: str, name: str) -> str:
    return f"{kind(resource_type)} '{name}'"


@dataclass(frozen=True)
class Ours:
    """One of our resources as the policies judge it, whichever form declared it."""

    kind: str
    form: str
    name: str
    props: Fields
    entry: Resource
    custom_create: float | None = None  # seconds of the engine's customTimeouts create, when set

    @property
    def label(self) -> str:
        return f"{self.kind} '{self.name}'"

    @property
    def run(self) -> RunFacts:
        """The facts of a training job (`entry.run`); only the rules of training jobs ask."""
        if self.entry.run is None:
            raise TypeError(f"{self.kind} is no training job")
        return self.entry.run


def ours(resource_type: str, name: str, props: Mapping[str, Any], opts: Any = None) -> Ours | None:
    """The resource as the policies read it, or None when it is not one of ours."""
    form = registry().get(resource_type)
    if form is None:
        return None
    timeouts = getattr(opts, "custom_timeouts", None)
    create = number(getattr(timeouts, "create_seconds", None))
    return Ours(form.kind, form.form, name, Fields(props, form.model), form.entry, create or None)


# ----- property names ---------------------------------------------------------------------------

@functools.cache
def spellings(model: type[BaseModel], key: str) -> tuple[str, ...]:
    """The names a field of `model` may arrive under: its own, its schema name (the plugin's), then the
    aliases the model accepts. Outputs (not fields of the spec) by their own and their schema name."""
    from pulumi_mltrain.spec import property_name

    names = [key, property_name(key)]
    info = model.model_fields.get(key)
    if info is None:
        return tuple(dict.fromkeys(names))
    if model.model_config.get("validate_by_alias", True):
        choices: list[Any] = [info.alias]
        if isinstance(info.validation_alias, AliasChoices):
            choices += info.validation_alias.choices
        else:
            choices.append(info.validation_alias)
        names += [c for c in choices if isinstance(c, str) and "." not in c]  # a dotted alias nests
    return tuple(dict.fromkeys(names))


@functools.cache
def nested(model: type[BaseModel], key: str) -> type[BaseModel] | None:
    """The model of a field's objects (`NasMount` of `storage_mounts`), if it holds any."""
    info = model.model_fields.get(key)
    return _model_in(info.annotation) if info is not None else None


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (dict, Mapping):  # maps of plain values (env)
        return None
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _wrap(value: Any, model: type[BaseModel] | None) -> Any:
    if model is None:
        return value
    if isinstance(value, Mapping):
        return Fields(value, model)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return FieldsList(value, model)
    return value


class Fields(Mapping[str, Any]):
    """Properties read by the spec's field names, whichever spelling the model accepts arrived."""

    def __init__(self, raw: Mapping[str, Any], model: type[BaseModel]) -> None:
        self.raw, self.model = raw, model

    def __getitem__(self, key: str) -> Any:
        for spelling in spellings(self.model, key):
            try:
                value = self.raw[spelling]
            except KeyError:
                continue
            return _wrap(value, nested(self.model, key))
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)


class FieldsList(Sequence[Any]):
    """A list of nested objects, each read as `Fields` (elements are fetched one at a time)."""

    def __init__(self, raw: Sequence[Any], model: type[BaseModel]) -> None:
        self.raw, self.model = raw, model

    @typing.overload
    def __getitem__(self, index: int) -> Any: ...
    @typing.overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return _wrap(self.raw[index], self.model)

    def __len__(self) -> int:
        return len(self.raw)


def get(props: Mapping[str, Any], key: str) -> Any:
    """The value of `key`, None when absent; raises UnknownValueError when unknown at preview."""
    try:
        return props[key]
    except KeyError:
        return None


def number(value: Any) -> float | None:
    """A numeric input as int/float (RPC delivers 2.0 for 2); None for absent or non-numbers."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return int(value) if float(value).is_integer() else float(value)
    if isinstance(value, str):
        try:
            return number(float(value))
        except ValueError:
            return None
    return None


def fmt(value: float | None) -> str:
    if value is None:
        return "unset"
    return f"{value:g}" if isinstance(value, float) else str(value)


def items(value: Any) -> Iterator[tuple[int, Any]]:
    """(index, element) of a list input, skipping elements unknown at preview."""
    if value is None or isinstance(value, str | bytes) or not hasattr(value, "__len__"):
        return
    for i in range(len(value)):
        try:
            yield i, value[i]
        except UnknownValueError:
            continue


def entries(value: Any) -> Iterator[tuple[str, Any]]:
    """(key, value) of a map input, skipping values unknown at preview."""
    if not isinstance(value, Mapping):
        return
    for key in value:
        try:
            yield str(key), value[key]
        except UnknownValueError:
            continue


def truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


# ----- timeouts ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Timeout:
    """The time limit a job runs under: hours (None: unbounded) and where it comes from."""

    hours: float | None
    source: str
    detail: str = ""


def job_timeout(props: Mapping[str, Any], run: RunFacts, custom_create: float | None = None) -> Timeout:
    """The job's `run.timeout` input. Where it has a switch (`run.timeout_switch`, Alaya NeW's
    `enable_timeout_cancel`), the timeout holds only with the switch on, and set alone it turns it on.
    Where the platform allows it (`run.create_timeout_bounds`, ModelArts), a job without a timeout is
    bounded by a custom create timeout (`timeouts.create` seconds, filled from `opts.custom_timeouts` too)
    *with* `wait_for="completed"`: only then does the create wait for the training to end within that
    time. With the default `wait_for="accepted"` a custom timeout only bounds the wait for the job to be
    accepted, not the job, so it does not count. `custom_create`: the engine's customTimeouts create,
    which the plugin takes as the deadline when `timeouts.create` is unset (the dynamic form's program
    copies it into `timeouts` itself)."""
    hours = number(get(props, run.timeout))
    switch = run.timeout_switch
    if switch is not None:
        enabled = get(props, switch)
        on = truthy(enabled) if enabled is not None else hours is not None  # the timeout alone implies it
        if not on:
            return Timeout(None, switch, f"{switch} is off")
        if hours is None:
            return Timeout(None, run.timeout, f"{switch} is on but {run.timeout} is not set")
        return Timeout(hours, run.timeout)
    if hours is not None:
        return Timeout(hours, run.timeout)
    if not run.create_timeout_bounds:
        return Timeout(None, run.timeout, f"{run.timeout} is not set")
    timeouts = get(props, "timeouts")
    seconds = number(get(timeouts, "create")) if isinstance(timeouts, Mapping) else None
    if seconds is None:
        seconds = custom_create
    if seconds is None:
        return Timeout(None, run.timeout,
                       f"neither {run.timeout} nor a custom timeout (timeouts.create) is set")
    wait_for = get(props, "wait_for") or "accepted"
    if wait_for != "completed":
        return Timeout(None, run.timeout,
                       f"{run.timeout} is not set and the custom timeout "
                       f"(timeouts.create = {fmt(number(seconds))} s) does not bound the job with "
                       f"wait_for={wait_for!r} (it needs wait_for='completed')")
    return Timeout(seconds / 3600.0, "timeouts.create")


def timeout_of(job: Ours) -> Timeout:
    return job_timeout(job.props, job.run, job.custom_create if job.form == PLUGIN else None)


def timeout_hint(run: RunFacts) -> str:
    """How a job without a timeout gets one."""
    how = f"set {run.timeout}"
    if run.timeout_switch is not None:
        how += f" ({run.timeout_switch})"
    if run.create_timeout_bounds:
        how += " (or wait_for='completed' with customTimeouts create)"
    return how


# ----- sizes and images -------------------------------------------------------------------------

def node_count(job: Ours) -> tuple[str, float | None]:
    """(field name, node count) of a training job; unset, the spec's default where it has one."""
    name = job.run.nodes
    count = number(get(job.props, name))
    if count is None:
        info = job.props.model.model_fields.get(name)
        count = None if info is None or info.is_required() else number(info.get_default(call_default_factory=True))
    return name, count


def node_spec(job: Ours) -> tuple[str, str | None]:
    """(field name, product code or flavor) that fixes a node's GPU count."""
    name = job.run.node_type
    return name, _str(get(job.props, name))


def image_of(job: Ours) -> tuple[str, str | None]:
    """(field name, image) of a resource with an image input."""
    name = job.entry.image
    if name is None:
        raise TypeError(f"{job.kind} has no image input")
    return name, _str(get(job.props, name))


def _str(value: Any) -> str | None:
    return str(value) if value is not None and value != "" else None


def obs_path(path: str) -> str:
    """An OBS location in the provider's checked form: `obs://bucket/dir` -> `/bucket/dir`."""
    text = path.strip()
    return "/" + text.removeprefix("obs://") if text.startswith("obs://") else text


def normalize_path(path: str) -> str:
    norm = posixpath.normpath(path)
    return "/" if norm in ("/", "//") else norm.rstrip("/")


def path_within(path: str, roots: list[str]) -> str | None:
    """The entry of `roots` that `path` equals or lies below (whole path segments), if any."""
    norm = normalize_path(path)
    for root in roots:
        base = normalize_path(str(root))
        if norm == base or norm.startswith(base.rstrip("/") + "/"):
            return str(root)
    return None
