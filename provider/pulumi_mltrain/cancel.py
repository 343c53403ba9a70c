"""The engine's Cancel, once per provider process: every wait ends within moments and says what it left.

The engine asks its providers to cancel when `pulumi up` is interrupted (its first SIGINT or SIGTERM: a
CI runner cancelling a deploy, an operator shutting a workspace down) and again just before it closes
them after any run. A provider that went on waiting would hold the update, and its lock, until the
runner kills the CLI, which then records nothing: the job runs on, unrecorded. So the native plugin's
Cancel (`plugin/provider.py`) and the dynamic provider host's (`host.py`) set one event here, every
pause of a wait, a look-up or a retry sleeps on it, and a wait that sees it raises `Cancelled` with the
last answer it had. The create that was waiting records its object as unfinished
(`lifecycle/record.py`), and the next `pulumi up` goes on waiting for it.

One event per process is right: the engine starts a provider process per command and cancels all of
its operations at once. Requests that are already on their way finish (each is bounded by its own
timeout); nothing new waits after the event is set.
"""

from __future__ import annotations

import threading
from typing import Any

from .errors import MltrainError

_EVENT = threading.Event()


class Cancelled(MltrainError):
    """A wait ended because the engine cancelled the operation. `value` is the object as the wait last
    saw it (None when it saw nothing yet); `state` the state it was in."""

    def __init__(self, message: str, value: Any = None, state: str | None = None) -> None:
        super().__init__(message)
        self.value = value
        self.state = state


def signal() -> None:
    """The engine cancelled this process's operations (Cancel RPC)."""
    _EVENT.set()


def requested() -> bool:
    return _EVENT.is_set()


def pause(seconds: float) -> None:
    """Sleep `seconds`, or less if the engine cancels meanwhile: the sleep of every wait and retry."""
    if seconds > 0:
        _EVENT.wait(seconds)


def reset() -> None:
    """Forget a cancel: for a process that serves more than one run (tests calling handlers in-process)."""
    _EVENT.clear()
