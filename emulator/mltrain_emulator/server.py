"""``EmulatorServer``: uvicorn in a background thread on 127.0.0.1, for tests and embedding.

The socket is bound before uvicorn starts, so port 0 yields a free port with no race, and ``url``
is known at once. No signal handlers are installed (uvicorn skips them off the main thread).
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from types import TracebackType

import uvicorn
from fastapi import FastAPI

from . import defaults as d
from .app import create_app
from .fault_rules import FaultRule
from .faults import quiet_dropped_responses
from .settings import EmulatorSettings


def bind_loopback(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 only; ``port=0`` picks a free one.

    ``IPPROTO_TCP`` is explicit because asyncio turns on TCP_NODELAY only for sockets that say so;
    without it every response waits ~40 ms for a delayed ACK (Nagle)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((d.HOST, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    return sock


def uvicorn_config(app: FastAPI, log_level: str) -> uvicorn.Config:
    quiet_dropped_responses()
    # Idle keep-alive connections stay open for 75 s (nginx's default). With uvicorn's 5 s, the same as
    # httpx's client-side expiry, the server could close a connection just as a client reused it,
    # and the request failed with "Server disconnected without sending a response".
    # The Date header comes from the emulator's clock (middleware.CountingMiddleware), not uvicorn's.
    return uvicorn.Config(app, log_level=log_level, access_log=log_level == "debug", ws="none",
                          lifespan="off", timeout_graceful_shutdown=1, timeout_keep_alive=75,
                          date_header=False)


class EmulatorServer:
    def __init__(self, settings: EmulatorSettings | None = None, *, port: int = 0,
                 state_file: Path | None = None, faults: list[FaultRule] | None = None,
                 log_level: str = "warning") -> None:
        self.app = create_app(settings, state_file=state_file, faults=faults)
        self._requested_port = port
        self._log_level = log_level
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def port(self) -> int:
        if self._socket is None:
            raise RuntimeError("the emulator is not running; call start() first")
        port: int = self._socket.getsockname()[1]
        return port

    @property
    def url(self) -> str:
        return f"http://{d.HOST}:{self.port}"

    def start(self, timeout: float = 10.0) -> EmulatorServer:
        if self._thread is not None:
            raise RuntimeError("the emulator is already running")
        self._socket = bind_loopback(self._requested_port)
        self._server = uvicorn.Server(uvicorn_config(self.app, self._log_level))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name="mltrain-emulator", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the emulator did not start; see the uvicorn log above")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            self.app.state.world.close()
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
