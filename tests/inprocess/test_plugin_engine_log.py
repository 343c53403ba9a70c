"""What the provider says reaches the user in the plugin form too: the engine shows a native plugin's
stderr only once the plugin fails, so every note goes through `progress` to the engine's Log, under the
resource's URN. Here the plugin's own Check (as its server calls it) against an emulator whose product
catalogue is broken, with a stand-in for the engine's Log service on loopback, connected as the
plugin's server connects it at its start (`plugin/sdk.serve`). The engine's view of the same note is
tests/engine/plugin/test_plugin_voice.py."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2
from pulumi.provider.experimental import provider as p
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain import progress
from pulumi_mltrain.plugin import sdk
from pulumi_mltrain.plugin.provider import MltrainPlugin
from support.plugin_calls import run
from support.stacks import alaya_job_args

pytestmark = pytest.mark.usefixtures("quick")

TOKEN = "mltrain:alaya:TrainingJob"
URN = f"urn:pulumi:dev::voice::{TOKEN}::job"
PRODUCTS = "/v1/product/list-for-training-task"


@dataclass
class Engine(engine_pb2_grpc.EngineServicer):
    """The engine's Log service, keeping what it is told."""

    logs: list[tuple[int, str, str]] = field(default_factory=list)

    def Log(self, request: engine_pb2.LogRequest, context: Any) -> empty_pb2.Empty:
        self.logs.append((request.severity, request.message, request.urn))
        return empty_pb2.Empty()


@pytest.fixture
def engine() -> Iterator[Engine]:
    found = Engine()
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    engine_pb2_grpc.add_EngineServicer_to_server(found, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    progress.connect(f"127.0.0.1:{port}")  # what the plugin's server does with its engine's address
    try:
        yield found
    finally:
        progress.connect(None)
        server.stop(0)



def plugin_for(emulator: EmulatorHandle) -> MltrainPlugin:
    plugin = MltrainPlugin()
    run(plugin.configure(p.ConfigureRequest(
        variables={"mltrain:config:alayaEndpoint": emulator.url, "mltrain:config:alayaApiKey": emulator.alaya_api_key,
                   "mltrain:config:maxRetries": "0"},
        args={}, accept_secrets=True, accept_resources=False)))
    return plugin


def test_a_skipped_catalogue_check_is_said_to_the_engine_under_the_resource(emulator: EmulatorHandle,
                                                                            engine: Engine) -> None:
    emulator.admin.set_faults([{"method": "GET", "path": PRODUCTS, "kind": "status", "status": 503}])
    checked = run(plugin_for(emulator).check(p.CheckRequest(URN, {}, sdk.wrap(alaya_job_args()), b"")))
    assert not checked.failures, "an unreadable catalogue is skipped, not a failure"
    said = [(severity, message) for severity, message, urn in engine.logs if urn == URN]
    skipped = [message for _, message in said if message.startswith("[mltrain] catalogue check skipped: ")]
    assert len(skipped) == 1 and "503 Service Unavailable" in skipped[0], engine.logs
    assert all(severity == engine_pb2.INFO for severity, _ in said)
    assert all(urn == URN for _, _, urn in engine.logs), "every line of the check is said under its resource"


def test_without_an_engine_a_line_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    """Outside a provider process (this one), nothing connects: stderr, as before."""
    progress.notice("a note", None)
    assert capsys.readouterr().err == "[mltrain] a note\n"
