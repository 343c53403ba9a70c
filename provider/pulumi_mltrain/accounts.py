"""Accounts: which account, region and endpoint each resource lives in, explicit or from stack config.

`pulumi_mltrain.Provider` is the explicit form (like `aws.Provider`): several accounts, regions or
endpoints in one stack, each resource choosing one with `opts=pulumi.ResourceOptions(provider=...)`.
Its settings travel with the resource as internal inputs (credentials always secret, so encrypted
in the state) because the dynamic provider host has no provider resources of its own; the delete of
a resource therefore reaches the account that holds it, even after the program has moved on.

Every resource also records the identity of its account (endpoints and Huawei project/domain, never
credentials): a change of identity replaces the resource — the old object is deleted in the old
account and a new one is created in the new — instead of leaving it running, orphaned. A change of
credentials alone (key rotation) updates the stored settings in place and touches nothing remote.

What both sides share is here: the internal inputs' names, the settings of an explicit provider, what
tells accounts apart and how endpoints compare. The program side's part (the inputs a resource
registers, the warnings about the stack config) is `program/accounts.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import settings as table

# Internal inputs (kept in outputs too, so read and delete see them).
ACCOUNT_KEY = "__mltrain_account"  # identity: a change replaces the resource
SETTINGS_KEY = "__mltrain_provider"  # explicit provider settings (secret): a change updates in place

# Settings of an explicit provider: python name -> stack config key (the `mltrain:` keys), from the one
# table of settings (`settings.py`), which also gives `Provider` (generated: `program/explicit_provider.py`)
# its arguments.
SETTINGS: dict[str, str] = {s.name: s.key for s in table.CONFIG}
CREDENTIALS = table.CREDENTIALS
# What makes two accounts different, per platform (module of the resource type).
IDENTITY: dict[str, tuple[str, ...]] = {
    "alaya": ("alaya_endpoint",),
    "modelarts": ("iam_endpoint", "modelarts_endpoint", "project_id", "project_name", "domain", "region"),
}


def normalized(endpoint: str) -> str:
    """Endpoints compare without case in scheme and host and without a trailing slash."""
    scheme, sep, rest = endpoint.strip().partition("://")
    if not sep:
        return endpoint.strip().rstrip("/")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}".rstrip("/")


def explicit_settings(props: Mapping[str, Any]) -> dict[str, Any] | None:
    """The explicit provider settings a resource carries (as `Settings.load` takes them), or None."""
    value = props.get(SETTINGS_KEY)
    if not isinstance(value, Mapping):
        return None
    return {f"mltrain:{SETTINGS[k]}": v for k, v in value.items() if k in SETTINGS and v is not None}
