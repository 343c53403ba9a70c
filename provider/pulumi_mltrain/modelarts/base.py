"""What every ModelArts resource handler shares: its client and the checks at preview."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from ..errors import MltrainError
from ..handler import Handler
from ..ownership import Mark
from . import contract
from .catalog import configured, flavors
from .client import ModelArtsClient


class ModelArtsHandler(Handler):
    credential_keys: ClassVar[tuple[str, ...]] = (
        "mltrain:huaweiAccessKey", "mltrain:huaweiSecretKey", "mltrain:huaweiSecurityToken",
        "mltrain:huaweiUser", "mltrain:huaweiPassword", "mltrain:huaweiDomain")

    def api(self) -> ModelArtsClient:
        client: ModelArtsClient = self.client("modelarts", ModelArtsClient)
        return client

    def _check_remote(self, spec: Any) -> list[tuple[str, str]]:
        if not configured(self.settings):
            return []
        try:
            api = self.api()
            flavors(api)  # cached; a refused IAM login or token fails the preview here
        except MltrainError as err:
            refused = self._refused_credentials(err)
            if refused is not None:
                return refused
            print(f"[mltrain] catalogue check skipped: {err}", file=sys.stderr)
            return []
        return self._catalog_failures(api, spec)

    def _catalog_failures(self, api: ModelArtsClient, spec: Any) -> list[tuple[str, str]]:
        return []


def owner_tags(owner: Mark) -> list[dict[str, str]]:
    """The owner mark as ModelArts tags ([{key, value}])."""
    return [{"key": contract.OWNER_STACK, "value": owner.stack}, {"key": contract.OWNER_URN, "value": owner.urn}]


def mark_in(values: Any) -> Mark | None:
    """The owner mark in a map of annotations, or in a list of tags, if it is there."""
    if isinstance(values, list):
        values = {t.get("key"): t.get("value") for t in values if isinstance(t, dict)}
    if not isinstance(values, dict):
        return None
    stack, urn = values.get(contract.OWNER_STACK), values.get(contract.OWNER_URN)
    return Mark(stack, urn) if isinstance(stack, str) and isinstance(urn, str) and stack and urn else None
