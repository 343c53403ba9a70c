"""What people read when a provider call fails: our errors as their message alone, bugs with their
traceback, under the SDK's own dynamic provider host (`host.readable_errors`) and in the plugin.

The host module ends by calling `main()` (it serves gRPC), so the tests run a copy of its code
without that call; `test_the_sdk_host_has_what_readable_errors_relies_on` fails when the SDK changes
the shape the provider relies on.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import traceback
import types
from pathlib import Path
from typing import Any, NoReturn

import grpc
import grpc.aio
import pytest
from google.protobuf import struct_pb2
from pulumi.dynamic import ResourceProvider
from pulumi.provider.experimental import server
from pulumi.runtime import proto

from pulumi_mltrain import host
from pulumi_mltrain.errors import ApiError, MltrainError, for_resource
from pulumi_mltrain.plugin import sdk

REFUSED = ApiError("Alaya NeW", "POST", "/v1/subscription/training/create", 403, None, "forbidden")
TRACEBACK_HEAD = "Traceback (most recent call last)"
MESSAGE = ("TrainingJob 'llama3-sft': Alaya NeW rejected the request (403 Forbidden): forbidden "
           "(POST /v1/subscription/training/create)")


def sdk_host() -> types.ModuleType:
    """The SDK's dynamic provider host module (`pulumi.dynamic.__main__`), all but its `main()` call."""
    spec = importlib.util.find_spec("pulumi.dynamic.__main__")
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text())
    tree.body = [node for node in tree.body if not (
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name) and node.value.func.id == "main")]
    module = types.ModuleType("sdk_dynamic_host")
    module.__file__ = spec.origin
    exec(compile(tree, spec.origin, "exec"), module.__dict__)  # the SDK's own code
    return module


class Failing(ResourceProvider):
    """A provider whose create raises what it is given."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def create(self, props: dict[str, Any]) -> NoReturn:
        raise self.error


class Aborted(Exception):
    pass


class Context:
    """A servicer context that records what the host answers (grpc's own `abort` raises too)."""

    details = ""

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        self.details = details
        raise Aborted(details)


def create_through(module: types.ModuleType, error: BaseException) -> str:
    """What the host's `Create` answers when the provider raises `error`."""
    module.get_provider = lambda props, config: Failing(error)
    request = proto.CreateRequest(properties=struct_pb2.Struct(fields={
        "__provider": struct_pb2.Value(string_value="pickled")}))
    context = Context()
    with pytest.raises(Aborted):
        module.DynamicResourceProviderServicer().Create(request, context)
    return context.details


def a_bug() -> KeyError:
    try:
        {}["status"]  # the line a bug's traceback must show
    except KeyError as err:
        return err
    raise AssertionError("unreachable")


# The lowest supported SDK (3.231) has no traceback wrapper: gRPC answers a failure with its text.
OLDER_HOST = host.leaves_errors_to_grpc(sdk_host())


def test_the_sdk_host_has_what_readable_errors_relies_on() -> None:
    if OLDER_HOST:
        module = sdk_host()
        assert not hasattr(module, "_abort_with_traceback") and not host.readable_errors(module)
        return
    assert host.host_problem(sdk_host()) is None


def test_our_errors_read_as_their_message_and_bugs_keep_their_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    module = sdk_host()
    if OLDER_HOST:  # our error leaves Create as it is, for gRPC to answer with its text; nothing is said
        module.get_provider = lambda props, config: Failing(for_resource("TrainingJob", "llama3-sft", REFUSED))
        request = proto.CreateRequest(properties=struct_pb2.Struct(fields={
            "__provider": struct_pb2.Value(string_value="pickled")}))
        with pytest.raises(MltrainError) as caught:
            module.DynamicResourceProviderServicer().Create(request, Context())
        assert str(caught.value) == MESSAGE and not host.readable_errors(module)
        assert "[mltrain]" not in capsys.readouterr().err
        return
    assert TRACEBACK_HEAD in create_through(module, for_resource("TrainingJob", "llama3-sft", REFUSED)), \
        "the SDK's host, as it is, prints our traceback"
    assert host.readable_errors(module) and host.readable_errors(module), "in place, once"

    assert create_through(module, for_resource("TrainingJob", "llama3-sft", REFUSED)) == MESSAGE

    bug = create_through(module, a_bug())
    assert bug.startswith(TRACEBACK_HEAD) and "KeyError: 'status'" in bug, bug

    wrapped = create_through(module, for_resource("TrainingJob", "llama3-sft", a_bug()))
    assert wrapped.startswith("TrainingJob 'llama3-sft': 'status'\n\n" + TRACEBACK_HEAD), wrapped
    assert '{}["status"]' in wrapped and "KeyError: 'status'" in wrapped, "the bug's own frames"
    assert module.traceback.format_list is traceback.format_list, "the rest of the module is the module"


def test_a_changed_host_is_left_alone_and_said_once(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(host, "_warned", [])
    changed = sdk_host()
    if OLDER_HOST:  # as a host with the wrapper would be, so that the change is one to report
        changed._abort_with_traceback = lambda fn: fn  # type: ignore[attr-defined]
    changed.DynamicResourceProviderServicer.Create = lambda self, request, context: None
    assert not host.readable_errors(changed) and not host.readable_errors(changed)
    err = capsys.readouterr().err
    assert err.count("[mltrain]") == 1, err
    said = "its Check" if OLDER_HOST else "its Create"  # the first method found without the wrapper
    assert f"pulumi.dynamic.__main__) has changed: {said} no longer reports errors through " \
           "traceback.format_exc()" in err and "keep the Python traceback" in err, err
    assert getattr(changed, "traceback", traceback) is traceback, "nothing replaced"


def test_outside_the_host_nothing_changes() -> None:
    assert host.readable_errors() is False, "pytest is not the SDK's host"


class AioContext:
    details = ""

    async def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        self.details = details
        raise grpc.aio.AbortError()


def plugin_answer(error: BaseException) -> str:
    """What the plugin's servicer answers when a call raises `error` (through the SDK's own wrapper)."""

    async def call(self: Any, request: Any, context: Any) -> NoReturn:
        raise error

    # Newer SDKs wrap each call in `_raise_with_traceback`; 3.231 formats inline, so the call is bare there.
    wrap = getattr(server, "_raise_with_traceback", lambda fn: fn)
    method = sdk._clean(wrap(call))
    context = AioContext()
    loop = asyncio.new_event_loop()  # not asyncio.run: it leaves no current loop for later tests
    try:
        with pytest.raises(grpc.aio.AbortError):
            loop.run_until_complete(method(None, None, context))
    finally:
        loop.close()
    return context.details


def test_the_plugin_answers_our_errors_with_their_message_and_bugs_with_their_traceback() -> None:
    assert plugin_answer(for_resource("TrainingJob", "llama3-sft", REFUSED)) == MESSAGE
    assert plugin_answer(MltrainError("unknown resource type x")) == "unknown resource type x"
    bug = plugin_answer(a_bug())
    assert bug.startswith(TRACEBACK_HEAD) and "KeyError: 'status'" in bug and '{}["status"]' in bug, bug

