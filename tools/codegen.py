"""Generate the typed, import-light program side (`program/<family>_resources.py`) from the specs.

Each resource class gets explicit keyword-only `pulumi.Input[...]` parameters with a docstring per
argument, typed `pulumi.Output[...]` attributes and a static field table; each nested model becomes a
TypedDict of Inputs (`modelarts.ObsChannel(name=..., obs_url=...)` builds one), and its provider a
`DynamicProvider` subclass naming the registry's kind (`_TrainingJobProvider`), which stays in
`<family>/_resources.py`, the class path its states hold. The generated modules import only pulumi,
`program/resource.py` and `dynamic_provider.py`, so programs never load pydantic. Run
`python -m tools.generate` after changing a spec; a test fails when they are stale.
"""

from __future__ import annotations

import importlib
import re
import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, BeforeValidator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from pulumi_mltrain import registry
from pulumi_mltrain import spec as specs
from pulumi_mltrain.registry import FAMILIES, RESOURCES, Resource
from pulumi_mltrain.settings import CONFIG, Setting

_CHANGE = {
    "replace": "Changing it replaces the resource.",
    "update": "Changing it updates the resource in place.",
    "local": "Local: changing it only changes the provider's behaviour, nothing remote.",
    "record": "Recorded: a change is stored in the state only (the platform cannot change it); no new run.",
}


class _Types:
    """Renders annotations as Python type text and collects the nested models they use."""

    def __init__(self) -> None:
        self.models: list[type[BaseModel]] = []

    def text(self, ann: Any, inputs: bool) -> str:
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if origin in (typing.Union, types.UnionType):
            parts = [self.text(a, inputs) for a in args if a is not type(None)]
            if len(parts) < len(args):
                parts.append("None")
            return " | ".join(parts)
        if origin is typing.Annotated:
            lenient = any(isinstance(m, BeforeValidator) for m in ann.__metadata__)
            if lenient and typing.get_origin(args[0]) is typing.Literal:
                return "str"  # normalised by the provider (e.g. any case)
            return self.text(args[0], inputs)
        if origin is typing.Literal:
            return "Literal[" + ", ".join(f'"{a}"' for a in args) + "]"
        if origin is list:
            item = self.text(args[0], inputs)
            return f"Sequence[pulumi.Input[{item}]]" if inputs else f"list[{item}]"
        if origin is dict:
            item = self.text(args[1], inputs)
            return f"Mapping[str, pulumi.Input[{item}]]" if inputs else f"dict[str, {item}]"
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            self._add(ann)
            also = getattr(ann, "accepts_also", ()) if inputs else ()
            for other in also:
                self._add(other)
            return " | ".join([ann.__name__, *(o.__name__ for o in also)])
        if ann is Any:
            return "Any"
        if isinstance(ann, type) and ann in (str, int, float, bool):
            return ann.__name__
        raise TypeError(f"codegen: no Python type for annotation {ann!r}")

    def _add(self, model: type[BaseModel]) -> None:
        if model in self.models:
            return
        for info in model.model_fields.values():
            self.text(info.annotation, True)  # nested models first: they are defined before use
        self.models.append(model)


def allowed(ann: Any) -> list[Any]:
    """The allowed values of a Literal field, wherever the Literal sits in the annotation."""
    if typing.get_origin(ann) is typing.Literal:
        return list(typing.get_args(ann))
    for arg in typing.get_args(ann):
        found = allowed(arg)
        if found:
            return found
    return []


def default_of(info: FieldInfo) -> tuple[bool, Any]:
    """(whether the field has a default, the default value)."""
    if info.default_factory is not None:
        return True, info.default_factory()  # type: ignore[call-arg]
    if info.default is PydanticUndefined:
        return False, None
    return True, info.default


def _doc_line(name: str, info: FieldInfo, on_change: str | None, autonamed: bool) -> str:
    parts = [(info.description or "").strip()]
    values = allowed(info.annotation)
    if values:
        parts.append("Allowed: " + ", ".join(repr(v) for v in values) + ".")
    has_default, value = default_of(info)
    if autonamed:
        parts.append("Optional: the provider chooses it when unset.")
    elif not has_default:
        parts.append("Required.")
    elif value is not None:
        parts.append(f"Default: {value!r}.")
    if on_change:
        parts.append(_CHANGE.get(on_change, ""))
    return f"{name}: " + " ".join(p for p in parts if p)


def _wrap(line: str, indent: str, width: int = 110) -> list[str]:
    words, out, current = line.split(), [], indent
    for word in words:
        if len(current) + len(word) + 1 > width and current.strip():
            out.append(current.rstrip())
            current = indent + "    "
        current += word + " "
    out.append(current.rstrip())
    return out


def _table(name: str, value: tuple[str, ...] | dict[str, Any]) -> list[str]:
    """A class attribute of the static field table, one entry per line."""
    if isinstance(value, dict):
        items = [f'        "{k}": {v!r},'.replace("'", '"') for k, v in value.items()]
        return [f"    {name} = {{", *items, "    }"] if items else [f"    {name} = {{}}"]
    if len(value) == 1:
        return [f'    {name} = ("{value[0]}",)']
    return [f"    {name} = (", *[f'        "{v}",' for v in value], "    )"]


def _typed_dict(model: type[BaseModel], tt: _Types) -> list[str]:
    doc = (model.__doc__ or f"{model.__name__} (a nested input).").strip().splitlines()[0]
    lines = [f"class {model.__name__}(TypedDict):", f'    """{doc}', "", "    Keys:"]
    body = []
    for name, info in model.model_fields.items():
        lines += _wrap(_doc_line(name, info, None, False), "        ")
        kind = tt.text(info.annotation, True)
        optional = "None" in kind.split(" | ")
        base = " | ".join(p for p in kind.split(" | ") if p != "None")
        typ = f"pulumi.Input[{base}]" + (" | None" if optional else "")
        has_default, _ = default_of(info)
        body.append(f"    {name}: NotRequired[{typ}]" if has_default or optional else f"    {name}: {typ}")
    lines += ['    """', "", *body, "", ""]
    return lines


def _attr_type(tt: _Types, info: FieldInfo, is_input: bool, name: str, present: bool) -> str:
    kind = tt.text(info.annotation, False)
    parts = kind.split(" | ")
    has_default, value = default_of(info)
    if present or (is_input and (name == "name" or not has_default or value is not None)):
        parts = [p for p in parts if p != "None"]  # always set once the resource exists
    return " | ".join(parts)


def _resource(decl: Resource, tt: _Types) -> list[str]:
    provider = decl.calls()
    spec, outs = provider.spec_type, provider.output_type
    ids = outs.id_fields()
    pickled = _pickled(decl)
    lines = [f'class {decl.name}(MltrainResource, module="{decl.family}", name="{decl.name}"):',
             f'    """{decl.summary}', "",
             *_wrap(f"Outputs (besides every input): {', '.join(outs.model_fields)}.", "    "),
             "",
             *[line for field, reason in getattr(spec, "absent_inputs", {}).items()
               for line in [*_wrap(f"Not available here: {field} {reason}.", "    "), ""]],
             *_wrap("Every input reads as an Output: the value given, the default the provider filled in, or "
                    "None for an optional input left out (the provider never fills those in).", "    "),
             '    """', "",
             f'    _kind = "{decl.name}"',
             f"    _provider_class = {pickled}",
             *_table("_inputs", tuple(spec.model_fields)),
             *_table("_outputs", tuple(outs.model_fields)),
             *_table("_id_fields", tuple(ids))]
    defaults = {n: default_of(i)[1] for n, i in spec.model_fields.items() if default_of(i)[0]}
    lines += _table("_defaults", {n: v for n, v in defaults.items() if v is not None})
    implied = tuple(n for n, i in spec.model_fields.items() if specs.meta(i, n).implied_by)
    if implied:
        lines += _table("_implied", implied)
    # Seen by type checkers only: the SDK would read runtime annotations as output types to convert to.
    lines += ["", "    if TYPE_CHECKING:"]
    for name, info in spec.model_fields.items():
        lines.append(f"        {name}: pulumi.Output[{_attr_type(tt, info, True, name, False)}]")
    for name, info in outs.model_fields.items():
        if name not in spec.model_fields:
            present = name in outs.present_fields()
            lines.append(f"        {name}: pulumi.Output[{_attr_type(tt, info, False, name, present)}]")
    params = ["        self,", "        resource_name: str,", "        *,"]
    docs: list[str] = []
    for name, info in spec.model_fields.items():
        kind = tt.text(info.annotation, True)
        base = " | ".join(p for p in kind.split(" | ") if p != "None")
        autonamed = name == "name"  # every `name` is chosen by the provider when unset
        docs += _wrap(_doc_line(name, info, specs.meta(info, name).on_change, autonamed), "            ")
        if info.is_required() and not autonamed:
            params.append(f"        {name}: pulumi.Input[{base}],")
        else:
            params.append(f"        {name}: pulumi.Input[{base}] | None = None,")
    params.append("        opts: pulumi.ResourceOptions | None = None,")
    lines += ["", "    def __init__(", *params, "    ) -> None:",
              f'        """Declare a {decl.family}.{decl.name}.', "", "        Args:",
              "            resource_name: The Pulumi resource name (unique in the stack).",
              *docs,
              "            opts: Pulumi resource options; `custom_timeouts` bound create/update/delete.",
              '        """',
              "        self._register(resource_name, {"]
    lines += [f'            "{name}": {name},' for name in spec.model_fields]
    lines += ["        }, opts)", "", ""]
    return lines


def _pickled(decl: Resource) -> str:
    """The name of a resource's pickled provider class: every released state names it, never rename it."""
    return f"_{decl.name}Provider"


def _shared(decl: Resource) -> str:
    """The name of a resource's shared provider instance, which states pickle: never rename it."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", decl.name).lower()


def providers_text(family: str) -> str:
    """`<family>/_resources.py`: the family's pickled dynamic providers, at the class paths states name."""
    decls = [d for d in RESOURCES if d.family == family]
    lines = [f'"""The {family} resources\' dynamic providers. GENERATED by `python -m tools.generate` from the',
             "registry: do not edit.", "",
             "Every state pickles its resource's provider as a reference to this module: the states of 0.1 and",
             f"0.2 a class (`pulumi_mltrain.{family}._resources:{_pickled(decls[0])}`), later ones the class's",
             f"shared instance (`{_shared(decls[0])}`). Both stay here, under these names. The typed resource",
             f"classes that use them are the program side's (`program/{family}_resources.py`).",
             '"""', "", "from __future__ import annotations", "", "from ..dynamic_provider import DynamicProvider"]
    for decl in decls:
        lines += ["", "", f"class {_pickled(decl)}(DynamicProvider):",
                  '    """Pickled into the states of 0.1 and 0.2 as a class reference: states name this path."""',
                  "", f'    kind = "{decl.kind}"', f'    shared_as = "{_shared(decl)}"']
    lines += ["", ""]
    lines += [f"{_shared(decl)} = {_pickled(decl)}()  # pickled by name into the states: keep it" for decl in decls]
    return "\n".join(lines) + "\n"


def module_text(family: str) -> str:
    """`program/<family>_resources.py`: the typed resource classes of one family (alaya, modelarts)."""
    decls = [d for d in RESOURCES if d.family == family]
    tt = _Types()
    resources: list[str] = []
    for decl in decls:
        resources += _resource(decl, tt)
    nested: list[str] = []
    for model in tt.models:
        nested += _typed_dict(model, tt)
    names = sorted([d.name for d in decls] + [m.__name__ for m in tt.models])
    head = [
        f'"""Typed program-side API of the {family} resources. GENERATED by `python -m tools.generate` from',
        'the specs: do not edit."""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Mapping, Sequence",
        "from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict",
        "",
        "import pulumi",
        "",
        *_import_line(f"..{family}._resources", sorted(_pickled(d) for d in decls), ""),
        "from .resource import MltrainResource",
        "",
        "__all__ = [", *[f'    "{n}",' for n in names], "]",
        "",
        "",
    ]
    text = "\n".join(head + nested + resources).rstrip() + "\n"
    if "Any" not in text.split("import pulumi", 1)[1].replace("from typing import Any", ""):
        text = text.replace("TYPE_CHECKING, Any, Literal", "TYPE_CHECKING, Literal")
    return text


def _import_line(module: str, names: list[str], indent: str) -> list[str]:
    """One `from <relative module> import ...` line as ruff's isort writes it."""
    line = f"{indent}from {module} import {', '.join(names)}"
    if len(line) <= 120:
        return [line]
    return [f"{indent}from {module} import (", *[f"{indent}    {n}," for n in names], f"{indent})"]


def _import(module: str, names: list[str]) -> list[str]:
    """An import inside `if TYPE_CHECKING:`."""
    return _import_line(module, names, "    ")


def _relative(module: str, family: str) -> str:
    """`module` as the family package names it: `.catalog` in the package, `..program.alaya_functions` for a
    module of the program side."""
    prefix = f"pulumi_mltrain.{family}."
    if module.startswith(prefix):
        return "." + module.removeprefix(prefix)
    return ".." + module.removeprefix("pulumi_mltrain.")


def init_text(family: str) -> str:
    """The family's package `__init__.py`: its resources, nested types and functions, each loaded on first
    use so that a program imports only what it uses."""
    where: dict[str, str] = {}
    for name in _exported(module_text(family)):
        where[name] = f"..program.{family}_resources"
    for fn in registry.functions().values():
        if fn.token.split(":")[1] != family:
            continue
        found = importlib.import_module(fn.func.__module__)
        for name in (fn.func.__name__, f"{fn.func.__name__}_output"):
            if hasattr(found, name):
                where[name] = _relative(fn.func.__module__, family)
    # ruff's isort order: the furthest relative imports first
    modules = sorted(set(where.values()), key=lambda m: (-(len(m) - len(m.lstrip("."))), m))
    lines = [f'"""{FAMILIES[family].rstrip()}', '"""', "",
             "# GENERATED by `python -m tools.generate` from the registry (pulumi_mltrain/registry.py): do not edit.",
             "", "from __future__ import annotations", "", "import importlib",
             "from typing import TYPE_CHECKING, Any", "", "if TYPE_CHECKING:"]
    for module in modules:
        lines += _import(module, sorted(n for n, m in where.items() if m == module))
    lines += ["", "_MODULES = {", *[f'    "{n}": "{where[n]}",' for n in sorted(where)], "}",
              "__all__ = [", *[f'    "{n}",' for n in sorted(where)], "]", "", "",
              "def __getattr__(name: str) -> Any:",
              '    """Classes and functions on first use: the functions load the client (pydantic, httpx) only',
              '    when a program calls them."""',
              "    module = _MODULES.get(name)",
              "    if module is None:",
              '        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")',
              "    return getattr(importlib.import_module(module, __name__), name)", ""]
    return "\n".join(lines)


def _exported(text: str) -> list[str]:
    """The `__all__` names of a generated `program/<family>_resources.py`."""
    block = text.split("__all__ = [", 1)[1].split("]", 1)[0]
    return [part.strip().strip('",') for part in block.split() if part.strip().strip('",')]


_SETTING_TYPES = {"string": "str", "boolean": "bool", "number": "float", "integer": "int",
                  "map": "Mapping[str, pulumi.Input[str]]"}


def _setting_doc(setting: Setting) -> str:
    default = setting.default_text
    where = f"`{setting.config_key}`, {setting.env}" + (f", default {default}" if default else "")
    return f"{setting.name}: {setting.description} ({where}{'; kept secret' if setting.secret else ''})"


def provider_text() -> str:
    """`pulumi_mltrain/program/explicit_provider.py`: the explicit provider of the dynamic resources, one typed
    keyword argument per setting of the table (`pulumi_mltrain/settings.py`)."""
    params = [f"        {s.name}: pulumi.Input[{_SETTING_TYPES[s.kind]}] | None = None," for s in CONFIG]
    docs = [line for s in CONFIG for line in _wrap(_setting_doc(s), "            ")]
    lines = [
        '"""The explicit provider of the dynamic resources. GENERATED by `python -m tools.generate` from the',
        'table of settings (`settings.py`): do not edit."""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Mapping",
        "from typing import Any",
        "",
        "import pulumi",
        "",
        "from ..settings import CONFIG, CREDENTIALS",
        "",
        "_NAMES = frozenset(s.name for s in CONFIG)",
        "",
        "",
        "class Provider(pulumi.ProviderResource):",
        '    """Settings for one account/region/endpoint, used as `opts=pulumi.ResourceOptions(provider=...)`.',
        "",
        "    It takes the same settings as the `mltrain:` config keys (python names). Credentials are always",
        "    wrapped as secrets. It registers nothing with the engine itself: the resources that use it carry",
        "    its settings, so `pulumi preview` shows each resource's account change as a replacement.",
        '    """',
        "",
        "    def __init__(",
        "        self,",
        "        resource_name: str,",
        "        *,",
        *params,
        "    ) -> None:",
        '        """Declare the settings of one account.',
        "",
        "        Args:",
        "            resource_name: The name of this provider in the program.",
        *docs,
        '        """',
        "        # Deliberately no super().__init__(): nothing is registered (there is no `mltrain` plugin for",
        "        # the engine to load); this object only carries settings to the resources that name it.",
        "        given = {k: v for k, v in locals().items() if k in _NAMES and v is not None}",
        "        self.resource_name = resource_name",
        '        self.package = "mltrain"',
        "        self.settings: dict[str, Any] = {",
        "            k: (pulumi.Output.secret(v) if k in CREDENTIALS else v) for k, v in given.items()}",
        "",
    ]
    return "\n".join(lines)


def result_types_text(family: str) -> str:
    """The TypedDicts the family's program-time functions return, from the result models that schema.json
    declares (`registry.function`): one declaration of each result's shape, for the type checker too."""
    tt = _Types()
    for fn in registry.functions().values():
        if fn.token.split(":")[1] == family and fn.items is None:
            tt._add(fn.outputs)
    body: list[str] = []
    for model in tt.models:
        doc = (model.__doc__ or f"{model.__name__} (a function result).").strip().splitlines()[0]
        body += [f"class {model.__name__}(TypedDict):", f'    """{doc}', "", "    Keys:"]
        for name, info in model.model_fields.items():
            body += _wrap(_doc_line(name, info, None, False), "        ")
        body += ['    """', ""]
        body += [f"    {name}: {tt.text(info.annotation, False)}" for name, info in model.model_fields.items()]
        body += ["", ""]
    names = sorted(m.__name__ for m in tt.models)
    head = [f'"""The results of the {family} program-time functions. GENERATED by `python -m tools.generate` from',
            f'their models in {family}/function_schema.py: do not edit."""', "",
            "from __future__ import annotations", "", "from typing import Any, TypedDict", "",
            "__all__ = [", *[f'    "{n}",' for n in names], "]", "", ""]
    text = "\n".join(head + body).rstrip() + "\n"
    if "Any]" not in text and "Any " not in text.split("TypedDict\n", 1)[1]:
        text = text.replace("from typing import Any, TypedDict", "from typing import TypedDict")
    return text


def outputs() -> Iterator[tuple[str, str]]:
    """(path under the repository root, text) of every generated module."""
    yield "provider/pulumi_mltrain/program/explicit_provider.py", provider_text()
    for family in sorted({d.family for d in RESOURCES}):
        yield f"provider/pulumi_mltrain/{family}/_resources.py", providers_text(family)
        yield f"provider/pulumi_mltrain/program/{family}_resources.py", module_text(family)
        yield f"provider/pulumi_mltrain/{family}/__init__.py", init_text(family)
        yield f"provider/pulumi_mltrain/program/{family}_function_types.py", result_types_text(family)

