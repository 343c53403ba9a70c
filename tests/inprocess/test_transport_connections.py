"""Connections of `transport.new_client` (httpx's own transport), against tiny loopback servers that
script each answer and count connections: keep-alive reuse, what must never be reused, answers cut
short, a full pool, and that an endpoint behind an environment proxy goes through the proxy."""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from pulumi_mltrain import transport
from pulumi_mltrain.alaya.wire.client import decode as alaya_decode
from pulumi_mltrain.errors import Retryable

OK = b'{"status":200,"message":"OK","data":true}'


def answer(body: bytes = OK, *, extra: bytes = b"", length: int | None = None) -> bytes:
    size = len(body) if length is None else length
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra
            + b"Content-Length: " + str(size).encode() + b"\r\n\r\n" + body)


def _expected(data: bytes) -> int:
    """The length of the whole request whose head ``data`` holds (head, blank line, Content-Length body)."""
    head, _, _ = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(head) + 4 + int(value)
    return len(head) + 4


# What a connection does with each request it reads: (the request's bytes, its index on this
# connection) -> bytes to send, or None to close the connection without answering.
Script = Callable[[bytes, int], "bytes | None"]


@dataclass
class Server:
    """Accepts connections on 127.0.0.1 and answers each request on them by ``script``."""

    script: Script
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    close_after_answer: bool = False

    def __post_init__(self) -> None:
        self.closed = threading.Semaphore(0)  # released once per connection this side has closed
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.talk, args=(conn,), daemon=True).start()

    def talk(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            with conn:
                self.exchange(conn)
        finally:
            self.closed.release()

    def exchange(self, conn: socket.socket) -> None:
        for index in range(50):  # bounded: no test sends more on one connection
            data = b""
            try:
                while b"\r\n\r\n" not in data or len(data) < _expected(data):
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
            except OSError:
                return
            self.requests.append(data)
            reply = self.script(data, index)
            if reply is None:
                return
            conn.sendall(reply)
            if self.close_after_answer:
                return

    def close(self) -> None:
        self.stop.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept now (Linux), not at its timeout
        self.listener.close()
        self.thread.join(5)


@pytest.fixture
def serve() -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(script: Script, **kwargs: bool) -> Server:
        servers.append(Server(script, **kwargs))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


POLICY = transport.Policy(timeout=3, max_retries=0)


def get(http: httpx.Client, path: str = "/x") -> object:
    return transport.call(http, "GET", path, alaya_decode, POLICY)


def test_one_connection_carries_every_request(serve: Callable[..., Server]) -> None:
    server = serve(lambda _request, _index: answer())
    with transport.new_client(server.url, POLICY) as http:
        assert [get(http, f"/x/{i}") for i in range(5)] == [True] * 5
    assert server.connections == 1
    assert [r.split(b" ")[1] for r in server.requests] == [f"/x/{i}".encode() for i in range(5)]


def test_the_request_goes_out_as_httpx_built_it(serve: Callable[..., Server]) -> None:
    server = serve(lambda _request, _index: answer())
    with transport.new_client(server.url, POLICY) as http:
        transport.call(http, "POST", "/jobs?a=1%202", alaya_decode, POLICY, json={"name": "n"}, idempotent=False)
    head, _, body = server.requests[0].partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /jobs?a=1%202 HTTP/1.1"
    headers = [line.split(b":", 1)[0].lower() for line in lines[1:]]
    assert headers.count(b"host") == 1 and headers.count(b"accept-encoding") == 1  # httpx's, not doubled
    assert b"user-agent: pulumi-mltrain/" in head.lower()
    assert json.loads(body) == {"name": "n"}


def test_a_connection_the_server_closed_is_not_reused(serve: Callable[..., Server]) -> None:
    server = serve(lambda _request, _index: answer(), close_after_answer=True)
    with transport.new_client(server.url, POLICY) as http:
        assert get(http) is True
        assert server.closed.acquire(timeout=10), "the server closes the connection it answered on"
        assert get(http) is True  # the idle socket reads as closed (loopback: the close has arrived)
    assert server.connections == 2


def test_connection_close_in_the_answer_is_honoured(serve: Callable[..., Server]) -> None:
    server = serve(lambda _request, _index: answer(extra=b"Connection: close\r\n"))
    with transport.new_client(server.url, POLICY) as http:
        assert get(http) is True and get(http) is True
    assert server.connections == 2


def test_an_answer_cut_short_is_an_error(serve: Callable[..., Server]) -> None:
    server = serve(lambda _request, _index: answer(OK[:10], length=len(OK)), close_after_answer=True)
    with transport.new_client(server.url, POLICY) as http, pytest.raises(Retryable) as err:
        get(http)
    assert "RemoteProtocolError" in str(err.value) and "complete message body" in str(err.value)


def test_an_unfinished_answer_leaves_its_connection_out_of_the_pool(serve: Callable[..., Server]) -> None:
    """The first answer stops 10 bytes in and the connection stays open: reusing it would read the
    rest of that answer as the next one."""
    server = serve(lambda _request, index: answer(OK[:10], length=len(OK)) if server.connections == 1 else answer())
    short = transport.Policy(timeout=0.5, max_retries=0)
    with transport.new_client(server.url, short) as http:
        with pytest.raises(Retryable, match="ReadTimeout"):
            transport.call(http, "GET", "/x", alaya_decode, short)
        assert transport.call(http, "GET", "/x", alaya_decode, POLICY) is True  # patient: a loaded machine
    assert server.connections == 2


def test_no_answer_at_all_reads_as_a_disconnect(serve: Callable[..., Server]) -> None:
    server = serve(lambda _request, _index: None)
    with transport.new_client(server.url, POLICY) as http, pytest.raises(Retryable) as err:
        get(http)
    assert "RemoteProtocolError" in str(err.value) and "Server disconnected" in str(err.value)


def test_a_write_that_waited_for_a_free_connection_in_vain_is_retried(serve: Callable[..., Server]) -> None:
    """Every connection busy: the POST's first attempt times out in the pool (it never left, so it is
    not ambiguous) and its retry goes out once the held requests are answered."""
    release = threading.Event()

    def held(request: bytes, _index: int) -> bytes:
        if request.startswith(b"GET"):
            release.wait(10)
        return answer()

    server = serve(held)
    patient = transport.Policy(timeout=10, max_retries=0)
    quick = transport.Policy(timeout=2, max_retries=2, backoff_initial=0.01, backoff_max=0.02)
    sent: list[str] = []
    with transport.new_client(server.url, quick) as http:

        def seen(request: httpx.Request) -> None:
            sent.append(request.method)
            if request.method == "POST" and sent.count("POST") == 2:
                release.set()  # the first POST gave up waiting for a connection: free them

        http.event_hooks["request"] = [seen]
        holders = [threading.Thread(target=transport.call, args=(http, "GET", f"/held/{i}", alaya_decode, patient))
                   for i in range(transport.MAX_CONNECTIONS)]
        for holder in holders:
            holder.start()
        for _ in range(600):  # bounded (30 s): every connection carries a held request
            if len(server.requests) == transport.MAX_CONNECTIONS:
                break
            time.sleep(0.05)
        assert len(server.requests) == transport.MAX_CONNECTIONS, "every connection is busy"
        assert transport.call(http, "POST", "/jobs", alaya_decode, quick, idempotent=False, json={}) is True
        release.set()
        for holder in holders:
            holder.join(10)
    # Two attempts, of which only the second reached the server (a third when the freed connection came
    # back to the pool after the second's 2 s: a loaded machine; the first never left either way).
    assert sent.count("POST") in (2, 3), sent
    assert [r.split(b" ")[0] for r in server.requests].count(b"POST") == 1


def test_a_full_pool_s_connections_all_stay_open_for_the_next_requests(serve: Callable[..., Server]) -> None:
    """Every connection a client opens stays open when it falls idle: a pool that closes its surplus idle
    connections can close one it has just given to a waiting request (encode/httpcore issue 1110), which
    then fails on a closed socket. Two waves of as many requests at once as the pool holds: the second
    opens no connection."""
    together = threading.Barrier(transport.MAX_CONNECTIONS)

    def at_once(_request: bytes, _index: int) -> bytes:
        together.wait(10)  # bounded: answered only when every connection carries a request
        return answer()

    server = serve(at_once)
    patient = transport.Policy(timeout=15, max_retries=0)
    with transport.new_client(server.url, patient) as http:
        for wave in range(2):
            results: list[object] = []

            def one(path: str, into: list[object] = results) -> None:
                into.append(transport.call(http, "GET", path, alaya_decode, patient))

            callers = [threading.Thread(target=one, args=(f"/w{wave}/{i}",)) for i in range(transport.MAX_CONNECTIONS)]
            for caller in callers:
                caller.start()
            for caller in callers:
                caller.join(20)
            assert results == [True] * transport.MAX_CONNECTIONS, (wave, results)
    assert len(server.requests) == 2 * transport.MAX_CONNECTIONS
    assert server.connections == transport.MAX_CONNECTIONS, "the second wave reused every connection"


def test_an_environment_proxy_still_carries_the_requests(serve: Callable[..., Server],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx reads HTTP_PROXY from the environment: the request goes to the proxy, in absolute form."""
    proxy = serve(lambda _request, _index: answer())
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with transport.new_client("http://127.0.0.1:9", POLICY) as http:
        assert get(http, "/through") is True
    assert proxy.requests[0].startswith(b"GET http://127.0.0.1:9/through HTTP/1.1")


def test_chunked_and_gzipped_answers_are_read_and_reused(serve: Callable[..., Server]) -> None:
    """What API gateways often send: a gzipped body in chunks, on a kept-alive connection."""
    packed = gzip.compress(OK)
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (packed[:7], packed[7:])) + b"0\r\n\r\n"
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    server = serve(lambda _request, _index: head + chunks)
    with transport.new_client(server.url, POLICY) as http:
        assert get(http) is True and get(http) is True
    assert server.connections == 1


def test_a_chunked_answer_cut_short_is_an_error(serve: Callable[..., Server]) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    server = serve(lambda _request, _index: head + b"%x\r\n%s" % (len(OK), OK[:5]), close_after_answer=True)
    with transport.new_client(server.url, POLICY) as http, pytest.raises(Retryable) as err:
        get(http)
    assert "RemoteProtocolError" in str(err.value) and "complete message body" in str(err.value)
