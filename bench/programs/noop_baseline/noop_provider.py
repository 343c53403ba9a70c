"""A dynamic provider whose every call returns at once: the engine's own cost, and nothing else.

With a `__wait` input (seconds), create waits that long instead, on a host pool widened as pulumi-mltrain
widens it (`pulumi_mltrain.host`): the engine's own time for creates that each wait D, scenario 3's floor.

It lives in an importable module (not `__main__`), so dill pickles it by reference, like
pulumi-mltrain's providers, and the dynamic provider process imports it from PYTHONPATH.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, ResourceProvider

_ids = itertools.count()


class NoopProvider(ResourceProvider):
    serialize_as_secret_always = False  # as pulumi-mltrain's providers

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        changed = any(olds.get(k) != v for k, v in news.items() if not k.startswith("__"))
        return DiffResult(changes=changed, replaces=[], delete_before_replace=False)

    def create(self, props: dict[str, Any]) -> CreateResult:
        wait = float(props.get("__wait") or 0)
        if wait:
            from pulumi_mltrain import host

            host.widen()
            time.sleep(wait)
        return CreateResult(f"noop-{next(_ids)}", dict(props))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        return ReadResult(id_, props)

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        return None


class Noop(pulumi.dynamic.Resource, module="bench", name="Noop"):
    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(NoopProvider(), name, props, opts)
