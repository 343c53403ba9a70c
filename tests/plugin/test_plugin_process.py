"""The plugin process as the engine sees it: the port handshake, GetPluginInfo and GetSchema over gRPC,
an error answered with the provider's message only, and an exit once the engine's port stops answering."""

from __future__ import annotations

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
from support.pulumi_cli import ROOT


@dataclass
class Running:
    process: subprocess.Popen[bytes]
    engine: socket.socket
    stub: provider_pb2_grpc.ResourceProviderStub


@pytest.fixture
def plugin() -> Iterator[Running]:
    """The plugin started as the engine starts it, with a listening socket standing in for the engine."""
    engine = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{engine.getsockname()[1]}"
    process = subprocess.Popen([str(PLUGIN), address], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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


def test_exits_when_the_engine_goes_away(plugin: Running) -> None:
    assert plugin.process.poll() is None
    plugin.engine.close()
    for _ in range(200):  # the watchdog gives up after three missed 2 s checks
        if plugin.process.poll() is not None:
            break
        time.sleep(0.1)
    assert plugin.process.poll() is not None, "the plugin outlived its engine"
