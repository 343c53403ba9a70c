"""One HTTP client per platform and settings in a provider process: every resource handler and RPC thread
of the process shares it, and its keep-alive connection carries call after call."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from pulumi_mltrain.config import Settings
from support import inprocess

PRODUCTS = b'{"status": 200, "message": "OK", "data": []}'


class Counting(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.connections = 0
        self.requests = 0
        self.lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    """Answers every GET with an empty Alaya product list, on a keep-alive connection."""

    protocol_version = "HTTP/1.1"
    server: Counting

    def setup(self) -> None:
        super().setup()
        with self.server.lock:
            self.server.connections += 1

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.requests += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(PRODUCTS)))
        self.end_headers()
        self.wfile.write(PRODUCTS)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[Counting]:
    with Counting() as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield httpd
        httpd.shutdown()
        thread.join(5)


def calls(kind: str, server: Counting, key: str = "key-1") -> Any:
    """The platform calls of one operation of a new handler of `kind`, configured for the server."""
    handler = inprocess.serving(kind, Settings.load({
        "mltrain:alayaEndpoint": f"http://127.0.0.1:{server.server_address[1]}", "mltrain:alayaApiKey": key}, env={}))
    return handler.platform({})


def test_handlers_of_one_account_share_one_client_and_one_connection(server: Counting) -> None:
    jobs, mounts = calls("alaya:TrainingJob", server), calls("alaya:StorageMount", server)
    assert jobs.client is mounts.client is calls("alaya:TrainingJob", server).client
    assert calls("alaya:TrainingJob", server, key="key-2").client is not jobs.client, "another account"
    for _ in range(5):
        jobs.client.products()
        mounts.client.products()
    assert (server.requests, server.connections) == (10, 1)


def test_rpc_threads_share_the_client(server: Counting) -> None:
    """Four threads at once (the dynamic provider host's pool): one client, at most one connection each."""
    seen: list[Any] = []
    start = threading.Barrier(4)

    def rpc() -> None:
        instance = calls("alaya:TrainingJob", server, key="key-threads")
        start.wait(5)
        client = instance.client
        for _ in range(5):
            client.products()
        seen.append(client)

    threads = [threading.Thread(target=rpc) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(seen) == 4 and all(c is seen[0] for c in seen)
    assert server.requests == 20 and 1 <= server.connections <= 4
