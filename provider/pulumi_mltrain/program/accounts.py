"""The program side of accounts: the internal inputs that name a resource's account, from the explicit
`Provider` it was given or from the stack config, and the warnings about that config (`accounts.py` has
what the provider side shares)."""

from __future__ import annotations

import os
from typing import Any

import pulumi

from .. import settings as table
from ..accounts import ACCOUNT_KEY, CREDENTIALS, IDENTITY, SETTINGS, SETTINGS_KEY, normalized
from .explicit_provider import Provider

_DEFAULTS = table.DEFAULTS
_ENV = {s.name: s.env for s in table.CONFIG}
_FALLBACK_ENV = {s.name: s.fallback_env for s in table.CONFIG if s.fallback_env}


def _from_stack(names: tuple[str, ...]) -> dict[str, Any]:
    """The identity settings the stack config (or the environment) gives the default account."""
    config = pulumi.Config("mltrain")
    out: dict[str, Any] = {}
    for name in names:
        env = (os.environ.get(var) for var in (_ENV.get(name), *_FALLBACK_ENV.get(name, ())) if var)
        value = config.get(SETTINGS[name]) or next((v for v in env if v), None) or _DEFAULTS.get(name)
        if value:
            out[name] = normalized(value) if name.endswith("endpoint") else value
    return out


_warned: set[str] = set()


def warn_plaintext_credentials() -> None:
    """A credential set without --secret sits in plaintext in Pulumi.<stack>.yaml: say how to fix it."""
    config = pulumi.Config("mltrain")
    for name in CREDENTIALS:
        key = f"mltrain:{SETTINGS[name]}"
        if key in _warned or config.get(SETTINGS[name]) is None:
            continue
        if not pulumi.runtime.is_config_secret(key):
            _warned.add(key)
            pulumi.log.warn(f"`{key}` is stored in plaintext in the stack's config file; encrypt it with "
                            f"`pulumi config set --secret {key} <value>`")


# Settings that no longer do anything: config key -> (environment variable, what took their place).
# A stack that still sets one keeps working and is told so, instead of failing on an unknown key.
RETIRED: dict[str, tuple[str, str]] = {
    "providerProcesses": ("MLTRAIN_PROVIDER_PROCESSES", "one provider process serves every call the engine "
                          "sends at once (up to `--parallel`)"),  # a setting of builds before 0.1.0
}


def warn_retired_settings() -> None:
    """Warn once per program about each retired setting the stack config or the environment still sets."""
    config = pulumi.Config("mltrain")
    for key, (env, instead) in RETIRED.items():
        full = f"mltrain:{key}"
        if full in _warned or (config.get(key) is None and not os.environ.get(env)):
            continue
        _warned.add(full)
        pulumi.log.warn(f"`{full}` ({env}) is deprecated and ignored: {instead}. Remove it with "
                        f"`pulumi config rm {full}` (and unset {env}).")


def account_props(resource_name: str, opts: pulumi.ResourceOptions | None,
                  platform: str = "") -> tuple[pulumi.ResourceOptions | None, dict[str, Any]]:
    """(options to register with, internal inputs naming the account) for one resource."""
    names = IDENTITY.get(platform, ())
    provider = opts.provider if opts is not None else None
    if isinstance(provider, Provider):
        settings = provider.settings
        identity = {n: (pulumi.Output.from_input(settings[n]).apply(normalized) if n.endswith("endpoint")
                        else settings[n]) for n in names if n in settings}
        if "alaya_endpoint" in names and "alaya_endpoint" not in settings:
            identity["alaya_endpoint"] = _DEFAULTS["alaya_endpoint"]
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions())
        opts.provider = None
        return opts, {ACCOUNT_KEY: identity, SETTINGS_KEY: dict(settings)}
    warn_plaintext_credentials()
    return opts, {ACCOUNT_KEY: _from_stack(names)}
