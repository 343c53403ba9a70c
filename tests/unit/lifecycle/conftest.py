"""The lifecycle tests' fixtures: a fresh fake platform per test (`cloud`), the real handler of the fake
job kind on it (`jobs`), and no engine Cancel left over (the cancel is process-wide, as in a provider
process). The fakes themselves are in fake.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake import Cloud, FakeHandler, handler_on

from pulumi_mltrain import cancel


@pytest.fixture(autouse=True)
def no_cancel() -> Iterator[None]:
    cancel.reset()
    yield
    cancel.reset()


@pytest.fixture
def cloud() -> Cloud:
    return Cloud()


@pytest.fixture
def jobs(cloud: Cloud) -> FakeHandler:
    return handler_on(cloud)
