"""Where the SDK's experimental provider package (`pulumi.provider.experimental`) needs help, in one place.

Tested with pulumi 3.272 (`TESTED_SDK`: the plugin refuses to start outside it, while the dynamic
resources keep pyproject's wider range); what it gets wrong and what is done here instead:
- an input that depends on an unknown output arrives as the plain sentinel string, and a Computed
  value cannot be marshalled back: `plain` turns the sentinel into `pulumi.output.Unknown` (what the
  specs understand), `wrap` turns Unknown back into the sentinel, which the engine reads as unknown;
- numbers must be floats, secrets are per value: `plain` records which top-level keys held a
  secret, and `wrap` marks those keys (and the spec's secret fields) secret again;
- every error is re-raised with the SDK's traceback text appended: `Servicer` answers with the
  provider's own message (a bug's with its traceback, `errors.readable`), and a partial create as
  `ErrorResourceInitFailed`, so the engine keeps the object's ID and state;
- the server never notices that the engine has gone: `serve` watches the engine's port and exits;
- the engine hides the plugin's stderr until it fails: `serve` gives `progress` the engine's address, so
  that progress lines and notes reach the user through the engine's Log, as in the dynamic form;
- handlers share one event loop: the synchronous provider code runs on `POOL`, a thread pool sized
  for many concurrent waits, so `pulumi up --parallel` is the only bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.metadata
import re
import signal
import sys
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
import grpc.aio
from pulumi.output import Unknown
from pulumi.provider.experimental.property_value import Computed, PropertyValue
from pulumi.provider.experimental.provider import Provider
from pulumi.provider.experimental.server import ProviderServicer
from pulumi.runtime import rpc
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc, status_pb2

from .. import host, progress
from ..errors import readable
from ..watchdog import watch_engine

T = TypeVar("T")

# The SDK versions this module is tested with: the experimental package changes between releases.
TESTED_SDK = ((3, 272), (4, 0))

# Threads for provider calls: a create that waits for a job holds one for minutes. The same bound
# (MLTRAIN_PROVIDER_THREADS) as the dynamic resources' widened host pool.
POOL = ThreadPoolExecutor(max_workers=host.threads(), thread_name_prefix="mltrain")


async def run_sync(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on the provider's thread pool, so that waits never block the event loop."""
    return await asyncio.get_running_loop().run_in_executor(POOL, functools.partial(fn, *args))


# ----- values ------------------------------------------------------------------------------------
def plain(values: Mapping[str, PropertyValue]) -> tuple[dict[str, Any], set[str]]:
    """(plain Python values with `Unknown` for unknowns, the top-level keys that held a secret)."""
    out: dict[str, Any] = {}
    secret: set[str] = set()
    for key, value in values.items():
        out[key] = _plain(value)
        if value.contains_secret():
            secret.add(key)
    return out, secret


def _plain(value: PropertyValue) -> Any:
    inner = value.value
    if isinstance(inner, Computed) or inner == rpc.UNKNOWN:
        return Unknown()  # type: ignore[no-untyped-call]
    if isinstance(inner, Mapping):
        return {k: _plain(v) for k, v in inner.items()}
    if isinstance(inner, list | tuple):
        return [_plain(v) for v in inner]
    return inner  # numbers stay floats: the specs accept whole floats for ints, as RPC sends them


def wrap(values: Mapping[str, Any], secret: Iterable[str] = ()) -> dict[str, PropertyValue]:
    """Plain values as PropertyValues: `Unknown` as the engine's sentinel, `secret` keys as secrets."""
    keys = set(secret)
    return {k: _wrap(v).with_secret(k in keys) for k, v in values.items()}


def _wrap(value: Any) -> PropertyValue:
    if isinstance(value, Unknown):
        return PropertyValue(rpc.UNKNOWN)
    if isinstance(value, PropertyValue):
        return value
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return PropertyValue(value)
    if isinstance(value, int):
        return PropertyValue(float(value))
    if isinstance(value, Mapping):
        return PropertyValue({str(k): _wrap(v) for k, v in value.items()})
    if isinstance(value, list | tuple | set):
        return PropertyValue([_wrap(v) for v in value])
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _wrap(dump(mode="json", exclude_none=True))
    return PropertyValue(str(value))


# ----- errors ------------------------------------------------------------------------------------
class PartialCreate(Exception):
    """A create that failed after its object came to exist, and whose rollback did not happen: the
    engine records the ID and state (a "partially created" resource), so nothing is orphaned."""

    def __init__(self, message: str, object_id: str, properties: dict[str, PropertyValue],
                 inputs: dict[str, PropertyValue]) -> None:
        super().__init__(message)
        self.object_id = object_id
        self.properties = properties
        self.inputs = inputs


def _original(err: BaseException) -> BaseException:
    """The provider's exception inside the SDK's `Exception(f"{err}:\\n{traceback}")` wrapper."""
    inner = err.__context__
    if inner is not None and str(err).startswith(str(inner)):
        return inner
    return err


def _partial_status(err: PartialCreate) -> grpc.Status:
    detail = provider_pb2.ErrorResourceInitFailed(
        id=err.object_id, properties=PropertyValue.marshal_map(err.properties),
        inputs=PropertyValue.marshal_map(err.inputs), reasons=[str(err)])
    status = status_pb2.Status(code=grpc.StatusCode.UNKNOWN.value[0], message=str(err))
    status.details.add().Pack(detail)

    out = grpc.Status()
    out.code = grpc.StatusCode.UNKNOWN
    out.details = str(err)
    out.trailing_metadata = (("grpc-status-details-bin", status.SerializeToString()),)
    return out


def _clean(method: Callable[..., Any]) -> Callable[..., Any]:
    async def call(self: ProviderServicer, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except NotImplementedError:
            raise
        except Exception as wrapped:  # every error becomes the provider's message
            if isinstance(wrapped, grpc.aio.AbortError):
                raise
            err = _original(wrapped)
            if isinstance(err, PartialCreate):
                await context.abort_with_status(_partial_status(err))
            await context.abort(grpc.StatusCode.UNKNOWN, readable(err))
            raise  # abort raises; this keeps type checkers sure the function does not fall through

    call.__name__ = method.__name__
    return call


class Servicer(ProviderServicer):
    """The SDK's servicer, answering our errors with the provider's message and no traceback."""


for _name in ("GetSchema", "CheckConfig", "DiffConfig", "Configure", "Check", "Diff", "Create", "Update",
              "Delete", "Read", "Invoke", "Parameterize"):
    setattr(Servicer, _name, _clean(getattr(ProviderServicer, _name)))


# ----- the server --------------------------------------------------------------------------------
def sdk_problem(version: str) -> str | None:
    """Why the installed pulumi SDK (`version`) cannot run the plugin, or None."""
    numbers = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    low, high = TESTED_SDK
    if low <= numbers < high:
        return None
    return (f"the mltrain plugin is tested with pulumi>={low[0]}.{low[1]},<{high[0]} and this environment has "
            f"pulumi {version}: install a version in that range (the dynamic resources need no plugin)")


def serve(provider: Provider, version: str, argv: list[str] | None = None) -> None:
    """Start the gRPC server on loopback, print its port (the plugin handshake) and serve until the
    engine stops the plugin or goes away."""
    problem = sdk_problem(importlib.metadata.version("pulumi"))
    if problem:
        sys.exit(problem)
    args = sys.argv[1:] if argv is None else argv
    positional = [a for a in args if not a.startswith("-")]
    if not positional:
        sys.exit("usage: pulumi-resource-mltrain ENGINE_ADDRESS (the Pulumi engine starts this plugin)")
    engine = positional[-1]  # the engine puts its flags (and a tracing endpoint) first
    watch_engine(engine)  # exit once the engine is gone
    progress.connect(engine)  # what the provider says reaches the user through the engine, not stderr

    async def run() -> None:
        asyncio.get_running_loop().set_default_executor(POOL)
        server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(
            Servicer(args, version, provider, engine_address=engine), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        sys.stdout.write(f"{port}\n")
        sys.stdout.flush()
        await server.wait_for_termination()

    # The engine stops a plugin with SIGINT and kills it 5 s later. Started with SIGINT ignored (nohup,
    # a background job of a script), Python would keep ignoring it and every command would wait 5 s.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with contextlib.suppress(KeyboardInterrupt):  # the engine stops plugins with SIGINT when it is done
        asyncio.run(run())
