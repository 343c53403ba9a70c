"""The stack identity: a random value made once per stack and kept in the stack's own state.

Project and stack names are not unique: two engineers, CI and a fork can each have a `dev` stack of
the same project in different backends, all pointed at one shared account. The identity tells them
apart, because it lives in the state, and a state belongs to exactly one backend. It is made by the
first `pulumi up` (a hidden resource every mltrain resource depends on), read back unchanged by every
later run, and goes away with `pulumi destroy`.

The value feeds the owner marks (`ownership.py`) and the default physical names.
"""

from __future__ import annotations

import secrets
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, Resource, ResourceProvider

RESOURCE_NAME = "mltrain-stack-identity"


class StackIdentityProvider(ResourceProvider):
    """Nothing remote: the value is the resource's ID, kept in the state."""

    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> CreateResult:
        value = f"st-{secrets.token_hex(8)}"
        return CreateResult(value, {"value": value})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        return ReadResult(id_, {"value": id_})

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        return DiffResult(changes=False)

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        return None


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
