"""What every Alaya NeW resource shares: its client and the credential probe at preview."""

from __future__ import annotations

from typing import ClassVar

from ..config import Settings
from ..errors import MltrainError
from ..platform_calls import Failures, OutT, PlatformCalls, SpecT
from .catalog import products
from .client import AlayaClient


class AlayaCalls(PlatformCalls[SpecT, OutT]):
    credential_keys: ClassVar[tuple[str, ...]] = ("mltrain:alayaApiKey",)

    @classmethod
    def configured(cls, settings: Settings) -> bool:
        return bool(settings.alaya_api_key)

    def api(self) -> AlayaClient:
        client: AlayaClient = self.context.client("alaya", AlayaClient)
        return client

    def probe_credentials(self) -> Failures | None:
        """Read the (cached) product list: a refused key fails the preview instead of passing it."""
        try:
            products(self.api())
        except MltrainError as err:
            return self.refused_credentials(err)
        return None
