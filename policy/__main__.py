"""This repository's pack folder: `pulumi preview --policy-pack policy/`. The policies live in the
installed `mltrain_policies` module (`pip install "pulumi-mltrain[policy]"`); an infra repo writes
its own folder like this one with `mltrain-policy-pack DIR`."""

from mltrain_policies.pack import serve

serve()
