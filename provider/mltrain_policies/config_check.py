"""Reject unknown keys in `--policy-pack-config`: the engine validates values against each policy's
schema but lets unknown property names (a misspelled `maxNode`) and unknown policy names through,
which would silently keep the default threshold."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pulumi_policy import ResourceValidationPolicy, StackValidationPolicy

Policy = ResourceValidationPolicy | StackValidationPolicy

# Keys the engine itself understands in every policy's section.
ENGINE_KEYS = frozenset({"enforcementLevel"})
# The engine's name for "every policy" (a level only).
ALL = "all"


def known_keys(policy: Policy) -> list[str]:
    """The config keys a policy's schema declares, sorted."""
    schema = policy.config_schema
    return sorted(schema.properties) if schema is not None else []


def config_errors(config: Mapping[str, Any], policies: Iterable[Policy], pack: str) -> list[str]:
    """One sentence per unknown policy name or config key, naming the known ones."""
    by_name = {policy.name: policy for policy in policies}
    errors: list[str] = []
    for name, section in config.items():
        policy = by_name.get(name)
        if policy is None and name == ALL:
            continue
        if policy is None:
            errors.append(f"{pack}: unknown policy {name!r} in the policy pack config; "
                          f"known policies: {', '.join(sorted(by_name))}")
            continue
        if not isinstance(section, Mapping):
            continue  # "advisory" / "disabled": an enforcement level only
        known = known_keys(policy)
        for key in sorted(set(section) - set(known) - ENGINE_KEYS):
            listing = ", ".join([*known, *sorted(ENGINE_KEYS)])
            errors.append(f"{pack}: unknown config key {key!r} for policy {name!r}; known keys: {listing}")
    return errors
