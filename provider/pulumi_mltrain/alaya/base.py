"""What every Alaya NeW resource handler shares: its client and the credential probe at preview."""

from __future__ import annotations

from typing import ClassVar

from ..errors import MltrainError
from ..handler import Handler, OutT, SpecT
from .catalog import products
from .client import AlayaClient


class AlayaHandler(Handler[SpecT, OutT]):
    credential_keys: ClassVar[tuple[str, ...]] = ("mltrain:alayaApiKey",)

    def api(self) -> AlayaClient:
        client: AlayaClient = self.client("alaya", AlayaClient)
        return client

    def _probe_credentials(self) -> list[tuple[str, str]] | None:
        """Read the (cached) product list: a refused key fails the preview instead of passing it."""
        try:
            products(self.api())
        except MltrainError as err:
            return self._refused_credentials(err)
        return None
