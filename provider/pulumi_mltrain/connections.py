"""An httpx transport over the standard library's http.client, with a small keep-alive pool.

httpx's default transport (httpcore over h11) spent about 0.4 ms of CPU on each of this project's
small JSON requests, most of a job's provider CPU; http.client does the same exchange in about a
third of that. Everything above the transport stays httpx: the request, auth, headers, content
decoding and the Response the clients read, and its exception types, so `transport.call` maps
errors exactly as before. `transport.new_client` uses this for direct connections only: an
endpoint reached through a proxy from the environment keeps httpx's own transport.

The pool follows httpx's defaults: at most ``max_connections`` requests in flight (a request waits
up to its pool timeout for a slot), at most ``max_keepalive_connections`` idle connections, kept for
``keepalive_expiry`` seconds. An idle connection whose socket has become readable (the server closed
it, or sent something unasked) is dropped instead of reused.
"""

from __future__ import annotations

import http.client
import select
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx

CHUNK = 65536

_Origin = tuple[str, str, int]


class _NetworkStream:
    """The ``network_stream`` extension httpx's own transport gives: `transport._abort` reads the socket."""

    def __init__(self, conn: http.client.HTTPConnection) -> None:
        self._conn = conn

    def get_extra_info(self, info: str) -> Any:
        return self._conn.sock if info == "socket" else None


def _read_error(err: Exception, request: httpx.Request) -> httpx.TransportError:
    if isinstance(err, TimeoutError):
        return httpx.ReadTimeout(str(err) or "timed out", request=request)
    if isinstance(err, http.client.RemoteDisconnected):
        return httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
    if isinstance(err, http.client.HTTPException):
        return httpx.RemoteProtocolError(f"{type(err).__name__}: {err}", request=request)
    return httpx.ReadError(str(err) or type(err).__name__, request=request)


class _Body(httpx.SyncByteStream):
    """The answer's body; on close its connection goes back to the pool if the body was read to the
    end and the server keeps the connection open, and is closed otherwise."""

    def __init__(self, pool: StdlibTransport, origin: _Origin, conn: http.client.HTTPConnection,
                 answer: http.client.HTTPResponse, request: httpx.Request) -> None:
        self._pool, self._origin, self._conn, self._answer, self._request = pool, origin, conn, answer, request
        self._closed = False
        self._complete = False  # read to its end: only then may the connection carry another request

    def __iter__(self) -> Iterator[bytes]:
        while True:
            try:
                chunk = self._answer.read1(CHUNK)
            except (OSError, http.client.HTTPException, ValueError) as err:
                raise _read_error(err, self._request) from err
            if not chunk:
                if self._answer.length:  # bytes of the Content-Length still to come: the connection closed
                    raise httpx.RemoteProtocolError("the connection closed before the answer's end",
                                                    request=self._request)
                # The end: the Content-Length reached, the last chunk, or the close that ends the body.
                self._complete = True
                self._answer.close()
                return
            yield chunk

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        reusable = self._complete and not self._answer.will_close
        self._pool._release(self._origin, self._conn if reusable else None)
        if not reusable:
            self._conn.close()


class StdlibTransport(httpx.BaseTransport):
    """HTTP/1.1 over http.client; see the module's docstring."""

    def __init__(self, verify: bool = True, limits: httpx.Limits | None = None) -> None:
        limits = limits or httpx.Limits()
        self._verify = verify
        self._ssl: ssl.SSLContext | None = None
        self._max_idle = limits.max_keepalive_connections or 0
        self._expiry = limits.keepalive_expiry if limits.keepalive_expiry is not None else float("inf")
        self._slots = threading.BoundedSemaphore(limits.max_connections) if limits.max_connections else None
        self._lock = threading.Lock()
        self._idle: list[tuple[_Origin, http.client.HTTPConnection, float]] = []  # the newest last

    # -- the pool ---------------------------------------------------------------------------------

    def _context(self) -> ssl.SSLContext:
        """Built on the first https connection only (~50 ms), the way httpx builds its own."""
        with self._lock:
            if self._ssl is None:
                self._ssl = httpx.create_ssl_context(verify=self._verify, trust_env=True)
            return self._ssl

    def _reuse(self, origin: _Origin) -> http.client.HTTPConnection | None:
        now = time.monotonic()
        stale: list[http.client.HTTPConnection] = []
        found = None
        with self._lock:
            keep = []
            for entry in self._idle:
                if now - entry[2] > self._expiry:
                    stale.append(entry[1])
                else:
                    keep.append(entry)
            self._idle = keep
            for i in range(len(keep) - 1, -1, -1):
                if keep[i][0] == origin:
                    found = keep.pop(i)[1]
                    break
        for conn in stale:
            conn.close()
        if found is not None and _readable(found):
            found.close()
            return None
        return found

    def _release(self, origin: _Origin, conn: http.client.HTTPConnection | None) -> None:
        extra = None
        if conn is not None:
            with self._lock:
                self._idle.append((origin, conn, time.monotonic()))
                if len(self._idle) > self._max_idle:
                    extra = self._idle.pop(0)[1]
        if extra is not None:
            extra.close()
        if self._slots is not None:
            self._slots.release()

    def _connect(self, origin: _Origin, timeout: float | None, request: httpx.Request) -> http.client.HTTPConnection:
        scheme, host, port = origin
        conn: http.client.HTTPConnection
        if scheme == "https":
            conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=self._context())
        else:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        try:
            conn.connect()
        except TimeoutError as err:
            conn.close()
            raise httpx.ConnectTimeout(str(err) or "timed out", request=request) from err
        except OSError as err:  # refused, unreachable, name not found, TLS handshake or certificate
            conn.close()
            raise httpx.ConnectError(str(err) or type(err).__name__, request=request) from err
        return conn

    # -- one exchange -----------------------------------------------------------------------------

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = request.extensions.get("timeout", {})
        url = request.url
        scheme = url.scheme
        if scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"Request URL has an unsupported protocol '{scheme}://'.",
                                            request=request)
        origin = (scheme, url.raw_host.decode("ascii"), url.port or (443 if scheme == "https" else 80))
        if self._slots is not None and not self._slots.acquire(timeout=timeouts.get("pool")):
            raise httpx.PoolTimeout("no connection became free within the pool timeout", request=request)
        try:
            conn = self._reuse(origin) or self._connect(origin, timeouts.get("connect"), request)
            answer = self._exchange(conn, request, timeouts)
        except BaseException:
            if self._slots is not None:
                self._slots.release()
            raise
        version = b"HTTP/1.0" if answer.version == 10 else b"HTTP/1.1"
        # http.client decodes header lines as latin-1; encoding them back gives httpx the bytes as sent.
        headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in answer.getheaders()]
        return httpx.Response(answer.status, headers=headers,
                              stream=_Body(self, origin, conn, answer, request),
                              extensions={"http_version": version, "reason_phrase": answer.reason.encode("latin-1"),
                                          "network_stream": _NetworkStream(conn)})

    @staticmethod
    def _exchange(conn: http.client.HTTPConnection, request: httpx.Request,
                  timeouts: dict[str, float | None]) -> http.client.HTTPResponse:
        """Send the request and read the answer's head; the connection is closed on any failure."""
        try:
            assert conn.sock is not None
            conn.sock.settimeout(timeouts.get("write"))
            # The target exactly as httpx encoded it; httpx's own Host and Accept-Encoding headers go as they are.
            conn.putrequest(request.method, request.url.raw_path.decode("ascii"), skip_host=True,
                            skip_accept_encoding=True)
            for name, value in request.headers.raw:
                conn.putheader(name, value)
            conn.endheaders(request.read() or None)
        except TimeoutError as err:
            conn.close()
            raise httpx.WriteTimeout(str(err) or "timed out", request=request) from err
        except (OSError, http.client.HTTPException) as err:
            conn.close()
            raise httpx.WriteError(str(err) or type(err).__name__, request=request) from err
        try:
            assert conn.sock is not None
            conn.sock.settimeout(timeouts.get("read"))
            return conn.getresponse()
        except (OSError, http.client.HTTPException, ValueError) as err:
            conn.close()
            raise _read_error(err, request) from err

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for _, conn, _ in idle:
            conn.close()


def _readable(conn: http.client.HTTPConnection) -> bool:
    """True when an idle connection's socket has something to read: the server closed it (or wrote
    unasked), so it must not carry another request. Errors count as readable."""
    sock = conn.sock
    if sock is None:
        return True
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return True
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


__all__ = ["StdlibTransport"]
