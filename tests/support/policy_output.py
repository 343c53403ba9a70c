"""What the CLI prints of a policy pack's violations, read back (the engine tests of the pack and of the
budget): each violation's header names its level, policy, resource type and name."""

from __future__ import annotations

import re

# A violation's header: level, policy, the resource's type token and name, then the policy's description.
HEADER = r"mltrain-policies@v[\d.]+ \[(\w+)\](?: \[severity: \w+\])?\s+([\w-]+)\s+\((\S+): ([^)]+)\)"


def kind_of(resource_type: str) -> str:
    """`alaya:TrainingJob` for the dynamic and the plugin type token alike."""
    return resource_type.removeprefix("pulumi-python:dynamic/").removeprefix("mltrain:")


def violations(output: str) -> dict[str, list[tuple[str, str]]]:
    """policy name -> sorted [(level, resource)] from the CLI's violation headers."""
    found: dict[str, list[tuple[str, str]]] = {}
    for level, policy, rtype, name in re.findall(HEADER, output):
        found.setdefault(policy, []).append((level, f"{kind_of(rtype)} {name}"))
    return {policy: sorted(hits) for policy, hits in found.items()}
