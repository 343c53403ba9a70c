"""Build the Pulumi package schema (schema.json) from the registry and the specs.

Property names are camelCase, as Pulumi schemas spell them (`productCode`), derived from the spec's
field names by `spec.property_name`; each language's code generator maps them to its own style (the
Python SDK back to the field names). The native plugin translates them to the field names and back.
`python -m tools.generate` writes it (and the wheel's copy); a test fails when they are stale.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from pulumi_mltrain import __version__, registry
from pulumi_mltrain import spec as specs
from pulumi_mltrain.registry import PACKAGE, PYTHON_PACKAGE
from pulumi_mltrain.settings import CONFIG, SETTINGS, Setting

# The plugin's TypeScript SDK (sdk/nodejs) is this npm package; its Go SDK (sdk/go) is the module
# GO_MODULE, whose package `mltrain` holds the resources (GO_MODULE/mltrain/alaya, .../modelarts).
NODEJS_PACKAGE = "@mltrain/pulumi-mltrain"
GO_MODULE = "github.com/mltrain/pulumi-mltrain/sdk/go"
# Where the package is published: the repository, whose GitHub release of each version carries the
# plugin's archives (pulumi-resource-mltrain-v<version>-<os>-<arch>.tar.gz, written by scripts/release.sh
# and uploaded by .github/workflows/release.yml). The URL names this version's release itself rather than
# `v${VERSION}`, which the engine would fill in at a download: `pulumi import` writes the URL into the
# program it generates as an HCL string, where `${VERSION}` reads as a variable, and its code generation
# then fails (Pulumi v3.274.1, pkg/importer/language.go). `github://api.github.com/mltrain` would go
# through GitHub's API, limited to 60 requests an hour without a token: too few for a CI fleet.
REPOSITORY = "https://github.com/mltrain/pulumi-mltrain"
PLUGIN_DOWNLOAD_URL = f"{REPOSITORY}/releases/download/v{__version__}"
LOGO_URL = "https://raw.githubusercontent.com/mltrain/pulumi-mltrain/main/docs/logo.svg"

# Enum values that are no identifier get a name, which the SDKs' enum members need.
_SYMBOLS = {"<": "LessThan", "<=": "LessThanOrEqual", ">": "GreaterThan", ">=": "GreaterThanOrEqual",
            "==": "Equal"}


class _Types:
    """Collects nested object types under #/types, named after their module."""

    def __init__(self) -> None:
        self.types: dict[str, Any] = {}

    def prop(self, schema: dict[str, Any], defs: dict[str, Any], module: str, name: str = "Value",
             nested: bool = False) -> dict[str, Any]:
        """One property; `name` names the enum type a closed set of values becomes (e.g. TrainingJobWaitFor).

        `nested`: a property of an object type. Its closed set of values stays a primitive type (the values
        go into the description), never an enum type: every object type is also an output (a resource's
        outputs repeat its inputs, and `StorageMount.mount` is the object a job's `storageMounts` take),
        and Pulumi YAML (v1.25.0) refuses to assign any enum-typed value to an enum-typed property, the
        same enum included (`Cannot assign 'mltrain:alaya:NasMountStorageType' to
        'mltrain:alaya:NasMountStorageType'`: `isAssignable` in pkg/pulumiyaml/analyser.go compares an
        enum's values only with literals), so `storageMounts: [${data.mount}]` would fail YAML's type
        check. A primitive there types alike on both sides, in every SDK."""
        if "anyOf" in schema:
            options = [s for s in schema["anyOf"] if s.get("type") != "null"]
            out = self.prop(options[0], defs, module, name, nested) if len(options) == 1 else {"type": "string"}
        elif "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            token = f"{PACKAGE}:{module}:{name}"
            if token not in self.types:
                self.types[token] = {}
                self.types[token] = self.object(defs[name], defs, module)
            out = {"$ref": f"#/types/{token}"}
        elif ("enum" in schema or "const" in schema) and nested:
            out = {"type": _json_type((schema.get("enum") or [schema.get("const")])[0])}
        elif "enum" in schema or "const" in schema:
            out = {"$ref": f"#/types/{self.enum(name, schema.get('enum') or [schema['const']], module)}"}
        elif schema.get("type") == "array":
            out = {"type": "array", "items": self.prop(schema.get("items", {}), defs, module, name, nested)}
        elif schema.get("type") == "object":
            extra = schema.get("additionalProperties")
            item = (self.prop(extra, defs, module, name, nested) if isinstance(extra, dict)
                    else {"$ref": "pulumi.json#/Any"})
            out = {"type": "object", "additionalProperties": item}
        elif schema.get("type") in ("string", "integer", "number", "boolean"):
            out = {"type": schema["type"]}
        else:
            out = {"$ref": "pulumi.json#/Any"}
        if schema.get("description"):
            out["description"] = schema["description"]
        return out

    def enum(self, name: str, values: list[Any], module: str) -> str:
        """A Pulumi enum type (`type` + `enum` of values) for a closed set of primitive values."""
        token = f"{PACKAGE}:{module}:{name}"
        spec = {"type": _json_type(values[0]),
                "enum": [{"value": v, **({"name": _SYMBOLS[v]} if v in _SYMBOLS else {})} for v in values]}
        if self.types.get(token, spec) != spec:
            raise ValueError(f"two different value sets would both be the enum type {token}; rename a field")
        self.types[token] = spec
        return token

    def object(self, schema: dict[str, Any], defs: dict[str, Any], module: str) -> dict[str, Any]:
        title = str(schema.get("title", "Object"))
        props: dict[str, Any] = {}
        for name, p in schema.get("properties", {}).items():
            prop = props[specs.property_name(name)] = self.prop(p, defs, module, title + _camel(name), nested=True)
            _add_facts(prop, p, values=True)
        out: dict[str, Any] = {"type": "object", "properties": props}
        if schema.get("description"):
            out["description"] = schema["description"]
        if schema.get("required"):
            out["required"] = [specs.property_name(n) for n in schema["required"]]
        return out


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number"}.get(type(value), "string")


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def plain_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A field's JSON schema without the `null` of an optional (constraints sit on the other option)."""
    options = [o for o in schema.get("anyOf", []) if o.get("type") != "null"]
    if len(options) == 1:
        return {**{k: v for k, v in schema.items() if k != "anyOf"}, **options[0]}
    return schema


_BOUNDS = (("minimum", ">= {}"), ("exclusiveMinimum", "> {}"), ("maximum", "<= {}"), ("exclusiveMaximum", "< {}"),
           ("minLength", "at least {} character(s)"), ("maxLength", "at most {} characters"),
           ("minItems", "at least {} items"), ("maxItems", "at most {} items"), ("pattern", "matches `{}`"))


def allowed_values(schema: dict[str, Any]) -> list[str]:
    """What pydantic accepts, as short phrases: the enum values or the bounds of a field's schema."""
    plain = plain_schema(schema)
    values = plain.get("enum") or ([plain["const"]] if "const" in plain else [])
    if values:
        return ["one of " + ", ".join(f"`{v}`" for v in values)]
    return [text.format(plain[key]) for key, text in _BOUNDS if key in plain]


def _add_facts(prop: dict[str, Any], schema: dict[str, Any], values: bool = False, implied: bool = False) -> None:
    """The default and the bounds; `values`: a property of an object type, with the allowed values too
    where they are no enum type. `implied`: the default follows from another field (its description says).

    A resource's input says its default in its description, with no `default` key: generated SDKs would
    send that value as if it were declared, so every program would register it and the engine keep a
    property dependency of it in each resource's state, and an SDK would pin the defaults of the
    provider version it was generated with. The provider's check fills the defaults, for every language
    and both forms, from the spec alone. An object type's fields keep the key (documented there)."""
    default = None if implied else schema.get("default")
    if isinstance(default, str | int | float | bool) and "secret" not in prop:
        if values:
            prop["default"] = default
        elif default != "" and "default" not in prop.get("description", "").lower():
            shown = default if isinstance(default, str) else json.dumps(default)
            prop["description"] = (prop.get("description", "") + f" Default: `{shown}`.").strip()
    enum_typed = "$ref" in prop or "$ref" in prop.get("items", {})
    bounds = [b for b in allowed_values(schema) if not b.startswith("one of") or (values and not enum_typed)]
    if bounds:
        prop["description"] = (prop.get("description", "") + " Allowed: " + ", ".join(bounds) + ".").strip()


def _without_replace(prop: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in prop.items() if k != "replaceOnChanges"}


def _properties(model: type[BaseModel], types: _Types, module: str) -> tuple[dict[str, Any], list[str]]:
    js = model.model_json_schema(by_alias=False)
    defs = js.get("$defs", {})
    props: dict[str, Any] = {}
    owner = model.__name__.removesuffix("Spec").removesuffix("Outputs").removesuffix("Inputs")
    for name, info in model.model_fields.items():
        prop = types.prop(js["properties"][name], defs, module, owner + _camel(name))
        m = specs.meta(info, name)
        if m.on_change == "replace":
            prop["replaceOnChanges"] = True
        if m.secret:
            prop["secret"] = True
        if info.description:
            prop["description"] = info.description
        _add_facts(prop, js["properties"][name], implied=bool(m.implied_by))
        props[specs.property_name(name)] = prop
    # `name` is chosen by the provider when unset (autonaming), so it is never a required input.
    required = [specs.property_name(n) for n, i in model.model_fields.items() if i.is_required() and n != "name"]
    return props, required


def build() -> dict[str, Any]:
    types = _Types()
    resources: dict[str, Any] = {}
    for res in sorted(registry.RESOURCES, key=lambda r: r.kind):
        provider = res.calls()
        inputs, required_inputs = _properties(provider.spec_type, types, res.family)
        outputs, _ = _properties(provider.output_type, types, res.family)
        resources[res.token] = {
            "description": " ".join([res.summary, *(f"Not available here: {specs.property_name(f)} {reason}."
                                                     for f, reason in provider.spec_type.absent_inputs.items())]),
            "inputProperties": inputs,
            "requiredInputs": required_inputs,
            # `replaceOnChanges` stays on the input properties, where it documents what a change does.
            # Pulumi's SDK generators read it from the output properties (`Resource.ReplaceOnChanges`
            # in pkg/codegen/schema) and turn it into a `replace_on_changes` option on every resource,
            # which the engine stores with each resource's state (about 250 B per training job); the
            # provider's own diff already names every replacing field (as the dynamic form and Pulumi
            # YAML, which ignores the schema's flag, rely on), so the option would decide nothing.
            "properties": {**{k: _without_replace(v) for k, v in inputs.items()}, **outputs},
            "required": [n for n in inputs if n in required_inputs or n == "name"]
            + [specs.property_name(n) for n in provider.output_type.present_fields()
               if specs.property_name(n) not in inputs],
        }
    functions: dict[str, Any] = {}
    for token, fn in registry.functions().items():
        module = token.split(":")[1]
        ins, req = _properties(fn.inputs, types, module)
        outs, outs_req = _properties(fn.outputs, types, module)
        functions[token] = {
            "description": fn.description,
            "inputs": {"type": "object", "properties": ins, "required": req},
            "outputs": ({k: v for k, v in outs[specs.property_name(fn.items)].items() if k != "description"}
                        if fn.items
                        else {"type": "object", "properties": outs, "required": outs_req}),
        }
    return {
        "name": PACKAGE,
        "displayName": "ML training (Alaya NeW, Huawei ModelArts)",
        "version": __version__,
        "description": "Pulumi resources for ML training platforms: Alaya NeW distributed training and Huawei "
        "Cloud ModelArts v2 (pulumi-mltrain), as Python dynamic resources and as the provider plugin `mltrain`.",
        # `category/` and `kind/` are the Pulumi Registry's own keywords (its listing and filters).
        "keywords": ["pulumi", "mltrain", "alaya", "modelarts", "training", "category/cloud", "kind/native"],
        "license": "Apache-2.0",
        "publisher": "mltrain",
        "homepage": REPOSITORY,
        "repository": REPOSITORY,
        "logoUrl": LOGO_URL,
        "pluginDownloadURL": PLUGIN_DOWNLOAD_URL,
        "config": {"variables": _config_variables()},
        "provider": _provider_section(),
        "types": dict(sorted(types.types.items())),
        "resources": resources,
        "functions": functions,
        "language": {
            "nodejs": {"packageName": NODEJS_PACKAGE, "respectSchemaVersion": True},
            "go": {"importBasePath": GO_MODULE + "/" + PACKAGE, "respectSchemaVersion": True,
                   "generateResourceContainerTypes": True},
            "python": {
            "packageName": PYTHON_PACKAGE,
            "respectSchemaVersion": True,
            "pyproject": {"enabled": True},
            "inputTypes": "classes-and-dicts",
        }},
    }


def _variable(setting: Setting) -> dict[str, Any]:
    """One setting of the table (`pulumi_mltrain/settings.py`) as a schema variable."""
    kinds = {"string": "string", "boolean": "boolean", "number": "number", "integer": "integer"}
    entry: dict[str, Any] = ({"type": "object", "additionalProperties": {"type": "string"}} if setting.kind == "map"
                             else {"type": kinds[setting.kind]})
    fallback = f" Environment fallback: {', '.join(setting.environment)}." if setting.environment else ""
    entry["description"] = setting.description + fallback
    if setting.secret:
        entry["secret"] = True
    return entry


def _config_variables() -> dict[str, Any]:
    """The stack config (`mltrain:*`): every setting of the table but the plugin's own."""
    return {s.key: _variable(s) for s in CONFIG}


def _provider_section() -> dict[str, Any]:
    """The explicit `mltrain` provider of the native plugin: the same settings as the stack config, and
    the plugin's own (`stackIdentity`)."""
    variables = {s.key: _variable(s) for s in SETTINGS}
    return {
        "description": "Settings for one account, region or endpoint (native plugin `mltrain`): the same "
        "settings as the `mltrain:` stack config keys.",
        "inputProperties": variables,
        "properties": {k: v for k, v in variables.items()},
    }


def dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"

