"""Policy-pack tests: make `policy/` importable (the pack runs with its own folder on sys.path)."""

from __future__ import annotations

import sys
from pathlib import Path

POLICY_DIR = Path(__file__).resolve().parents[2] / "policy"
if str(POLICY_DIR) not in sys.path:
    sys.path.insert(0, str(POLICY_DIR))
