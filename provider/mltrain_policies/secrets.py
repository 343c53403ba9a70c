"""Which property values the engine delivered as Pulumi secrets.

What pulumi-policy 1.21.0 does (read in `pulumi_policy/policy.py` and `deserialize.py`): the engine
(v3.274.1, `analyzer_plugin.go`: `FilterProperties(..., KeepSecrets: true, SkipInternalKeys: true)`)
sends every secret as `{"4dabf…": "1b47…", "value": …}`; `Analyze` and `AnalyzeStack` call
`deserialize_properties(props)` with `proxy_secrets=False`, which drops that wrapper. A validator
therefore sees the plaintext and cannot tell `Output.secret("…")` from a literal.

`track_secrets()` replaces that one call (the name `deserialize_properties` inside
`pulumi_policy.policy`) with a deserializer that keeps the plaintext but returns every string that
arrived inside a secret as a `SecretString` (a `str` subclass). Everything else is unchanged: the
unknown-checking proxy still wraps the result, strings still compare, match and hash as before, and
the remediation path (`proxy_secrets=True`) still uses the SDK's own function. Numbers and booleans
inside a secret cannot be subclassed usefully and stay plain; the rules only need strings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pulumi_policy
from pulumi_policy import deserialize as _sdk_deserialize
from pulumi_policy import policy as _sdk_policy
from pulumi_policy.proxy import _is_unknown

_SIG_KEY = _sdk_deserialize.SPECIAL_SIG_KEY
_SECRET_SIG = _sdk_deserialize.SPECIAL_SECRET_SIG


class SecretString(str):
    """A string the engine delivered as a Pulumi secret. Its repr never shows the value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "[secret]"


def is_secret(value: Any) -> bool:
    """True for values known to be secret: tracked strings and pulumi-policy `Secret` wrappers."""
    return isinstance(value, SecretString | pulumi_policy.Secret)


def _deserialize(prop: Any, in_secret: bool) -> Any:
    if isinstance(prop, list):
        return [_deserialize(e, in_secret) for e in prop]
    if isinstance(prop, dict):
        sig = prop.get(_SIG_KEY)
        if sig == _SECRET_SIG:
            if "value" not in prop:
                raise AssertionError("Invalid secret encountered when unmarshaling resource property")
            return _deserialize(prop["value"], True)
        if sig is not None:  # assets and archives: the SDK's own handling (and its errors)
            return _sdk_deserialize._deserialize_property(prop, False)
        return {k: _deserialize(v, in_secret) for k, v in prop.items()}
    if in_secret and isinstance(prop, str) and not _is_unknown(prop):
        return SecretString(prop)
    return prop


def deserialize_properties(props: Mapping[str, Any], proxy_secrets: bool = False) -> Any:
    """Drop-in for `pulumi_policy.deserialize.deserialize_properties` that keeps secretness of strings."""
    if proxy_secrets:
        return _ORIGINAL(props, proxy_secrets)
    return {key: _deserialize(value, False) for key, value in props.items()}


_ORIGINAL: Callable[..., Any] = _sdk_deserialize.deserialize_properties


def track_secrets() -> bool:
    """Make `Analyze`/`AnalyzeStack` keep secretness (see the module doc). Idempotent.

    Returns False, changing nothing, if this pulumi-policy does not have the expected hook; the
    secrets rule then sees every value as plaintext (and the engine tests notice).
    """
    current = getattr(_sdk_policy, "deserialize_properties", None)
    if current is deserialize_properties:
        return True
    if current is not _ORIGINAL:
        return False
    _sdk_policy.deserialize_properties = deserialize_properties  # type: ignore[attr-defined]
    return True


def untrack_secrets() -> None:
    """Undo `track_secrets()` (for tests)."""
    if getattr(_sdk_policy, "deserialize_properties", None) is deserialize_properties:
        _sdk_policy.deserialize_properties = _ORIGINAL  # type: ignore[attr-defined]
