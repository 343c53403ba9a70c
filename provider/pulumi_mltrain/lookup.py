"""Helpers of the program-time look-up functions: the `_output` form and bounded log tails.

Import-light (no pydantic, no httpx): the platform modules import it lazily, in the program process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def output_form(func: Callable[..., T], *args: Any) -> Any:
    """`func(*args)` once every Input in `args` is known, as a `pulumi.Output` (Pulumi's `_output`
    convention); during a preview with unknown inputs the result stays unknown."""
    import pulumi

    return pulumi.Output.all(*args).apply(lambda values: func(*values))


def tail(lines: Sequence[str], max_lines: int, max_bytes: int) -> list[str]:
    """The last `max_lines` lines, dropping the oldest until they fit in `max_bytes` (UTF-8)."""
    out = list(lines[-max_lines:]) if max_lines > 0 else []
    while out and sum(len(line.encode()) + 1 for line in out) > max_bytes:
        out.pop(0)
    return out
