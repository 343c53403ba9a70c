"""Shared fixtures. ``emulator``: one emulator server per test session (per xdist worker), reset
before every test, so tests never see each other's objects, counts, faults or clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pulumi_mltrain.emulator import EmulatorAdmin, EmulatorHandle, EmulatorServer


@pytest.fixture(scope="session")
def emulator_server() -> Iterator[EmulatorServer]:
    with EmulatorServer() as server:
        yield server


@pytest.fixture
def emulator(emulator_server: EmulatorServer) -> Iterator[EmulatorHandle]:
    """``.url``, ``.admin`` (state, requests, reset, set_settings, set_faults, advance) and credentials."""
    with EmulatorAdmin(emulator_server.url) as admin:
        admin.reset()
        yield EmulatorHandle(url=emulator_server.url, admin=admin)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Engine tests and the type checkers' runs first (stable order otherwise): each takes seconds to a
    minute, so with them at the front the xdist workers end together on the short in-process tests
    instead of one worker finishing a long test alone."""
    items.sort(key=lambda item: item.get_closest_marker("engine") is None and "typing" not in item.path.parts)
