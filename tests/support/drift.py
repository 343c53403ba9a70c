"""Helpers for the drift tests: a resource's inputs as the state holds them, and an out-of-band
patch derived from the resource's spec (wire paths and wire values come from the spec itself)."""

from __future__ import annotations

import json
from typing import Any

from pulumi_mltrain import spec as specs

from .pulumi_cli import Stack

Json = dict[str, Any]
_SECRET_SIG = "4dabf18193072939515e22adad3ad1c4"


def _plain(value: Any) -> Any:
    """State values with secrets unwrapped (the export was made with --show-secrets)."""
    if isinstance(value, dict):
        if value.get(_SECRET_SIG) == "1b47061264138c4ac30d75fd1eb44270" and "plaintext" in value:
            return _plain(json.loads(value["plaintext"]))
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def state_resource(stack: Stack, type_suffix: str) -> Json:
    """The one resource of that type in the state: id, inputs and outputs (secrets shown)."""
    resources = [r for r in stack.export(show_secrets=True)["deployment"].get("resources", [])
                 if r.get("type", "").endswith(type_suffix)]
    assert len(resources) == 1, f"expected one {type_suffix} in the state, found {len(resources)}"
    return dict(_plain(resources[0]))


def spec_inputs(resource: Json, model: type[specs.Spec]) -> Json:
    """The resource's inputs that are fields of `model` (no `__provider`, no outputs)."""
    inputs = resource.get("inputs", {})
    return {k: v for k, v in inputs.items() if k in model.model_fields and v is not None}


def remote_fields(model: type[specs.Spec]) -> set[str]:
    """Fields compared with the platform: everything but the `local` ones (adopt_id, timeouts, wait_for),
    the `record` ones (stored in the state only: the platform keeps the value it was created with) and
    those its answers leave out (`returned=False`: tests/unit/test_ownership_answers.py reads their drift
    from the reference's full shape)."""
    return {name for name, m in specs.field_metas(model) if m.on_change not in ("local", "record") and m.returned}


def drift(model: type[specs.Spec], declared: Json, new_values: Json) -> tuple[Json, Json]:
    """(wire changes for /_admin/patch, the inputs the state should then hold for those fields).

    The changed spec is the declared one with `new_values`; its own `wire()` gives each field's
    value at its wire path, so the patch is exactly what the platform would hold for those inputs.
    """
    changed = model.model_validate({**declared, **new_values})
    body = changed.wire()
    props = changed.props()
    changes = {specs.wire_path(model, name): specs.dig(body, specs.wire_path(model, name)) for name in new_values}
    return changes, {name: props.get(name) for name in new_values}


def preview_ops(preview: Json, type_suffix: str) -> set[str]:
    """The step operations `pulumi preview --json` plans for resources of that type."""
    return {str(step.get("op")) for step in preview.get("steps", [])
            if str(step.get("urn", "")).split("::")[-2].endswith(type_suffix)}
