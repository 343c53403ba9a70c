"""Calling the plugin's async methods from a synchronous test."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(call: Coroutine[Any, Any, T]) -> T:
    """Run one plugin call on a loop of its own: asyncio.run leaves no current event loop behind, which
    later tests in the same worker (pulumi.Output.from_input) need."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(call)
    finally:
        loop.close()
