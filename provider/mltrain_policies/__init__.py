"""pulumi-mltrain's policy pack: validators importable without starting the policy server.

`mltrain_policies.pack.serve()` (what a pack folder's `__main__.py` calls) builds the PolicyPack; tests
import the validators and policies from here.
"""

from . import resources
from .secrets import SecretString, is_secret, track_secrets, untrack_secrets
from .validators import POLICIES

PACK_NAME = "mltrain-policies"
DESCRIPTION = "Guardrails for pulumi-mltrain training jobs (Alaya NeW, Huawei Cloud ModelArts v2)"

__all__ = [
    "DESCRIPTION",
    "PACK_NAME",
    "POLICIES",
    "SecretString",
    "is_secret",
    "resources",
    "track_secrets",
    "untrack_secrets",
]
