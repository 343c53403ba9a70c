"""The stack identity's provider, at the class path that states name
(`pulumi_mltrain.stack_identity:StackIdentityProvider`, pickled into every stack's state since 0.2):
it must stay here, and the program side must keep pickling it under this path.

The identity is the provider's ID, made once by the first `pulumi up` and kept in the state; the
resource that a program declares for it is `program/stack_identity.py`.
"""

from __future__ import annotations

import secrets
from typing import Any

from pulumi.dynamic import CreateResult, DiffResult, ReadResult, ResourceProvider


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
