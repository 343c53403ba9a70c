"""Policy-pack tests: `mltrain_policies` is part of the installed distribution (the `policy` extra),
so the tests import it like an infra repo's pack folder does; no path set-up."""
