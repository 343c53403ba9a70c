"""The stack identity's resource, declared by the program: a random value made once per stack and kept
in the stack's own state.

Project and stack names are not unique: two engineers, CI and a fork can each have a `dev` stack of
the same project in different backends, all pointed at one shared account. The identity tells them
apart, because it lives in the state, and a state belongs to exactly one backend. It is made by the
first `pulumi up` (a hidden resource every mltrain resource depends on), read back unchanged by every
later run, and goes away with `pulumi destroy`. Its provider (`pulumi_mltrain.stack_identity`) runs in
the provider process and keeps the class path that states name.

The value feeds the owner marks (`ownership.py`) and the default physical names.
"""

from __future__ import annotations

import pulumi
from pulumi.dynamic import Resource

from ..stack_identity import StackIdentityProvider

RESOURCE_NAME = "mltrain-stack-identity"


class StackIdentity(Resource, module="mltrain", name="StackIdentity"):
    value: pulumi.Output[str]

    def __init__(self) -> None:
        super().__init__(StackIdentityProvider(), RESOURCE_NAME, {"value": None},
                         pulumi.ResourceOptions(retain_on_delete=False))


_identity: StackIdentity | None = None


def stack_identity() -> pulumi.Output[str]:
    """This stack's identity (one hidden resource per program, made on first use)."""
    global _identity
    if _identity is None:
        _identity = StackIdentity()
    return _identity.value
