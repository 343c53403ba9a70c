"""The unit tier runs no server: the emulator's fixtures fail here (a test that needs them belongs in
tests/inprocess). tests/unit/test_tiers.py checks the same from the source."""

from __future__ import annotations

from typing import NoReturn

import pytest


@pytest.fixture(scope="session")
def emulator_server() -> NoReturn:
    pytest.fail("tests/unit runs no server: a test against the emulator belongs in tests/inprocess")
