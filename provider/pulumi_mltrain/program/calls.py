"""What the program-time functions share, in the Pulumi program's process.

Both platforms' functions (`alaya.get_products`, `modelarts.get_training_job_logs`, ...; their
modules are `program/<family>_functions.py`, ModelArts' catalogues `modelarts/catalog.py`) run with the
running stack's `mltrain:*` config (then the MLTRAIN_* environment), through the provider's own clients
and catalogue cache (`cache.py`), and report our errors as `ProgramError`; `output_form` gives their
`_output` form.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, TypeVar

from pulumi import RunError

from .. import cache, registry
from ..config import CONFIG_KEYS, Settings
from ..errors import MltrainError


class ProgramError(MltrainError, RunError):
    """An error of a program-time function: a `pulumi.RunError`, which the language host prints as
    its message alone (any other exception is printed after the program's traceback)."""


def program_settings() -> Settings:
    """The `mltrain:*` stack config of the running Pulumi program, then the MLTRAIN_* environment."""
    import pulumi

    config = pulumi.Config("mltrain")
    values = {full: config.get(full.split(":", 1)[1]) for full in CONFIG_KEYS.values()}
    return Settings.load(values)


def program_call(family: str, what: str, *args: Any, catalogue: bool = False) -> Any:
    """`what(*args)` on the `family` client (`registry.CLIENTS`) of the running program's
    settings; a `catalogue` answer may come from the cache. Callers get a copy they may change; our
    errors come as ProgramError (bugs keep their traceback)."""
    settings = program_settings()
    try:
        api = cache.client(family, settings.fingerprint(), lambda: registry.client_type(family)(settings))
        value = cache.cached(api, what, *args) if catalogue else getattr(api, what)(*args)
    except MltrainError as err:
        raise ProgramError(str(err)) from None
    return copy.deepcopy(value) if catalogue else value


T = TypeVar("T")


def output_form(func: Callable[..., T], *args: Any) -> Any:
    """`func(*args)` once every Input in `args` is known, as a `pulumi.Output` (Pulumi's `_output`
    convention); during a preview with unknown inputs the result stays unknown."""
    import pulumi

    return pulumi.Output.all(*args).apply(lambda values: func(*values))
