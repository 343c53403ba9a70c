"""One declaration per field: a resource's pydantic spec drives check, diff, schema.json and docs.

A field says, once, what a change to it means (`on_change`): `replace` the remote object, `update`
it in place, `local` (provider behaviour only, such as timeouts: no remote effect), or `record` (sent
at create, but the platform has no call to change it: a change is stored in the state only, so a
cosmetic edit never starts a new run; the platform keeps its first value, which is not drift). Its wire
name (the API's camelCase) is its pydantic alias. A dotted wire name (`metadata.name`,
`spec.resource.flavor_id`) places the value in a nested API body: `Spec.wire()` builds the nesting
and `from_wire` reads it back, in nested models too, so there is no second mapping to keep in step.
Cross-field rules live in `Spec.cross_check` and name the field they blame, so every failure
reaches the user as `CheckFailure(field, reason)`.
"""

from __future__ import annotations

import functools
import math
import re
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

OnChange = Literal["replace", "update", "local", "record"]
_META = "x-mltrain"
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # an environment variable's name, on every platform


def spec_field(
    default: Any = ...,
    *,
    description: str,
    on_change: OnChange = "replace",
    wire: str | None = None,
    secret: bool = False,
    redact: bool = False,
    also: tuple[str, ...] = (),
    wire_with: Mapping[str, Any] | None = None,
    keyed_by: str | None = None,
    implied_by: str | None = None,
    returned: bool = True,
    recorded_keys: tuple[str, ...] = (),
    **constraints: Any,
) -> Any:
    """Declare an input field with its change semantics and wire name.

    `wire` may be dotted (`spec.resource.flavor_id`) to place the value in a nested body.
    `also` lists other spellings the platform uses for the same field when it answers.
    `wire_with` gives constant siblings sent next to the value when it is set, e.g. a unit:
    `wire="spec.auto_stop.duration", wire_with={"time_unit": "HOURS"}`.
    `keyed_by` marks a list whose items the platform matches by that key and may complete with
    items of its own (e.g. the parameters an algorithm declares): only declared items are compared.
    `redact`: errors never print the values (environment maps may hold keys); secret fields always are.
    `implied_by`: a switch that setting that field turns on, so its default is not fixed (none in schema.json).
    `returned=False`: the platform's answers are known to leave the field out (though its reference lists
    it): drift is read only from an answer that carries it, and an import, which cannot read it, takes
    the declared value as it is.
    `recorded_keys`: keys of a nested object whose change is only recorded (a diff never compares them),
    such as a checkpoint's `resume`, which says how the next run starts and changes nothing of this one.
    """
    data: dict[str, Any] = {"onChange": on_change, "secret": secret}
    if implied_by:
        data["impliedBy"] = implied_by
    if redact or secret:
        data["redact"] = True
    if wire_with:
        data["wireWith"] = dict(wire_with)
    if keyed_by:
        data["keyedBy"] = keyed_by
    if not returned:
        data["returned"] = False
    if recorded_keys:
        data["recordedKeys"] = list(recorded_keys)
    extra: dict[str, Any] = {_META: data}
    if also:
        return Field(default, description=description, serialization_alias=wire,
                     validation_alias=AliasChoices(*(a for a in (wire, *also) if a)),
                     json_schema_extra=extra, **constraints)
    return Field(default, description=description, alias=wire, json_schema_extra=extra, **constraints)


def output_field(default: Any = None, *, description: str, secret: bool = False, is_id: bool = False,
                 always: bool = False, kept: Literal["derived", "once"] | None = None) -> Any:
    """Declare an output-only field (set by the platform, never by the user).

    `is_id`: the value is the resource's ID, which an in-place update never changes; the program side
    reads it from the ID, which previews know (other outputs of an updated resource are unknown there).
    `always`: every created object has a value (e.g. its status), so the typed face and the schema
    declare it present rather than optional.
    `kept`: "derived" from a catalogue, which a check of unchanged inputs takes from the stored state
    instead (a no-change preview makes no API call); "once": recorded by a create (e.g. what a gate
    read), which a refresh keeps as it is.
    """
    data: dict[str, Any] = {"onChange": "output", "secret": secret}
    if is_id:
        data["isId"] = True
    if always or is_id:
        data["always"] = True
    if kept:
        data[kept] = True
    return Field(default, description=description, json_schema_extra={_META: data})


def function_arg(description: str, default: Any = None) -> Any:
    """An argument of a program-time function (schema.json's inputs of a function; nothing to diff)."""
    return spec_field(default, description=description, on_change="local")


def function_out(description: str) -> Any:
    """A field of a program-time function's result."""
    return output_field(description=description)


@dataclass(frozen=True)
class Meta:
    on_change: str
    secret: bool
    wire: str
    wire_with: Mapping[str, Any] | None = None
    keyed_by: str | None = None
    redact: bool = False
    implied_by: str | None = None
    returned: bool = True
    recorded_keys: tuple[str, ...] = ()


def meta(info: FieldInfo, name: str) -> Meta:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    data = extra.get(_META, {}) if isinstance(extra, dict) else {}
    assert isinstance(data, dict)
    wire = info.serialization_alias or info.alias or name
    with_ = data.get("wireWith")
    keyed = data.get("keyedBy")
    recorded = data.get("recordedKeys")
    return Meta(str(data.get("onChange", "replace")), bool(data.get("secret", False)), wire,
                dict(with_) if isinstance(with_, dict) else None, str(keyed) if keyed else None,
                bool(data.get("redact", False)), str(data["impliedBy"]) if data.get("impliedBy") else None,
                bool(data.get("returned", True)),
                tuple(str(k) for k in recorded) if isinstance(recorded, list) else ())


def property_name(field: str) -> str:
    """The field's name in schema.json and the native plugin's state: camelCase, as Pulumi schemas
    spell properties (`product_code` -> `productCode`). Derived from the field, never declared a
    second time; each language's SDK maps it back (the Python SDK to the field's own name)."""
    head, *rest = field.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def nested_model(annotation: Any) -> type[BaseModel] | None:
    """The model of a field's objects (one, optional or a list of them); None for plain values and
    for maps (`env`: their keys are the user's own)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (dict, Mapping):
        return None
    for arg in typing.get_args(annotation):
        found = nested_model(arg)
        if found is not None:
            return found
    return None


@functools.cache
def _renames(models: tuple[type[BaseModel], ...]) -> tuple[dict[str, str], dict[str, type[BaseModel] | None]]:
    """(property name -> field name, field name -> its nested model) of the fields of `models`."""
    fields: dict[str, str] = {}
    inner: dict[str, type[BaseModel] | None] = {}
    for model in models:
        for name, info in model.model_fields.items():
            fields.setdefault(property_name(name), name)
            inner.setdefault(name, nested_model(info.annotation))
    return fields, inner


def _renamed(value: Any, model: type[BaseModel] | None, to_fields: bool) -> Any:
    if model is None:
        return value
    if isinstance(value, Mapping):
        return to_field_names(value, model) if to_fields else to_property_names(value, model)
    if isinstance(value, list | tuple):
        return [_renamed(v, model, to_fields) for v in value]
    return value


def to_field_names(props: Mapping[str, Any], *models: type[BaseModel]) -> dict[str, Any]:
    """Properties by their schema names (camelCase), by the field names (as states before 0.2 hold
    them) or both mixed, as the fields of `models` name them, nested objects too. Other keys (the
    provider's own `__mltrain_*` keys, misspellings for the spec to report) are kept as they are; a
    property given in both forms takes the schema name's value."""
    fields, inner = _renames(models)
    out: dict[str, Any] = {}
    for key, value in props.items():
        name = fields.get(key, key)
        if name == key and name in inner and property_name(name) in props and property_name(name) != name:
            continue  # given in both forms: the schema name's value
        out[name] = _renamed(value, inner.get(name), True)
    return out


def to_property_names(values: Mapping[str, Any], *models: type[BaseModel]) -> dict[str, Any]:
    """The reverse of `to_field_names`: the fields of `models` by their schema names, nested too."""
    _, inner = _renames(models)
    return {property_name(k) if k in inner else k: _renamed(v, inner.get(k), False) for k, v in values.items()}


def property_path(path: str, *models: type[BaseModel]) -> str:
    """A property path in field names (`storage_mounts[0].mount_path`, as check failures name it)
    in schema names (`storageMounts[0].mountPath`)."""
    out: list[str] = []
    current: tuple[type[BaseModel], ...] = models
    for part in path.split("."):
        name, bracket, rest = part.partition("[")
        _, inner = _renames(current) if current else ({}, {})
        out.append((property_name(name) if name in inner else name) + bracket + rest)
        found = inner.get(name)
        current = (found,) if found is not None else ()
    return ".".join(out)


class Spec(BaseModel):
    """Base of every resource's input model: strict about unknown keys, lax about RPC floats."""

    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True, frozen=True)

    # Constant parts of every body, by dotted wire path, e.g. {"kind": "job"}.
    wire_constants: ClassVar[dict[str, Any]] = {}
    # Inputs another platform's resource of the kind has and this one cannot: {field: why, as a failure}.
    absent_inputs: ClassVar[dict[str, str]] = {}

    def cross_check(self) -> list[tuple[str, str]]:
        """Rules that involve several fields: (field, reason) pairs."""
        return []

    def as_declared(self) -> Spec:
        """A declaration of the object this spec was read from (`pulumi import` writes it as code): the
        platform reports every form of a value it resolved, a declaration names one (`cross_check`)."""
        return self

    def wire(self) -> dict[str, Any]:
        """The API body: wire names (nested where dotted), no unset optionals, local-only fields dropped."""
        flat = self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude=set(_local(type(self))))
        body: dict[str, Any] = {}
        for path, value in self.wire_constants.items():
            put(body, path, value)
        return _nest(type(self), flat, body)

    def props(self) -> dict[str, Any]:
        """The checked inputs as Pulumi stores them (python names, defaults filled)."""
        return self.model_dump(mode="json", exclude_none=True)


SpecVar = TypeVar("SpecVar", bound=Spec)


@dataclass(frozen=True)
class _Field:
    """What the wire mapping, validation and diffs need of one field, read once per model class."""

    name: str
    info: FieldInfo
    meta: Meta
    inner: Any  # the nested model the field holds (one or a list), or None
    read_names: tuple[str, ...]  # where a platform answer may hold it: the wire name, then aliases


@functools.cache
def _fields(model: type[BaseModel]) -> tuple[_Field, ...]:
    """The fields of a model class with their metadata: computed on first use, not per call (reading
    every field's metadata again cost a tenth of the provider's CPU per job)."""
    out = []
    for name, info in model.model_fields.items():
        m = meta(info, name)
        names = [m.wire]
        if isinstance(info.validation_alias, AliasChoices):
            names += [c for c in info.validation_alias.choices if isinstance(c, str)]
        out.append(_Field(name, info, m, _model_in(info.annotation), tuple(names)))
    return tuple(out)


@functools.cache
def _local(model: type[BaseModel]) -> frozenset[str]:
    """Fields never sent to the platform."""
    return frozenset(f.name for f in _fields(model) if f.meta.on_change == "local")


def field_metas(model: type[BaseModel]) -> Iterator[tuple[str, Meta]]:
    for f in _fields(model):
        yield f.name, f.meta


def wire_path(model: type[BaseModel], name: str) -> str:
    """The (dotted) wire name of one field."""
    return next(f.meta.wire for f in _fields(model) if f.name == name)


def put(body: dict[str, Any], path: str, value: Any) -> None:
    """Set `value` at a dotted path, creating the objects on the way."""
    *parents, last = path.split(".")
    node = body
    for part in parents:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise TypeError(f"wire path {path!r} crosses the non-object value at {part!r}")
        node = child
    node[last] = value


def dig(data: Any, path: str) -> Any:
    """The value at a dotted path of a platform answer (a flat key of that spelling wins), or None."""
    if isinstance(data, Mapping) and path in data:
        return data[path]
    for part in path.split("."):
        if not isinstance(data, Mapping):
            return None
        data = data.get(part)
    return data


def _nest(model: type[BaseModel], flat: Mapping[str, Any], into: dict[str, Any] | None = None) -> dict[str, Any]:
    """A `model_dump(by_alias=True)` result of `model` with its dotted wire names made nested."""
    out = {} if into is None else into
    for f in _fields(model):
        m = f.meta
        if m.wire not in flat:
            continue
        value = _through_models(_nest, f.inner, flat[m.wire])
        put(out, m.wire, value)
        if m.wire_with and value is not None:
            parent = m.wire.rpartition(".")[0]
            for key, constant in m.wire_with.items():
                put(out, f"{parent}.{key}" if parent else key, constant)
    return out


def _through_models(
    convert: Callable[[type[BaseModel], Mapping[str, Any]], Any], inner: Any, value: Any
) -> Any:
    """Apply `convert` to the nested model(s) a field holds (`inner`, one or a list), else return the value."""
    if inner is None:
        return value
    if isinstance(value, Mapping):
        return convert(inner, value)
    if isinstance(value, list):
        return [convert(inner, v) if isinstance(v, Mapping) else v for v in value]
    return value


def _unnest(model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, Any]:
    """A platform object read back as `model`'s flat alias keys; keys it does not declare are dropped."""
    out: dict[str, Any] = {}
    for f in _fields(model):
        value = dig(data, f.meta.wire)
        if value is not None:
            out[f.meta.wire] = _through_models(_unnest, f.inner, value)
    return out



class Output(BaseModel):
    """Base of every resource's output-only model."""

    model_config = ConfigDict(extra="ignore")

    @classmethod
    def flagged(cls, flag: str) -> list[str]:
        """The fields whose declaration sets `flag` (`output_field`)."""
        out = []
        for name, info in cls.model_fields.items():
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            data = extra.get(_META)
            if isinstance(data, dict) and data.get(flag):
                out.append(name)
        return out

    @classmethod
    def id_fields(cls) -> list[str]:
        return cls.flagged("isId")

    @classmethod
    def present_fields(cls) -> list[str]:
        """Outputs every created object has (the ID and those declared `always`)."""
        return cls.flagged("always")


@functools.cache
def _unknown() -> type:
    """`pulumi.output.Unknown`, imported on first use (the schema and code generators do without)."""
    from pulumi.output import Unknown

    return Unknown


# Exact types that hold nothing inside: most inputs are one, and the Mapping checks are ABC checks.
_PLAIN = frozenset({str, int, bool, type(None)})


def is_unknown(value: Any) -> bool:
    """True for preview placeholders (`pulumi.output.Unknown`) anywhere inside a value."""
    if type(value) in _PLAIN:
        return False
    if isinstance(value, _unknown()):
        return True
    if isinstance(value, Mapping):
        return any(is_unknown(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(is_unknown(v) for v in value)
    return False


def user_props(props: Mapping[str, Any], model: type[Spec]) -> dict[str, Any]:
    """The props that belong to the spec (drops `__provider` and output-only keys)."""
    names = set(model.model_fields)
    return {k: v for k, v in props.items() if k in names and v is not None}


def _loc(model: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a property path the user wrote (python names)."""
    parts: list[str] = []
    current: Any = model
    for item in loc:
        if isinstance(item, int):
            parts[-1:] = [f"{parts[-1]}[{item}]"] if parts else [f"[{item}]"]
            continue
        name = str(item)
        fields = getattr(current, "model_fields", None)
        if isinstance(fields, dict):
            for field_name, info in fields.items():
                if info.alias == name:
                    name = field_name
                    break
            info = fields.get(name)
            current = _model_in(info.annotation) if info is not None else None
        parts.append(name)
    return ".".join(parts) or "(resource)"


def _model_in(annotation: Any) -> Any:
    """The BaseModel inside an annotation such as `list[Mount] | None`, if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _failures(model: type[BaseModel], err: ValidationError, prefix: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    out = []
    for e in err.errors(include_url=False):
        loc = prefix + tuple(e["loc"])
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            absent: dict[str, str] = getattr(model, "absent_inputs", {}) if len(loc) == 1 else {}
            why = {**absent, **{property_name(k): v for k, v in absent.items()}}.get(str(loc[0]))
            msg = why or "is not an input of this resource (check the spelling)"
        elif e["type"] == "missing":
            msg = "is required"
        out.append((_loc(model, loc), msg))
    return out


def failures_of(model: type[BaseModel], err: ValidationError) -> list[tuple[str, str]]:
    """A ValidationError raised while using `model`'s values, as (field, reason) pairs in its names."""
    return _failures(model, err)


def validate_model(model: type[BaseModel], data: Mapping[str, Any]) -> tuple[BaseModel | None, list[tuple[str, str]]]:
    """Validate a nested model on its own (e.g. a mount built from a resource's fields)."""
    try:
        return model.model_validate(data), []
    except ValidationError as err:
        return None, _failures(model, err)


def _wants_int(annotation: Any) -> bool:
    """int or int | None, but not a type that also takes bool."""
    if annotation is int:
        return True
    args = getattr(annotation, "__args__", ()) or ()
    return int in args and bool not in args


def _non_finite(value: Any) -> bool:
    if type(value) in _PLAIN:
        return False
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, Mapping):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_non_finite(v) for v in value)
    return False


def hygiene(model: type[BaseModel], data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What pydantic's lax mode would accept but no user means: True for a count, NaN or infinity."""
    out: list[tuple[str, str]] = []
    for name, value in data.items():
        info = model.model_fields.get(name)
        if info is None or is_unknown(value):
            continue
        if isinstance(value, bool) and _wants_int(info.annotation):
            out.append((name, "must be an integer, not a boolean"))
        elif _non_finite(value):
            out.append((name, "must hold finite numbers only (NaN and infinity are refused)"))
    return out


def validate(model: type[SpecVar], props: Mapping[str, Any]) -> tuple[SpecVar | None, list[tuple[str, str]]]:
    """Validate inputs; with preview unknowns, validate only the known fields one by one."""
    data = {k: v for k, v in props.items() if not k.startswith("__") and v is not None}
    dirty = hygiene(model, data)
    if dirty:
        return None, dirty
    if any(is_unknown(v) for v in data.values()):
        failures: list[tuple[str, str]] = []
        for name, value in data.items():
            info = model.model_fields.get(name)
            if info is None:
                failures.append((name, "is not an input of this resource (check the spelling)"))
                continue
            if is_unknown(value):
                continue
            one = _one_field(model, name)
            try:
                one.model_validate({"v": value})
            except ValidationError as err:
                failures.extend((f"{name}{path[1:]}" if path.startswith("v") else name, msg)
                                for path, msg in _failures(one, err))
        return None, failures
    try:
        spec = model.model_validate(data)
    except ValidationError as err:
        return None, _failures(model, err)
    return spec, spec.cross_check()


@functools.cache
def _one_field(model: type[BaseModel], name: str) -> type[BaseModel]:
    """A model of one field, to apply its type and constraints to a lone value during preview.

    Cached: building a pydantic model costs milliseconds, and previews check many resources.
    """
    info = model.model_fields[name]
    plain = FieldInfo.merge_field_infos(info, alias=None, validation_alias=None, serialization_alias=None)
    annotation: Any = info.annotation
    return create_model("_One", __config__=ConfigDict(extra="forbid"), v=(annotation, plain))


def diff(model: type[Spec], olds: Mapping[str, Any], news: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(changed fields, fields whose change replaces) between stored outputs and checked inputs."""
    defaults = _defaults(model)
    changed, replaces = [], []
    for name, m in field_metas(model):
        old = _canon(olds.get(name, defaults[name]))
        new = news.get(name, defaults[name])
        if m.recorded_keys and not is_unknown(new):
            old, new = _without(old, m.recorded_keys), _without(_canon(new), m.recorded_keys)
        if is_unknown(new) or old != _canon(new):
            changed.append(name)
            if m.on_change == "replace":
                replaces.append(name)
    return changed, replaces


def _without(value: Any, keys: tuple[str, ...]) -> Any:
    """A nested object without the keys whose change is only recorded (`spec_field(recorded_keys=...)`)."""
    return {k: v for k, v in value.items() if k not in keys} if isinstance(value, Mapping) else value


@functools.cache
def _defaults(model: type[Spec]) -> Mapping[str, Any]:
    """Each field's default (None for required ones), read by `diff` only, never changed."""
    return MappingProxyType({n: (i.get_default(call_default_factory=True) if not i.is_required() else None)
                             for n, i in model.model_fields.items()})


def _canon(value: Any) -> Any:
    """Compare as the wire would: ints that crossed RPC as floats, models as dicts, no Nones."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: _canon(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_canon(v) for v in value]
    return value


def from_wire(model: type[SpecVar], data: Mapping[str, Any], keep: Spec) -> SpecVar | None:
    """The spec a platform object corresponds to, read from its wire fields (None if unreadable).

    Dotted wire names are read from the nested answer; in nested models only declared keys are
    kept. Fields the platform does not report (local ones, write-only ones) are taken from `keep`.
    """
    known: dict[str, Any] = {}
    for f in _fields(model):
        value = next((v for n in f.read_names if (v := dig(data, n)) is not None), None)
        if value is not None:
            value = _through_models(_unnest, f.inner, value)
        known[f.name] = value if value is not None else getattr(keep, f.name)
    try:
        return model.model_validate({k: v for k, v in known.items() if v is not None})
    except ValidationError:
        return None


def differences(declared: Spec, remote: Spec | None) -> list[str]:
    """Fields whose declared value differs from the platform's, as readable lines.

    What the declaration leaves unset is the platform's choice: an optional input that is None, a
    key a nested object does not give (a default the platform fills in, such as a channel's
    local_dir), items the platform adds to a `keyed_by` list. Secret fields never show values.
    """
    return list(differing(declared, remote).values())


def differing(declared: Spec, remote: Spec | None) -> dict[str, str]:
    """Like `differences`, keyed by field name (`(resource)` when the object cannot be read)."""
    if remote is None:
        return {"(resource)": "the platform object could not be read as this resource's inputs"}
    out: dict[str, str] = {}
    for name, m in field_metas(type(declared)):
        if m.on_change in ("local", "record"):
            continue
        mine, theirs = _canon(getattr(declared, name)), _canon(getattr(remote, name))
        if not _covers(mine, theirs, m.keyed_by):
            if m.redact:
                keys = _differing_keys(mine, theirs)
                where = f" for key(s) {', '.join(keys)}" if keys else ""
                out[name] = f"{name}: declared and platform values differ{where} (values not shown)"
            else:
                out[name] = f"{name}: declared {mine!r}, platform has {theirs!r}"
    return out


def _differing_keys(mine: Any, theirs: Any) -> list[str]:
    """The keys of a map whose values differ (names only: the values may be secret)."""
    if not isinstance(mine, Mapping):
        return []
    other = theirs if isinstance(theirs, Mapping) else {}
    return sorted(str(k) for k, v in mine.items() if not _covers(v, other.get(k)))


def _covers(mine: Any, theirs: Any, keyed_by: str | None = None) -> bool:
    """Whether the platform's value satisfies the declared one (see `differences`)."""
    if mine is None:
        return True
    if isinstance(mine, Mapping):
        return isinstance(theirs, Mapping) and all(_covers(v, theirs.get(k)) for k, v in mine.items())
    if isinstance(mine, list):
        if not isinstance(theirs, list):
            return False
        if keyed_by and all(isinstance(x, Mapping) and keyed_by in x for x in mine):
            by_key = {x.get(keyed_by): x for x in theirs if isinstance(x, Mapping)}
            return all(_covers(x, by_key.get(x[keyed_by])) for x in mine)
        return len(mine) == len(theirs) and all(_covers(a, b) for a, b in zip(mine, theirs, strict=True))
    return bool(mine == theirs)


class Timeouts(BaseModel):
    """Deadlines in seconds; filled from `opts.custom_timeouts` when not given."""

    model_config = ConfigDict(extra="forbid")

    create: float | None = Field(None, gt=0, allow_inf_nan=False,
                                 description="Seconds create may take, waits included.")
    update: float | None = Field(None, gt=0, allow_inf_nan=False, description="Seconds update may take.")
    delete: float | None = Field(None, gt=0, allow_inf_nan=False,
                                 description="Seconds delete may take, waits included.")


class ManagedSpec(Spec):
    """Fields every resource has: adoption of an existing object, and deadlines."""

    adopt_id: str | None = spec_field(
        None,
        description="ID of an existing platform object to take under management instead of creating one. "
        "The object must match the declared inputs; differences are reported and nothing is changed.",
        on_change="local",
    )
    timeouts: Timeouts | None = spec_field(
        None, description="Deadlines for create/update/delete in seconds (or use customTimeouts).",
        on_change="local",
    )
