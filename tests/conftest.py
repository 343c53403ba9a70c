"""Shared fixtures. ``emulator``: one emulator server per test session (per xdist worker), reset
before every test, so tests never see each other's objects, counts, faults or clock (tests/unit's
conftest.py refuses it). ``release``: the folder the release command writes (dist/), once per session;
``wheel`` and ``emulator_wheel``: the two distributions from it; ``installed_venv``: a fresh virtualenv
with both installed from them, made once per session.

The folders are the tiers (tests/unit/test_tiers.py checks what each may run): ``unit`` (no server),
``inprocess`` (our handlers and clients against the emulator over loopback HTTP), ``engine`` (the Pulumi
CLI), ``emulator`` (the emulator package on its own)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mltrain_emulator import EmulatorAdmin, EmulatorHandle, EmulatorServer
from support import release as releases
from support.packaging import fresh_venv
from support.shared import once


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


@pytest.fixture(scope="session", autouse=True)
def _release_in_the_background(request: pytest.FixtureRequest,
                               tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Starts the session's release (`bash scripts/release.sh`, tests/support/release.py) at the first
    test of a worker when any test of the session uses it, so that it builds while other tests run.
    The worker that started it waits for it before it ends (other workers may still need it)."""
    build = releases.build(tmp_path_factory)
    started = any("release" in item.fixturenames for item in request.session.items) and build.start()
    yield
    if started:
        try:
            build.wait()
        finally:
            build.stop()


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder `bash scripts/release.sh VERSION` wrote (dist/): every artifact the tests install."""
    return releases.release(tmp_path_factory)


@pytest.fixture(scope="session")
def wheel(release: Path) -> Path:
    """The project's wheel, from the release."""
    return release / f"pulumi_mltrain-{releases.VERSION}-py3-none-any.whl"


@pytest.fixture(scope="session")
def emulator_wheel(release: Path) -> Path:
    """The emulator's wheel, from the release."""
    return release / f"mltrain_emulator-{releases.VERSION}-py3-none-any.whl"


@pytest.fixture(scope="session")
def installed_venv(wheel: Path, emulator_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv outside the repository, as an infra repo has it: the wheel with its `policy` and
    `emulator` extras (mltrain-emulator found beside it with --find-links: no index has it), beside another
    provider from PyPI (pulumi-random), each resolving its own dependency ranges. One install shared by
    tests/engine/packaging and tests/emulator's distribution test: each install costs a pip resolution
    and about 10 CPU-s."""
    return once(tmp_path_factory, "installed-venv", lambda folder: fresh_venv(
        folder / "venv", f"{wheel}[policy,emulator]", "pulumi-random", "--find-links", emulator_wheel.parent))


def _tier(item: pytest.Item) -> int:
    """0: slow tests (engine runs and fresh venvs, each up to a minute; tests/emulator's install of the
    emulator extra is one without the engine), 1: other engine tests and the type checkers, 2: the rest."""
    if item.get_closest_marker("slow") is not None:
        return 0
    if item.get_closest_marker("engine") is not None:
        return 1
    return 1 if "typing" in item.path.parts else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest first, and under xdist dealt out so that every worker starts on its share of them.

    scripts/test.sh runs xdist's work-stealing scheduler, which gives worker k the k-th contiguous chunk
    of this order (chunk sizes: what is left divided by the workers left) and lets an idle worker take
    the back half of the longest queue. So the slow engine tests are dealt round-robin into the chunks,
    each chunk starting with its own: no worker runs the slowest tests one after another while the
    others steal short ones, and what is stolen at the end is short. Only a balancing heuristic: any
    order runs the same tests."""
    items.sort(key=_tier)  # stable: the collection order within a tier
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2 or len(items) < workers:
        return
    sizes, left = [], len(items)
    for k in range(workers):
        sizes.append(left // (workers - k))
        left -= sizes[-1]
    chunks: list[list[pytest.Item]] = [[] for _ in range(workers)]
    k = 0
    for item in items:
        while len(chunks[k]) == sizes[k]:  # ends: the sizes add up to len(items)
            k = (k + 1) % workers
        chunks[k].append(item)
        k = (k + 1) % workers
    items[:] = [item for chunk in chunks for item in chunk]
