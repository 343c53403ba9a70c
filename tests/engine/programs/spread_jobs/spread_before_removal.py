"""`provider/pulumi_mltrain/spread.py` as it was before `mltrain:providerProcesses` was retired, kept
verbatim (but for the import of `accounts`) to build the state that stacks made with it hold: the
test program applies `place` to every resource when `spreadBeforeRemoval` is set.

Its docstring then:

    Spread our dynamic resources over several provider processes, when the stack asks for it.

    One dynamic provider process serves as many calls at once as the engine sends (`host.py` widens the
    SDK host's pool of 4 threads), so waits are bounded by `--parallel` with the default of one process.
    `mltrain:providerProcesses` = K > 1 puts every resource the user gave no provider on one of K shard
    providers (`mltrain-provider-<i>`), each its own Python process: more cores for provider CPU, at
    about 69 MB and a start-up each. The shard follows from the resource's type and name alone (a jump
    consistent hash), so adding or removing resources never moves another, and a change of K moves few;
    a move is no replace (the engine diffs a resource moved to another provider with the new provider,
    and ours compares inputs and the account identity only). Shards are created only when used.
    Explicit providers are configured from their own inputs, not from the stack config, so each shard
    carries the `mltrain:` settings of the stack, secrets as secrets (stored encrypted).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
from pulumi.runtime import config as runtime_config

from pulumi_mltrain.accounts import CREDENTIALS, SETTINGS

PACKAGE = "pulumi-python"
MAX_PROCESSES = 64  # the most `mltrain:providerProcesses` accepts
CONFIG_KEY = "providerProcesses"
ENV_VAR = "MLTRAIN_PROVIDER_PROCESSES"
NAME = "mltrain-provider-{}"
# Kept out of the shards' inputs: a change of K must not read as a change of every shard.
_PROGRAM_ONLY = (f"mltrain:{CONFIG_KEY}",)
_CREDENTIALS = tuple(f"mltrain:{SETTINGS[name]}" for name in CREDENTIALS)  # always secret

_shards: dict[int, pulumi.ProviderResource] = {}


def processes() -> int:
    """K: `mltrain:providerProcesses` (or MLTRAIN_PROVIDER_PROCESSES) when set and not 0, else 1."""
    given = pulumi.Config("mltrain").get(CONFIG_KEY) or os.environ.get(ENV_VAR) or "0"
    try:
        chosen = int(given)
    except ValueError:
        chosen = -1
    if not 0 <= chosen <= MAX_PROCESSES:
        raise ValueError(f"`mltrain:{CONFIG_KEY}` ({ENV_VAR}) = {given!r}: use 1 to {MAX_PROCESSES}, or 0 "
                         "(the default: one process)")
    return max(1, chosen)


def jump_hash(key: int, buckets: int) -> int:
    """Lamping and Veach's jump consistent hash: going from K to K+1 buckets moves 1/(K+1) of the keys."""
    b, j = -1, 0
    while j < buckets:
        b = j
        key = (key * 2862933555777941757 + 1) & 0xFFFFFFFFFFFFFFFF
        j = int((b + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return b


def shard_of(type_: str, name: str, buckets: int) -> int:
    """The shard of one resource: stable across runs, machines and Python versions."""
    digest = hashlib.sha256(f"{type_}::{name}".encode()).digest()
    return jump_hash(int.from_bytes(digest[:8], "big"), buckets)


def _given(opts: pulumi.ResourceOptions | None, type_: str) -> bool:
    """Whether the user chose a `pulumi-python` provider: opts.provider, opts.providers or a parent's."""
    if opts is None:
        return False
    found: list[Any] = [opts.provider] if getattr(opts.provider, "package", None) == PACKAGE else []
    providers: Any = opts.providers
    if isinstance(providers, Mapping):
        found.append(providers.get(PACKAGE))
    elif isinstance(providers, Sequence):
        found += [p for p in providers if getattr(p, "package", None) == PACKAGE]
    if opts.parent is not None:
        found.append(opts.parent.get_provider(type_))
    return any(p is not None and not _is_shard(p) for p in found)


def _is_shard(provider: Any) -> bool:
    return any(provider is shard for shard in _shards.values())


def settings() -> dict[str, Any]:
    """Every `mltrain:` key of the stack config (as the default provider would see it), secrets as secrets."""
    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    secret = set(runtime_config.get_config_secret_keys_env())
    out: dict[str, Any] = {}
    for key in sorted(values):
        if not key.startswith("mltrain:") or key in _PROGRAM_ONLY:
            continue
        value = runtime_config.get_config(key)
        if value is None:
            continue
        is_secret = key in _CREDENTIALS or key in secret or runtime_config.is_config_secret(key)
        out[key] = pulumi.Output.secret(value) if is_secret else value
    return out


def _shard(index: int) -> pulumi.ProviderResource:
    found = _shards.get(index)
    if found is None:
        found = _shards[index] = pulumi.ProviderResource(PACKAGE, NAME.format(index), settings())
    return found


def place(type_: str, name: str, opts: pulumi.ResourceOptions | None) -> pulumi.ResourceOptions | None:
    """`opts` with a shard provider, unless the user chose a provider or K is 1 (then `opts` as given)."""
    if _given(opts, type_):
        return opts
    buckets = processes()
    if buckets <= 1:
        return opts
    return pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=_shard(shard_of(type_, name, buckets))))
