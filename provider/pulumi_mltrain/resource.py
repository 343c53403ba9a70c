"""The generic dynamic provider and resource base: everything that is the same for every resource.

A concrete resource declares its `Spec` (inputs), its `Output` model and the platform calls
(`_create`, `_read`, `_update`, `_delete`). This module turns them into Pulumi's check/diff/
create/read/update/delete, prefixes every error with the resource it concerns, merges inputs into
outputs (the default `update()` would drop them), and captures `custom_timeouts`, which the Python
dynamic provider host never forwards to `create()`.

The provider object is pickled into every resource's state: it holds no client, lock or secret.
Clients are built lazily inside the provider process after `configure()`.
"""

from __future__ import annotations

import hashlib
import inspect
import re
import threading
import time
from typing import Any, ClassVar

import pulumi
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)
from pydantic import BaseModel, Field

from . import spec as specs
from .config import CONFIG_KEYS, Settings
from .errors import MltrainError, NotFound, for_resource


class Timeouts(BaseModel):
    """Deadlines in seconds; filled from `opts.custom_timeouts` when not given."""

    create: float | None = Field(None, gt=0, description="Seconds create may take, waits included.")
    update: float | None = Field(None, gt=0, description="Seconds update may take.")
    delete: float | None = Field(None, gt=0, description="Seconds delete may take, waits included.")


class ManagedSpec(specs.Spec):
    """Fields every resource has: adoption of an existing object, and deadlines."""

    adopt_id: str | None = specs.spec_field(
        None,
        description="ID of an existing platform object to take under management instead of creating one. "
        "The object must match the declared inputs; differences are reported and nothing is changed.",
        on_change="local",
    )
    timeouts: Timeouts | None = specs.spec_field(
        None, description="Deadlines for create/update/delete in seconds (or use customTimeouts).",
        on_change="local",
    )


# How many times a create may be sent when its answers are lost and the object never shows up.
CREATE_ATTEMPTS = 3

_LOCK = threading.Lock()
_CLIENTS: dict[tuple[str, str], Any] = {}


class MltrainProvider(ResourceProvider):
    """Generic provider: subclasses set the class attributes and implement the platform calls."""

    serialize_as_secret_always = False  # the pickled provider is a class path: nothing secret in it
    kind: ClassVar[str] = "Resource"
    spec_type: ClassVar[type[ManagedSpec]] = ManagedSpec
    output_type: ClassVar[type[specs.Output]] = specs.Output
    default_timeouts: ClassVar[dict[str, float]] = {"create": 1200.0, "update": 600.0, "delete": 1200.0}

    # ----- configuration and clients -------------------------------------------------------------
    def configure(self, req: ConfigureRequest) -> None:
        self._settings = Settings.load({key: req.config.get(key) for key in CONFIG_KEYS.values()})

    @property
    def settings(self) -> Settings:
        found = getattr(self, "_settings", None)
        if found is None:
            found = self._settings = Settings.load()
        return found

    def client(self, name: str, build: Any) -> Any:
        """One client per platform and settings in this provider process, shared by its threads."""
        key = (name, self.settings.model_dump_json())
        with _LOCK:
            if key not in _CLIENTS:
                _CLIENTS[key] = build(self.settings)
            return _CLIENTS[key]

    # ----- platform calls (subclasses) -----------------------------------------------------------
    def _create(self, spec: Any, deadline: float) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def _adopt(self, object_id: str, spec: Any) -> dict[str, Any]:
        raise MltrainError(f"{self.kind} cannot adopt existing objects")

    def _read(self, object_id: str, spec: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """(outputs, input overrides from the platform), or None when the object is gone."""
        raise NotImplementedError

    def _update(self, object_id: str, old: Any, new: Any, changed: list[str], deadline: float) -> dict[str, Any]:
        return {}

    def _delete(self, object_id: str, spec: Any, deadline: float) -> None:
        raise NotImplementedError

    def _check_remote(self, spec: Any) -> list[tuple[str, str]]:
        """Checks against the platform's catalogues, run at preview when credentials exist."""
        return []

    noun: ClassVar[str] = "object"

    def _require_match(self, spec: Any, object_id: str, remote: dict[str, Any], *, found_by_name: bool) -> None:
        """Refuse to take a platform object that differs from the declaration, listing why."""
        diffs = specs.differences(spec, specs.from_wire(type(spec), remote, spec))
        if not diffs:
            return
        if found_by_name:
            raise MltrainError(
                f"a {self.noun} named {spec.name!r} already exists ({object_id}) with other settings: "
                + "; ".join(diffs) + ". Delete it, choose another name, or change the inputs to match")
        raise MltrainError(f"cannot adopt {self.noun} {object_id}: it differs from the declared inputs: "
                           + "; ".join(diffs))

    # ----- Pulumi interface ----------------------------------------------------------------------
    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        spec, failures = specs.validate(self.spec_type, news)
        if spec is not None:
            # Catalogue checks only for new or changed inputs: a no-change preview makes no API call.
            unchanged = bool(olds) and not specs.diff(self.spec_type, olds, spec.props())[0]
            if not unchanged:
                failures = failures + self._check_remote(spec)
        inputs = {k: v for k, v in news.items() if k.startswith("__")}
        if spec is not None:
            inputs.update(spec.props())
        else:
            inputs.update(specs.user_props(news, self.spec_type))
        return CheckResult(inputs, [CheckFailure(f, f"{self.kind}: {f} {r}") for f, r in failures])

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        changed, replaces = specs.diff(self.spec_type, olds, news)
        return DiffResult(changes=bool(changed), replaces=replaces, delete_before_replace=bool(replaces))

    def create(self, props: dict[str, Any]) -> CreateResult:
        spec = self._parse(props)
        try:
            if spec.adopt_id:
                object_id, outs = spec.adopt_id, self._adopt(spec.adopt_id, spec)
            else:
                object_id, outs = self._create(spec, self._deadline(spec, "create"))
        except Exception as err:
            raise for_resource(self.kind, self._label(spec), err) from None
        return CreateResult(object_id, self._outs(spec, outs))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        spec = self._parse(props, strict=False)
        try:
            found = self._read(id_, spec)
        except NotFound:
            found = None
        except Exception as err:
            raise for_resource(self.kind, self._label(spec), err) from None
        if found is None:
            return ReadResult(None, {})  # gone: the engine drops it from the state
        outs, overrides = found
        inputs = {**specs.user_props(props, self.spec_type), **overrides}
        return ReadResult(id_, {**inputs, **self._only_outputs(outs)}, inputs)

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        old, new = self._parse(olds, strict=False), self._parse(news)
        changed, _ = specs.diff(self.spec_type, olds, news)
        try:
            outs = self._update(id_, old, new, changed, self._deadline(new, "update"))
        except Exception as err:
            raise for_resource(self.kind, self._label(new), err) from None
        previous = self._only_outputs(olds)
        return UpdateResult(self._outs(new, {**previous, **outs}))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        spec = self._parse(props, strict=False)
        try:
            self._delete(id_, spec, self._deadline(spec, "delete"))
        except NotFound:
            return
        except Exception as err:
            raise for_resource(self.kind, self._label(spec), err) from None

    # ----- helpers -------------------------------------------------------------------------------
    def _parse(self, props: dict[str, Any], strict: bool = True) -> Any:
        data = specs.user_props(props, self.spec_type)
        spec, failures = specs.validate(self.spec_type, data)
        if spec is None and not strict:
            spec = self.spec_type.model_construct(**data)
        if spec is None:
            reasons = "; ".join(f"{f} {r}" for f, r in failures)
            raise MltrainError(f"{self.kind}: invalid inputs: {reasons}")
        return spec

    def _label(self, spec: Any) -> str:
        return str(getattr(spec, "name", "") or "")

    def _deadline(self, spec: Any, op: str) -> float:
        chosen = getattr(spec.timeouts, op, None) if spec.timeouts else None
        seconds = float(chosen or self.default_timeouts[op])
        return time.monotonic() + seconds

    def _only_outputs(self, values: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in values.items() if k in self.output_type.model_fields}

    def _outs(self, spec: Any, outs: dict[str, Any]) -> dict[str, Any]:
        return {**spec.props(), **self._only_outputs(outs)}


def remaining(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


def default_name(resource_name: str, max_len: int = 64) -> str:
    """A physical name derived from the project, stack and resource name: stable across runs,
    so that a create retried after an interruption finds the object it made the first time."""
    seed = f"{pulumi.get_project()}/{pulumi.get_stack()}/{resource_name}"
    suffix = hashlib.sha256(seed.encode()).hexdigest()[:6]
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", resource_name).strip("-")[: max_len - 7] or "job"
    return f"{base}-{suffix}"


_UNITS = {"s": 1, "m": 60, "h": 3600}


def parse_duration(text: str | None) -> float | None:
    """Pulumi custom timeout strings such as "30m", "1h30m", "90s"."""
    if not text:
        return None
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)([smh])", text):
        total += float(number) * _UNITS[unit]
    return total or None


def _plain(value: Any) -> Any:
    """Argument values as Pulumi can send them: typed helpers (pydantic models) become dicts."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class MltrainResource(pulumi.dynamic.Resource):
    """Program-side base: validates argument names at once, fills the physical name and the
    deadlines from `opts.custom_timeouts`, and declares the outputs from the Output model."""

    _provider_type: ClassVar[type[MltrainProvider]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        provider = cls.__dict__.get("_provider_type")
        if provider is not None:
            params = [inspect.Parameter("resource_name", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str)]
            for name, info in provider.spec_type.model_fields.items():
                default = None if not info.is_required() else inspect.Parameter.empty
                params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                                annotation=info.annotation))
            params.append(inspect.Parameter("opts", inspect.Parameter.KEYWORD_ONLY, default=None))
            cls.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]

    def __init__(self, resource_name: str, opts: pulumi.ResourceOptions | None = None, **args: Any) -> None:
        provider = self._provider_type
        fields = provider.spec_type.model_fields
        unknown = sorted(set(args) - set(fields))
        if unknown:
            raise TypeError(
                f"{provider.kind} '{resource_name}': unknown argument(s) {', '.join(unknown)}; "
                f"expected some of: {', '.join(fields)}"
            )
        props: dict[str, Any] = {k: _plain(v) for k, v in args.items() if v is not None}
        if "name" in fields and "name" not in props:
            props["name"] = default_name(resource_name)
        custom = opts.custom_timeouts if opts else None
        if custom is not None and "timeouts" not in props:
            props["timeouts"] = {
                op: seconds
                for op in ("create", "update", "delete")
                if (seconds := parse_duration(getattr(custom, op, None)))
            }
        for attr in (*fields, *provider.output_type.model_fields):
            props.setdefault(attr, None)  # every input and output is readable on the resource
        super().__init__(provider(), resource_name, props, opts)
