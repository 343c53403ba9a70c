"""docs/resources/*.md, generated: what a user needs to write a resource without reading the code.

Each page has an example (the resource's constructor call as it appears in a program under
examples/, which the engine tests run, so the snippet is known to work), every input with its type,
default, allowed values (enum values and pydantic bounds) and what a change does, the outputs, the
default timeouts per operation, adoption and where the owner mark lives on the platform (the
registry's `ownership` of the resource).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from pulumi_mltrain import registry
from pulumi_mltrain import spec as specs
from pulumi_mltrain.platform_calls import PlatformCalls

from .schema import allowed_values

# The repository's examples (a build-time input: the docs are generated in a checkout, not from the wheel).
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

ON_CHANGE = {
    "replace": "replace",
    "update": "update in place",
    "local": "local (no platform call)",
    "record": "recorded in the state only (no platform call, no new run)",
}

NAMES = ("Names below are the Python names (the dynamic resources and the plugin's Python SDK). The plugin's "
         "schema, and with it TypeScript, Go and Pulumi YAML, spells each in camelCase, shown after the slash "
         "where it differs (`product_code` / `productCode`).")


def _name(field: str) -> str:
    """`field` / `fieldName`: the Python name and, where it differs, the schema's."""
    prop = specs.property_name(field)
    return f"`{field}`" if prop == field else f"`{field}` / `{prop}`"


def _field(prop: str) -> str:
    """The Python name of a schema property name (the inverse of `spec.property_name`)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", prop).lower()


def render_pages(schema: dict[str, Any]) -> dict[str, str]:
    """One markdown page per resource of `schema` (as built by schema.build())."""
    pages: dict[str, str] = {}
    for token, res in schema["resources"].items():
        _, module, name = token.split(":")
        found = registry.resource(token)
        if found is None:
            raise KeyError(f"schema.json has {token}, the registry does not")
        provider = found.calls()
        lines = [f"# {module}.{name}", "", res["description"], "",
                 f"Type tokens: `{found.dynamic_token}` (the Python dynamic resource, `pulumi_mltrain`) and "
                 f"`{found.token}` (the provider plugin `mltrain`: its Python, TypeScript and Go SDKs and "
                 "Pulumi YAML).", "", NAMES, ""]
        lines += _example(module, name)
        lines += _inputs(res, provider, schema)
        lines += _nested(res, schema)
        lines += _outputs(res)
        lines += _timeouts(provider)
        lines += _adoption(found, provider)
        pages[f"{module}-{name}.md"] = "\n".join(lines).rstrip() + "\n"
    return pages


def example_call(module: str, name: str) -> tuple[str, str] | None:
    """(example folder, source of the first `x = module.Name(...)` in examples/*/__main__.py)."""
    for program in sorted(EXAMPLES.glob("*/__main__.py")):
        source = program.read_text()
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == name
                    and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == module):
                segment = ast.get_source_segment(source, node)
                if segment:
                    return program.parent.name, segment
    return None


def _example(module: str, name: str) -> list[str]:
    found = example_call(module, name)
    if found is None:
        return []
    folder, call = found
    return ["## Example", "", "```python", "import pulumi", "", f"from pulumi_mltrain import {module}", "",
            call, "```", "", f"From [examples/{folder}](../../examples/{folder}/__main__.py), "
            "which the engine tests run against the emulator (`tests/engine/test_examples_elsewhere.py`).", ""]


def _inputs(res: dict[str, Any], provider: type[PlatformCalls[Any, Any, Any]], schema: dict[str, Any]) -> list[str]:
    model = provider.spec_type
    js = model.model_json_schema(by_alias=False)["properties"]
    metas = dict(specs.field_metas(model))
    lines = ["## Inputs", "", "| name | type | required | default | allowed values | on change | description |",
             "|---|---|---|---|---|---|---|"]
    for schema_name, p in res["inputProperties"].items():
        prop = _field(schema_name)
        info = model.model_fields[prop]
        if prop == "name":
            required, default = "", "chosen by the provider (resource name + unique suffix)"
        else:
            required = "yes" if schema_name in res["requiredInputs"] else ""
            default = _default_text(info)
        allowed = "; ".join(allowed_values(js[prop])) or _nested_allowed(p, schema)
        on_change = ON_CHANGE.get(metas[prop].on_change, metas[prop].on_change)
        secret = " (secret)" if p.get("secret") else ""
        lines.append(f"| {_name(prop)} | {_kind(p, schema)}{secret} | {required} | {_cell(default)} | {_cell(allowed)} "
                     f"| {on_change} | {_cell(str(info.description or ''))} |")
    lines += ["", "A *replace* deletes the platform object and creates a new one (delete first: the names "
              "are the platform's keys); *update in place* changes the object without recreating it; *local* "
              "changes only what the provider does (waits, deadlines, adoption) and never calls the platform.",
              ""]
    absent = getattr(model, "absent_inputs", {})
    if absent:
        # Inputs of the same resource on another platform that this platform cannot serve: a preview
        # error that says why, so the page says it too.
        lines += ["Not available here (a preview error names the field and the reason):", ""]
        lines += [f"- {_name(field)} {_cell(reason)}." for field, reason in absent.items()]
        lines.append("")
    return lines


def _kind(p: dict[str, Any], schema: dict[str, Any]) -> str:
    """The type as a user writes it: enum types read as their primitive type."""
    ref = str(p.get("$ref", "")).removeprefix("#/types/")
    enum = schema["types"].get(ref, {})
    if "enum" in enum:
        return str(enum["type"])
    if p.get("type") == "array":
        return f"list[{_kind(p['items'], schema)}]"
    return _type_text(p)


def _nested(res: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """A table per object type the inputs use (e.g. NasMount, Timeouts), with its fields' facts."""
    lines: list[str] = []
    seen: list[str] = []
    todo = [p for p in res["inputProperties"].values()]
    while todo:
        p = todo.pop(0)
        ref = str(p.get("$ref") or p.get("items", {}).get("$ref") or "").removeprefix("#/types/")
        spec = schema["types"].get(ref)
        if not spec or "properties" not in spec or ref in seen:
            continue
        seen.append(ref)
        required = set(spec.get("required", []))
        lines += [f"### {ref.rsplit(':', 1)[-1]}", "", _cell(spec.get("description", "")), "",
                  "| field | type | required | default | allowed values | description |", "|---|---|---|---|---|---|"]
        for name, field in spec["properties"].items():
            default = field.get("default")
            shown = "" if default is None else f"`{str(default).lower() if isinstance(default, bool) else default}`"
            needed = "yes" if name in required else ""
            lines.append(f"| {_name(_field(name))} | {_kind(field, schema)} | {needed} | {shown} "
                         f"| {_cell(_nested_allowed(field, schema))} | {_cell(field.get('description', ''))} |")
            todo.append(field)
        lines.append("")
    return lines


def _default_text(info: Any) -> str:
    if info.is_required():
        return ""
    value = info.get_default(call_default_factory=True)
    if value is None or value == {} or value == []:
        return ""
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def _nested_allowed(p: dict[str, Any], schema: dict[str, Any]) -> str:
    """For a property that is an enum type: its values (the spec's field schema had them inline)."""
    ref = p.get("$ref") or p.get("items", {}).get("$ref", "")
    spec = schema["types"].get(str(ref).removeprefix("#/types/"), {})
    values = [e["value"] for e in spec.get("enum", [])]
    return ("one of " + ", ".join(f"`{v}`" for v in values)) if values else ""


def _outputs(res: dict[str, Any]) -> list[str]:
    lines = ["## Outputs", "", "Every input is also an output. In addition:", "", "| name | type | description |",
             "|---|---|---|"]
    for prop, p in res["properties"].items():
        if prop not in res["inputProperties"]:
            lines.append(f"| {_name(_field(prop))} | {_type_text(p)} | {_cell(p.get('description', ''))} |")
    return [*lines, ""]


def _timeouts(provider: type[PlatformCalls[Any, Any, Any]]) -> list[str]:
    lines = ["## Timeouts", "", "| operation | default |", "|---|---|"]
    for op, seconds in provider.default_timeouts.items():
        lines.append(f"| {op} | {_minutes(seconds)} |")
    return [*lines, "", "Set them per resource with `opts=pulumi.ResourceOptions(custom_timeouts="
            "pulumi.CustomTimeouts(create=\"45m\"))` or the `timeouts` input (seconds). Every wait stops at its "
            "deadline, or when the engine cancels (an interrupted `pulumi up`), and names the object it waited "
            "for; a create whose wait ended so records its object as unfinished, and the next `pulumi up` goes "
            "on waiting for it (an update: no second create). While a wait lasts, a progress line names the "
            "resource, the object ID, the state, the time waited and the deadline, at least every 30 seconds.",
            ""]


def _type_text(p: dict[str, Any]) -> str:
    if "$ref" in p:
        return str(p["$ref"]).rsplit(":", 1)[-1].rsplit("/", 1)[-1]
    if p.get("type") == "array":
        return f"list[{_type_text(p['items'])}]"
    if p.get("type") == "object":
        return f"map[{_type_text(p.get('additionalProperties', {}))}]"
    return str(p.get("type", "any"))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"


def _adoption(entry: registry.Resource, provider: type[PlatformCalls[Any, Any, Any]]) -> list[str]:
    noun = provider.noun
    lines = ["## Adoption", "", f"To manage an existing {noun} instead of creating one, declare it as it is and "
             f"set `adopt_id` to its ID; `pulumi up` reads it, checks it against the declaration (it lists the "
             f"differences and changes nothing if they differ) and records it without creating anything, once it "
             f"has reached its `wait_for` where it has one (one that failed or stopped first is an error, and is "
             f"left as it is: it is not this resource's to delete). "
             f"`adopt_id` is local: removing it later changes nothing (`pulumi import` does not work for "
             f"dynamic resources, pulumi/pulumi#16175).", "", "## Ownership", ""]
    mark = entry.ownership_text()  # where the platform keeps the owner mark (the registry's prose)
    lines.append(f"The provider marks every {noun} it creates with the stack and resource that own it: "
                 f"{mark or 'see ownership.py'} A create first looks for objects of its name: one with this "
                 f"resource's mark, or, where no mark can be read, one under the name the provider chose for this "
                 f"resource (a hash of the stack's identity and the URN; a name set in the program proves nothing), "
                 f"is one no state records (the object a replacement created first replaces, or one a killed "
                 f"`pulumi up` left), and is deleted before the new one is made: a create never takes an object "
                 f"over by its mark; a name held by anything else is an error that says whose it is.")
    return [*lines, ""]


# The settings table of the configuration page, between these lines, is generated from the table of
# settings (`pulumi_mltrain/settings.py`).
SETTINGS_PAGE = "docs/installation-configuration.md"
SETTINGS_BEGIN = "<!-- settings: generated by `python -m tools.generate` from pulumi_mltrain/settings.py -->"
SETTINGS_END = "<!-- end of settings -->"


def settings_table() -> list[str]:
    from pulumi_mltrain.settings import SETTINGS

    lines = ["| config key | environment | default | `pulumi_mltrain.Provider` | meaning |", "|---|---|---|---|---|"]
    for s in SETTINGS:
        key = f"`{s.config_key}`" + (" (secret)" if s.secret else "")
        env = ", ".join(f"`{v}`" for v in s.environment) + (" (JSON)" if s.kind == "map" else "")
        default = f"`{s.default_text}`" if s.default_text and s.shown_default is None else s.default_text
        argument = "(plugin only)" if s.plugin_only else f"`{s.name}`"
        meaning = s.description + (f" ([see]({s.see}))" if s.see else "")
        lines.append(f"| {key} | {env} | {default} | {argument} | {meaning} |")
    return lines


def settings_page(text: str) -> str:
    """The configuration page with its settings table regenerated."""
    head, begin, rest = text.partition(SETTINGS_BEGIN)
    _, end, tail = rest.partition(SETTINGS_END)
    if not begin or not end:
        raise ValueError(f"{SETTINGS_PAGE} lacks the lines {SETTINGS_BEGIN!r} ... {SETTINGS_END!r}")
    return "\n".join([head + begin, *settings_table(), end + tail])

