"""What every Alaya NeW resource provider shares: its client."""

from __future__ import annotations

from ..resource import MltrainProvider
from .client import AlayaClient


class AlayaProvider(MltrainProvider):
    def api(self) -> AlayaClient:
        client: AlayaClient = self.client("alaya", AlayaClient)
        return client
