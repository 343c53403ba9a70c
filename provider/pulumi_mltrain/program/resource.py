"""The program side of every resource: light on purpose (pulumi and the standard library only).

A Pulumi program imports the generated classes (`program/alaya_resources.py`,
`program/modelarts_resources.py`, written by `tools/codegen.py`), which subclass `MltrainResource` here and
carry a static field table, so the program never loads pydantic, httpx or tenacity: they load in the
provider process, on the first call of the resource's `DynamicProvider` (`dynamic_provider.py`; each
resource's subclass is in `<family>/_resources.py`), which is the object Pulumi pickles into the state (a
class reference).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider

from ..dynamic_provider import DynamicProvider
from ..ownership import FAILED_KEY, PREVIEW_KEY, STACK_KEY, URN_KEY
from .accounts import account_props, warn_retired_settings

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
    """Argument values as Pulumi can send them: pydantic models (the provider's own types) become dicts."""
    if isinstance(value, pulumi.Output):
        return value  # never getattr on an Output: it lifts the attribute into a failing apply
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _raise_recorded(problem: str | None) -> None:
    """A held failure or an unfinished wait, recorded by its create: `pulumi up` still fails on it. A
    preview only warns: it changes nothing, and the update it previews is what fails."""
    if problem:
        if pulumi.runtime.is_dry_run():
            pulumi.log.warn(problem)
        else:
            raise pulumi.RunError(problem)


class MltrainResource(pulumi.dynamic.Resource):
    """Program-side base: fills the deadlines from `opts.custom_timeouts` (the dynamic provider host
    never forwards them), passes the owner (stack identity and URN) and the account, and declares
    the inputs given, the inputs the provider fills (defaults that other inputs imply, the chosen `name`)
    and the outputs; an input left out with a constant default reads as that default, and an optional
    input left out as None, both without being registered (`__getattr__`).

    Subclasses are generated: they set the field table below and their `__init__` calls `_register` with
    their arguments. No `__init__` here: the SDK records a resource's source position (and stack trace) from
    the caller of the third `__init__` on the stack (Resource, CustomResource, then the resource class), which
    is thus the user's program, not this package.
    """

    _kind: ClassVar[str]
    _provider_class: ClassVar[type[DynamicProvider]]
    _inputs: ClassVar[tuple[str, ...]] = ()
    _outputs: ClassVar[tuple[str, ...]] = ()
    _id_fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[Mapping[str, Any]] = {}
    _implied: ClassVar[tuple[str, ...]] = ()  # defaults that another input turns on (not fixed)
    _declared_cache: ClassVar[tuple[str, ...]]
    _fixed_cache: ClassVar[frozenset[str]]
    _pickled_cache: ClassVar[str]

    def _register(self, resource_name: str, args: Mapping[str, Any],
                  opts: pulumi.ResourceOptions | None = None) -> None:
        from .stack_identity import stack_identity

        runs = "on_failure" in self._inputs  # a training job
        unknown = sorted(set(args) - set(self._inputs))
        if unknown:
            raise TypeError(f"{self._kind} '{resource_name}': unknown argument(s) {', '.join(unknown)}; "
                            f"expected some of: {', '.join(self._inputs)}")
        props: dict[str, Any] = {k: _plain(v) for k, v in args.items() if v is not None}
        custom = opts.custom_timeouts if opts else None
        if custom is not None and "timeouts" not in props:
            props["timeouts"] = {
                op: seconds
                for op in ("create", "update", "delete")
                if (seconds := parse_duration(getattr(custom, op, None)))
            }
        # An object's name (and owner mark) is its own: a replacement created first (a replacement_trigger,
        # `--replace`) would meet the old object, so the old one is always deleted first.
        opts = pulumi.ResourceOptions.merge(pulumi.ResourceOptions(delete_before_replace=True), opts)
        type_ = f"pulumi-python:{self._resource_type_name}"
        platform = self._resource_type_name.split("/")[-1].split(":")[0]
        opts, account = account_props(resource_name, opts, platform)
        warn_retired_settings()
        props.update(account)
        props[STACK_KEY] = stack_identity()
        parent = opts.parent if opts else None
        props[URN_KEY] = (pulumi.resource.create_urn(resource_name, type_, parent=parent) if parent is not None
                          else f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::{type_}::{resource_name}")
        # With ignore_changes the engine may keep a stored value of a defaulted input: read them all back.
        fixed = () if opts is not None and opts.ignore_changes else self._fixed_defaults()
        for attr in self._declared():
            if attr not in fixed:
                props.setdefault(attr, None)  # filled by the provider: readable on the resource
        if runs:
            # Set on a held failure (lifecycle/record.py) and, with its error, by a create whose wait the
            # engine cancelled or ran out of time (handler.py, UNFINISHED_KEY): one mark, one Output.
            props[FAILED_KEY] = None
            if pulumi.runtime.is_dry_run():
                props[PREVIEW_KEY] = True  # check marks a step that starts a run (runs.RUN_STARTS)
        # What `pulumi.dynamic.Resource.__init__` does, with the pickled provider made once per class:
        # it is the same reference for every resource (no captured secret), and dill costs
        # about a millisecond per resource.
        props[PROVIDER_KEY] = self._pickled_provider()
        pulumi.CustomResource.__init__(self, type_, resource_name, props, opts)
        for attr in self._id_fields:
            # The ID is known in the preview of an in-place update (unlike other outputs), so jobs that
            # use it are not previewed as replaced when only, say, an algorithm's description changes.
            setattr(self, attr, self.id)
        if runs:
            # A dynamic create cannot be both recorded and failed: a held failure's or a cancelled wait's
            # create succeeds with its mark, and the program fails here, so `pulumi up` still reports it.
            getattr(self, FAILED_KEY).apply(_raise_recorded)

    @classmethod
    def _pickled_provider(cls) -> str:
        found: str | None = cls.__dict__.get("_pickled_cache")
        if found is None:
            found = cls._pickled_cache = serialize_provider(cls._provider_class.shared())
        return found

    @classmethod
    def _declared(cls) -> tuple[str, ...]:
        """The properties the provider fills whatever was given: defaulted and chosen inputs, outputs.

        Each registered property costs the program an Output per resource; optional inputs without a
        default stay undeclared unless given, and `_register` leaves out the constant defaults (both
        read through `__getattr__`).
        """
        found: tuple[str, ...] | None = cls.__dict__.get("_declared_cache")
        if found is None:
            chosen = ("name",) if "name" in cls._inputs else ()
            found = tuple(dict.fromkeys(a for a in (*cls._defaults, *chosen, *cls._outputs)
                                        if a not in cls._id_fields))
            cls._declared_cache = found
        return found

    @classmethod
    def _fixed_defaults(cls) -> frozenset[str]:
        """Inputs whose default is a constant (none of them `_implied`): when not given, check fills in
        exactly that value, so the program knows it without asking the engine for it. They are not
        registered as properties (each registered property costs the SDK an Output, a resolver and a
        few tasks per resource); `__getattr__` gives the value, read only when a program asks for it."""
        found: frozenset[str] | None = cls.__dict__.get("_fixed_cache")
        if found is None:
            found = cls._fixed_cache = frozenset(a for a in cls._defaults if a not in cls._implied)
        return found

    if not TYPE_CHECKING:  # type checkers see the generated annotations, never an open __getattr__

        def __getattr__(self, attr: str) -> Any:
            """An input that was not given: its constant default (what check fills in, see
            `_fixed_defaults`), else None (an optional input: the provider never fills it), as an Output
            that depends on this resource like every other attribute, known in previews too."""
            cls = type(self)
            if attr in cls._inputs:
                default = cls._defaults.get(attr)
                value = self.urn.apply(lambda _: copy.deepcopy(default))
                object.__setattr__(self, attr, value)
                return value
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")
