"""The plugin's property names, in one place: the engine and every SDK speak schema.json's camelCase
names (`productCode`), the handlers the spec's field names (`product_code`; `spec.property_name`).

Every request is read in either form and every answer is written in the schema's names. States written
before 0.2 hold the field names (the 0.1 plugin recorded what the handlers return), and a resource left
unchanged keeps its old outputs until its next update or refresh: `old_names` finds such a state, and
`renames_only` is the update that moves it to the new names without a replace and without a platform
call (tests/inprocess/test_plugin_names.py; the engine's view is tests/engine/upgrade/test_upgrade.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pulumi.provider.experimental.property_value import PropertyValue

from .. import spec as specs
from ..handler import Handler
from ..ownership import URN_KEY
from . import sdk

AnyHandler = Handler[Any, Any, Any]


def models(handler: AnyHandler) -> tuple[type[Any], ...]:
    return (handler.spec_type, handler.output_type)


def fields(handler: AnyHandler, values: Mapping[str, Any]) -> dict[str, Any]:
    """A request's properties (schema names, or field names as older states hold them) by field name."""
    return specs.to_field_names(values, *models(handler))


def path(handler: AnyHandler, field_path: str) -> str:
    """A property path of the handler's (field names) in schema names."""
    return specs.property_path(field_path, *models(handler))


def marks(values: Mapping[str, Any]) -> dict[str, PropertyValue]:
    """Marks the handler adds that are no field of the resource (`run_starts`), in schema names."""
    return sdk.wrap({specs.property_name(k): v for k, v in values.items()})


def owned(handler: AnyHandler, values: Mapping[str, Any], urn: str) -> dict[str, Any]:
    """A request's properties by field name, with the resource's URN in the owner mark: the engine
    gives a plugin the URN with every call, so no state keeps it (states written before 0.3 do)."""
    return {**fields(handler, values), URN_KEY: urn}


def wrap(handler: AnyHandler, values: Mapping[str, Any], secret: Iterable[str] = ()) -> dict[str, PropertyValue]:
    """Field-named values as the engine's properties in schema names, without the URN (`owned`):
    secret where the request's value was (`secret`, in either form) and where the spec declares the
    field secret."""
    keys = set(fields(handler, dict.fromkeys(secret))) | {
        name for name, meta in specs.field_metas(handler.spec_type) if meta.secret}
    kept = {k: v for k, v in values.items() if k != URN_KEY}
    return sdk.wrap(specs.to_property_names(kept, *models(handler)), {path(handler, k) for k in keys})


def old_names(handler: AnyHandler, state: Mapping[str, Any]) -> bool:
    """Whether a state holds properties under their field names (written before 0.2)."""
    return set(state) != set(specs.to_property_names(fields(handler, state), *models(handler)))


def renames_only(handler: AnyHandler, state: Mapping[str, Any], changed: Iterable[str]) -> bool:
    """Whether the diff of a state is an update that only renames it: a state written before 0.2 whose
    inputs are unchanged. Resources built from its outputs then read them by the schema's names, in
    the preview too; a state left as it is would hand them the old names, which they would read as
    missing (and replace)."""
    return not list(changed) and old_names(handler, state)


def arguments(args: Mapping[str, Any], model: type[Any]) -> dict[str, Any]:
    """An invoke's arguments by the function's field names."""
    return specs.to_field_names(args, model)


def results(values: Mapping[str, Any], model: type[Any]) -> dict[str, Any]:
    """An invoke's results in schema names."""
    return specs.to_property_names(values, model)
