"""The program-time functions of schema.json as the plugin's invokes.

The functions are the dynamic form's own (`program/alaya_functions.py`, `program/modelarts_functions.py`,
the catalogues); they read the `mltrain:*` settings through `pulumi.Config`, which the plugin's
plugin sets to its provider's settings for the call. Arguments are checked by the schema's own models;
they arrive, and the results leave, in schema.json's camelCase names (`names.py`).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .. import registry
from ..errors import MltrainError
from . import names


def functions() -> dict[str, registry.Function]:
    return registry.functions()


def invoke(token: str, args: dict[str, Any], settings: dict[str, str]) -> dict[str, Any]:
    """Run one function with the provider's `settings` (`mltrain:<key>` strings) as the config it reads;
    a LookupError (unknown token, bad arguments, a platform error) is a failure the engine shows as
    the reason of the invoke."""
    import pulumi.runtime.config

    # The SDK keeps config in a context variable: set it in the thread that runs the function.
    pulumi.runtime.config.set_all_config(dict(settings), [])
    fn = functions().get(token)
    if fn is None:
        raise LookupError(f"unknown function {token}; this provider has {', '.join(sorted(functions()))}")
    try:
        parsed = fn.inputs.model_validate(names.arguments(args, fn.inputs))
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        raise LookupError(f"{token}: invalid arguments: {problems}") from None
    try:
        result = fn.func(**parsed.model_dump())
    except MltrainError as err:
        raise LookupError(f"{token}: {err}") from None
    return names.results({fn.items: result} if fn.items else dict(result), fn.outputs)
