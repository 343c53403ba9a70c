"""Serve the pack: what a pack folder's `__main__.py` calls (`pulumi preview --policy-pack DIR`).

The config check hooks the SDK's `Configure` call, the one place that sees the whole
`--policy-pack-config` before any validator runs, and fails it with a message naming the key.
"""

from __future__ import annotations

import sys
from typing import Any

import grpc
from google.protobuf import json_format
from pulumi_policy import EnforcementLevel, PolicyPack
from pulumi_policy import policy as sdk_policy

from . import DESCRIPTION, PACK_NAME, POLICIES, track_secrets
from .config_check import config_errors


def _strict_configure() -> None:
    """Make the analyzer refuse unknown config keys instead of ignoring them."""
    servicer: Any = sdk_policy._PolicyAnalyzerServicer
    original: Any = servicer.Configure
    if getattr(original, "_mltrain_strict", False):
        return

    def configure(self: Any, request: Any, context: Any) -> Any:
        config = {name: json_format.MessageToDict(request.policyConfig[name].properties)
                  for name in request.policyConfig}
        errors = config_errors(config, POLICIES, PACK_NAME)
        if errors:
            message = "\n".join(errors)
            print(message, file=sys.stderr, flush=True)
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, message)
        return original(self, request, context)

    configure._mltrain_strict = True  # type: ignore[attr-defined]
    servicer.Configure = configure


def serve() -> None:
    """Build the PolicyPack and serve it (blocks until the engine stops the process)."""
    # Let the secrets rule tell Output.secret(...) from plaintext (see secrets.py).
    if not track_secrets():
        print(f"{PACK_NAME}: this pulumi-policy hides secretness; no-plaintext-secrets will treat every "
              "value as plaintext", file=sys.stderr)
    _strict_configure()
    PolicyPack(
        name=PACK_NAME,
        policies=list(POLICIES),
        enforcement_level=EnforcementLevel.ADVISORY,  # each policy sets its own level
        description=DESCRIPTION,
    )
