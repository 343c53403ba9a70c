"""The plugin process as the engine sees it: the port handshake, GetPluginInfo and GetSchema over gRPC,
an error answered with the provider's message only, a clean exit on the engine's SIGINT, and an exit
once the engine's port stops answering."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from google.protobuf import empty_pb2, struct_pb2
from plugin_support import PLUGIN
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

import pulumi_mltrain
from support.pulumi_cli import ROOT, ignore_sigint

pytestmark = pytest.mark.engine  # the plugin's process, as the engine starts it


@dataclass
class Running:
    process: subprocess.Popen[bytes]
    engine: socket.socket
    stub: provider_pb2_grpc.ResourceProviderStub


@pytest.fixture
def plugin(request: pytest.FixtureRequest) -> Iterator[Running]:
    """The plugin started as the engine starts it, with a listening socket standing in for the engine;
    `indirect` "sigint ignored" starts it as a background job of a script would (SIGINT ignored)."""
    engine = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{engine.getsockname()[1]}"
    ignored = getattr(request, "param", None) == "sigint ignored"
    process = subprocess.Popen([str(PLUGIN), address], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=ignore_sigint if ignored else None)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline().decode().strip())
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        yield Running(process, engine, provider_pb2_grpc.ResourceProviderStub(channel))
        channel.close()
    finally:
        engine.close()
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def test_plugin_info_and_schema(plugin: Running) -> None:
    info = plugin.stub.GetPluginInfo(empty_pb2.Empty(), timeout=30)
    assert info.version == pulumi_mltrain.__version__
    schema = plugin.stub.GetSchema(provider_pb2.GetSchemaRequest(version=0), timeout=60).schema
    assert schema == (ROOT / "schema.json").read_text(), "GetSchema answers schema.json's content"


def test_an_error_is_the_providers_message(plugin: Running) -> None:
    plugin.stub.Configure(provider_pb2.ConfigureRequest(variables={}, args=struct_pb2.Struct()), timeout=30)
    request = provider_pb2.CreateRequest(urn="urn:pulumi:dev::proj::mltrain:alaya:Nothing::x",
                                         properties=struct_pb2.Struct())
    with pytest.raises(grpc.RpcError) as caught:
        plugin.stub.Create(request, timeout=30)
    details = caught.value.details()
    assert details.startswith("unknown resource type mltrain:alaya:Nothing"), details
    assert "Traceback" not in details and 'File "' not in details, details


@pytest.mark.parametrize("plugin", ["sigint inherited", "sigint ignored"], indirect=True)
def test_sigint_stops_the_plugin_cleanly(plugin: Running) -> None:
    """The engine stops a plugin with SIGINT and kills it 5 s later: a plugin started with SIGINT ignored
    must still take it, or every command waits those 5 s at its end."""
    plugin.process.send_signal(signal.SIGINT)
    try:
        code = plugin.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the plugin was still running 20 s after SIGINT")
    assert code == 0, f"the plugin exited {code} on SIGINT"


def test_exits_when_the_engine_goes_away(plugin: Running) -> None:
    assert plugin.process.poll() is None
    plugin.engine.close()
    for _ in range(200):  # the watchdog gives up after three missed 2 s checks
        if plugin.process.poll() is not None:
            break
        time.sleep(0.1)
    assert plugin.process.poll() is not None, "the plugin outlived its engine"
