"""Build-time generators, run in a checkout (`python -m tools.generate`); not part of the wheel."""
