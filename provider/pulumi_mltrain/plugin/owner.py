"""Who the plugin's resources belong to, and which account they live in.

The dynamic form keeps a random stack identity in a hidden resource of the state; a provider plugin
cannot register resources, so its identity is derived from what every request carries: the URN's
project and stack, or the provider's `stackIdentity` setting when it is given (for stacks of the same
project and stack name in different backends that share an account): `ownership.derived_stack_identity`,
which `mltrain-runs abandoned` derives again. The owner mark still names the resource's URN.

The account identity (endpoints, Huawei project/domain/region; never credentials) is kept in each
resource's state (`__mltrain_account`, as the dynamic form does): when a resource moves to another
explicit provider the engine only asks for a diff, and a changed identity forces a replace.
"""

from __future__ import annotations

from typing import Any

from ..accounts import IDENTITY, normalized
from ..config import Settings
from ..settings import BY_NAME

STACK_IDENTITY_VARIABLE = BY_NAME["stack_identity"].config_key  # mltrain:stackIdentity


def account_identity(settings: Settings, platform: str) -> dict[str, Any]:
    """The settings that tell two accounts of `platform` apart, endpoints normalized."""
    out: dict[str, Any] = {}
    for name in IDENTITY.get(platform, ()):
        value = getattr(settings, name, None)
        if value:
            out[name] = normalized(value) if name.endswith("endpoint") else value
    return out
