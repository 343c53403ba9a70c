"""Entry point of the policy pack: `pulumi preview --policy-pack policy/`. Builds the pack only;
the validators live in `mltrain_policies` (importable by tests: `PolicyPack(...)` blocks forever)."""

import sys

from pulumi_policy import EnforcementLevel, PolicyPack

from mltrain_policies import DESCRIPTION, PACK_NAME, POLICIES, track_secrets

# Let the secrets rule tell Output.secret(...) from plaintext (see mltrain_policies/secrets.py).
if not track_secrets():
    print("mltrain-policies: this pulumi-policy hides secretness; no-plaintext-secrets will treat every "
          "value as plaintext", file=sys.stderr)

PolicyPack(
    name=PACK_NAME,
    policies=list(POLICIES),
    enforcement_level=EnforcementLevel.ADVISORY,  # each policy sets its own level
    description=DESCRIPTION,
)
