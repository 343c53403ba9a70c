"""What the ModelArts resources share, as plain functions: their client, the owner mark in tags, and the
default tags (mltrain:defaultTags) and their drift."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..accounts import SETTINGS_KEY
from ..config import CONFIG_KEYS, MAX_TAGS
from ..ownership import Mark
from ..platform_calls import Failures, PlatformCalls, Props
from ..spec import ManagedSpec
from .wire import contract
from .wire.client import ModelArtsClient

PLATFORM = "ModelArts"
CREDENTIALS = ("mltrain:huaweiAccessKey", "mltrain:huaweiSecretKey", "mltrain:huaweiSecurityToken",
               "mltrain:huaweiUser", "mltrain:huaweiPassword", "mltrain:huaweiDomain")


# Methods both ModelArts resources' classes have: functions each class names (`with_defaults =
# tags.with_default_tags`), not a base class of the platform's.
def client(calls: PlatformCalls[Any, Any, Any]) -> ModelArtsClient:
    return calls.context.client("modelarts", ModelArtsClient)


def with_default_tags(calls: PlatformCalls[Any, Any, Any], news: Props) -> tuple[Props, Failures]:
    """The provider's default tags merged into `tags` (the resource's own win on the same key).

    The merged map is the resource's `tags` from here on: in the checked inputs (so previews
    and policies see every tag the platform will carry), in the state and in the outputs. A
    change of the defaults is therefore a change of `tags`, made in place; a default that is
    dropped is removed from the platform only because the state says that this resource set it.
    """
    defaults, own = calls.settings.default_tags, news.get("tags")
    if not defaults or (own is not None and not isinstance(own, Mapping)):
        return news, []  # no defaults, or tags not known yet (preview): merged once they are
    own = dict(own or {})
    merged = {**defaults, **own}
    if len(merged) > MAX_TAGS:
        source = ("the provider's `default_tags`" if news.get(SETTINGS_KEY) is not None
                  else f"`{CONFIG_KEYS['default_tags']}`")
        shared = len(set(defaults) & set(own))
        return news, [("tags", f"has {len(merged)} tags with the default tags of {source} ({len(defaults)} "
                               f"default, {len(own)} of its own, {shared} of them on the same key); ModelArts "
                               f"allows at most {MAX_TAGS}: remove keys from {source} or from this resource's "
                               "`tags`")]
    return {**news, "tags": merged}, []


def own_tags_drift(spec: ManagedSpec, values: Props) -> Props:
    """Tags drift only on the keys this resource sets: a tag added on the platform under another
    key is someone else's, and is neither reported nor recorded (so no update removes it)."""
    out = dict(values)
    tags = out.get("tags")
    if isinstance(tags, dict):
        mine = getattr(spec, "tags", None) or {}
        out["tags"] = {k: v for k, v in tags.items() if k in mine} or None
    return out


def owner_tags(owner: Mark) -> list[dict[str, str]]:
    return [{"key": contract.OWNER_STACK, "value": owner.stack}, {"key": contract.OWNER_URN, "value": owner.urn}]


def mark_in(values: Any) -> Mark | None:
    """The owner mark in a map of annotations, or in a list of tags, if it is there."""
    if isinstance(values, list):
        values = {t.get("key"): t.get("value") for t in values if isinstance(t, dict)}
    if not isinstance(values, dict):
        return None
    stack, urn = values.get(contract.OWNER_STACK), values.get(contract.OWNER_URN)
    return Mark(stack, urn) if isinstance(stack, str) and isinstance(urn, str) and stack and urn else None


def tag_value(text: str) -> str:
    """`text` in the characters a tag value allows (others become spaces), at most TAG_VALUE_MAX long."""
    allowed = re.sub(r"[^\w .:/=+\-@]+", " ", text)
    return " ".join(allowed.split())[: contract.TAG_VALUE_MAX]


def as_map(values: Any) -> dict[str, str]:
    if not isinstance(values, list):
        return {}
    return {str(t.get("key")): str(t.get("value") or "") for t in values if isinstance(t, dict)}
