"""Let one dynamic provider process serve as many calls at once as the engine sends (its `--parallel`).

The SDK's dynamic provider host (`pulumi/dynamic/__main__.py`) serves its gRPC calls on
`ThreadPoolExecutor(max_workers=4)`, so a fifth waiting create queued behind the first four. A pool
starts a thread per submitted call only while it has fewer than `_max_workers` threads, so raising
that bound on the host's pool, from the first of our calls (which runs on one of its threads), lets
each waiting call have its own thread; the engine's `--parallel` stays the bound on how many it sends.
Threads start only when calls arrive, so a large bound costs nothing while unused. Nothing happens
outside that host (the native plugin has its own pool, tests call providers in-process).

The same first call starts the engine watchdog (`watch_host_engine`, with `watchdog.py`, which the
plugin uses too): the SDK's host never notices that the engine which started it is gone (a killed
`pulumi`), and would otherwise run, holding its waits, forever.
`readable_errors`, from the same first call, makes that host answer our errors with their message
alone instead of `traceback.format_exc()` (bugs keep their traceback), and `cancel_on_engine_cancel`
makes its Cancel reach our waits: the SDK's host answers the engine's Cancel and does nothing else, so an
interrupted `pulumi up` would wait for every create to end on its own (`cancel.py`).
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
import types
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .watchdog import watch_engine

HOST_MODULE = "pulumi.dynamic.__main__"
ENV_VAR = "MLTRAIN_PROVIDER_THREADS"
DEFAULT_THREADS = 256
SDK_THREADS = 4  # what the SDK's host starts with

_lock = threading.Lock()


def threads() -> int:
    """The bound asked for: MLTRAIN_PROVIDER_THREADS, else 256 (at least the SDK's 4)."""
    given = os.environ.get(ENV_VAR, "")
    try:
        chosen = int(given) if given else DEFAULT_THREADS
    except ValueError as err:
        raise ValueError(f"{ENV_VAR} = {given!r}: give a whole number of threads (default {DEFAULT_THREADS})") from err
    return max(SDK_THREADS, chosen)


def in_host() -> bool:
    """Whether this process is the SDK's dynamic provider host (`python -m pulumi.dynamic`)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == HOST_MODULE


def _pool_of(thread: threading.Thread) -> ThreadPoolExecutor | None:
    """The pool a worker thread serves: its first argument is a weak reference to it (CPython 3.9+)."""
    args = getattr(thread, "_args", None)
    ref = args[0] if isinstance(args, tuple) and args else None
    pool = ref() if isinstance(ref, weakref.ref) else None
    return pool if isinstance(pool, ThreadPoolExecutor) else None


def widen() -> int | None:
    """Raise the bound of the host pool running this call; its new bound, or None outside the host."""
    if not in_host():
        return None
    pool = _pool_of(threading.current_thread())
    if pool is None or not isinstance(getattr(pool, "_max_workers", None), int):
        return None
    with _lock:
        pool._max_workers = max(pool._max_workers, threads())
        return pool._max_workers


def watch_host_engine() -> bool:
    """In the SDK's dynamic provider host, watch its engine (`python -m pulumi.dynamic ENGINE`);
    whether a watchdog started. Any host that starts providers this way is covered, the official one too."""
    if not in_host() or len(sys.argv) < 2:
        return False
    return watch_engine(sys.argv[1])


# ----- readable errors ---------------------------------------------------------------------------
# The SDK's host answers a failed call with `traceback.format_exc()` (`_abort_with_traceback`), read
# through its module global `traceback` when the call fails. Those are the methods it wraps so.
HOST_METHODS = ("Check", "Diff", "Create", "Read", "Update", "Delete")
_warned: list[str] = []


class MessageOnly:
    """The host's `traceback`: `format_exc()` gives what a person reads for the error being handled
    (`errors.readable`: the message alone for our errors, a traceback for bugs); all else is the module's."""

    def __init__(self, real: types.ModuleType) -> None:
        self.real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def format_exc(self, limit: int | None = None, chain: bool = True) -> str:
        from .errors import MltrainError, readable

        err = sys.exc_info()[1]
        if isinstance(err, MltrainError):
            return readable(err)
        text: str = self.real.format_exc(limit, chain)
        return text


def host_problem(module: types.ModuleType) -> str | None:
    """What the SDK's host module lacks of what `readable_errors` relies on, or None."""
    servicer = getattr(module, "DynamicResourceProviderServicer", None)
    if servicer is None:
        return "it has no DynamicResourceProviderServicer"
    for name in HOST_METHODS:
        method = getattr(servicer, name, None)
        code = getattr(method, "__code__", None)
        if code is None or not {"traceback", "format_exc"} <= set(code.co_names):
            return f"its {name} no longer reports errors through traceback.format_exc()"
        found = getattr(method, "__globals__", {}).get("traceback")
        if not isinstance(found, MessageOnly) and found is not traceback:
            return f"the `traceback` its {name} reads is {found!r}, not the traceback module"
    return None


def leaves_errors_to_grpc(module: types.ModuleType) -> bool:
    """Whether the host is an older one (before `_abort_with_traceback`, e.g. pulumi 3.231) whose calls let
    gRPC answer a failure with the error's text alone: nothing to change there, nothing to warn about."""
    servicer = getattr(module, "DynamicResourceProviderServicer", None)
    if servicer is None or hasattr(module, "_abort_with_traceback"):
        return False
    codes = [getattr(getattr(servicer, name, None), "__code__", None) for name in HOST_METHODS]
    return all(code is not None and "traceback" not in code.co_names for code in codes)


def readable_errors(module: types.ModuleType | None = None) -> bool:
    """In the SDK's host (or `module`, a copy of it), answer our errors with their message alone:
    people read the last line, not twenty lines of our frames. Whether it is in place; when the
    host has changed shape, says so once (`progress`) and leaves it as it is."""
    if module is None:
        if not in_host():
            return False
        module = sys.modules["__main__"]
    if leaves_errors_to_grpc(module):
        return False
    problem = host_problem(module)
    if problem is not None:
        with _lock:
            first = not _warned
            if first:
                _warned.append(problem)
        if first:
            _say(f"the pulumi SDK's dynamic provider host ({HOST_MODULE}) has changed: {problem}; provider errors "
                 "keep the Python traceback before their message")
        return False
    with _lock:
        for name in HOST_METHODS:
            scope = getattr(module.DynamicResourceProviderServicer, name).__globals__
            if not isinstance(scope["traceback"], MessageOnly):
                scope["traceback"] = MessageOnly(scope["traceback"])
    return True


def _say(text: str) -> None:
    """A line for the user about the provider itself (no resource): through `progress`, as every line."""
    from .progress import notice

    notice(text, None)


# ----- the engine's Cancel ------------------------------------------------------------------------
# The SDK's host answers Cancel with `empty_pb2.Empty()` and nothing else. Its gRPC server holds the bound
# method from the start, so the method's code is what changes: `_cancel`'s, which reads its names from the
# host module's globals (`empty_pb2`, its own import, and CANCEL_HOOK, set to `cancel.signal` beside it).
CANCEL_HOOK = "_mltrain_cancel"


def _cancel(self: Any, request: Any, context: Any) -> Any:  # runs as the host's Cancel, in its module
    _mltrain_cancel()  # type: ignore[name-defined]  # noqa: F821 -- CANCEL_HOOK in the host module
    return empty_pb2.Empty()  # type: ignore[name-defined]  # noqa: F821 -- the host module's import


def cancel_on_engine_cancel(module: types.ModuleType | None = None) -> bool:
    """In the SDK's host (or `module`, a copy of it), make the engine's Cancel signal `cancel.py`; whether
    it is in place. A host of another shape is left as it is, said once (`progress`)."""
    from . import cancel

    if module is None:
        if not in_host():
            return False
        module = sys.modules["__main__"]
    servicer = getattr(module, "DynamicResourceProviderServicer", None)
    method = getattr(servicer, "Cancel", None)
    code = getattr(method, "__code__", None)
    if code is _cancel.__code__:
        return True
    if code is None or set(code.co_names) != {"empty_pb2", "Empty"} or code.co_argcount != 3 \
            or code.co_freevars or not hasattr(module, "empty_pb2"):
        with _lock:
            first = "cancel" not in _warned
            if first:
                _warned.append("cancel")
        if first:
            _say(f"the pulumi SDK's dynamic provider host ({HOST_MODULE}) has changed: its Cancel is not the one "
                 "this provider knows; an interrupted `pulumi up` waits for creates to end on their own")
        return False
    with _lock:
        module.__dict__[CANCEL_HOOK] = cancel.signal
        method.__code__ = _cancel.__code__  # type: ignore[union-attr]
    return True
