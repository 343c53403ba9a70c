"""What every ModelArts resource provider shares: its client and the catalogue checks at preview."""

from __future__ import annotations

import sys
from typing import Any

from ..errors import MltrainError
from ..resource import MltrainProvider
from .catalog import configured
from .client import ModelArtsClient


class ModelArtsProvider(MltrainProvider):
    def api(self) -> ModelArtsClient:
        client: ModelArtsClient = self.client("modelarts", ModelArtsClient)
        return client

    def _check_remote(self, spec: Any) -> list[tuple[str, str]]:
        if not configured(self.settings):
            return []
        try:
            api = self.api()
        except MltrainError as err:
            print(f"[mltrain] catalogue check skipped: {err}", file=sys.stderr)
            return []
        return self._catalog_failures(api, spec)

    def _catalog_failures(self, api: ModelArtsClient, spec: Any) -> list[tuple[str, str]]:
        return []
