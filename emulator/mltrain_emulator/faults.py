"""Fault-injection ASGI middleware: breaks the calls that ``FaultBook`` selects.

Three families: answer instead of the handler (``status``, ``business_500``, ``token_expiry``,
``respond``); delay or flag, then run normally (``latency``, ``never_resolve``); run the handler — so
the write is committed — and then spoil the answer (``drop_after_commit``, ``slow_after_commit``,
``malformed``, ``slow_drip``, ``respond`` with ``commit``).
The last family is what proves a client idempotent: it saw an error, yet the object exists.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time

from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .alaya.errors import alaya_envelope
from .errors import platform_error
from .fault_rules import NEVER_RESOLVE_SCOPE_KEY, FaultRule
from .modelarts import contract as mc
from .modelarts.errors import ModelArtsError
from .routes import Platform, canonical_path, platform_of
from .state import World

_UNFINISHED = "ASGI callable returned without completing response."


class _QuietDrops(logging.Filter):
    """uvicorn logs an error for the response we cut on purpose; that line is noise, not a bug."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != _UNFINISHED


def quiet_dropped_responses() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietDrops) for f in logger.filters):
        logger.addFilter(_QuietDrops())


class FaultMiddleware:
    def __init__(self, app: ASGIApp, world: World) -> None:
        self.app = app
        self.world = world

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        platform = platform_of(path)
        rule = None
        if platform != "admin":
            rule = self.world.faults.select(method, canonical_path(path), platform)
        if rule is None:
            await self.app(scope, receive, send)
            return
        self.world.requests.count_fault(rule.kind, self.world.routes.key(method, path))
        await self._apply(rule, platform, scope, receive, send)

    async def _apply(
        self, rule: FaultRule, platform: Platform, scope: Scope, receive: Receive, send: Send
    ) -> None:
        match rule.kind:
            case "status":
                assert rule.status is not None
                seconds = self.world.faults.retry_after(rule)
                retry = {} if seconds is None else {"Retry-After": str(seconds)}
                self.world.requests.log_answer(
                    at=self.world.now(), call=self.world.routes.key(scope["method"], scope["path"]),
                    path=scope["path"], query=scope.get("query_string", b"").decode("latin-1"),
                    body=await _body_head(receive), status=rule.status, retry_after=seconds)
                response = JSONResponse(platform_error(platform, rule.status), rule.status, retry)
                await response(scope, receive, send)
            case "business_500":
                await JSONResponse(alaya_envelope(500, "Internal Server Error", {}))(scope, receive, send)
            case "token_expiry":
                token = Headers(scope=scope).get("x-auth-token")
                record = self.world.find_token(token) if token else None
                if record is not None:
                    record.revoked = True
                    self.world.commit()
                    self.world.save_if_dirty()
                expired = ModelArtsError(401, mc.TOKEN_EXPIRED, "token expired.", "Get a new token from IAM.")
                await JSONResponse(expired.body(), 401)(scope, receive, send)
            case "latency":
                await asyncio.sleep(rule.seconds)
                await self.app(scope, receive, send)
            case "never_resolve":
                scope[NEVER_RESOLVE_SCOPE_KEY] = True
                await self.app(scope, receive, send)
            case "drop_after_commit":
                start, body = await self._run(scope, receive)
                # Promise one byte more than we send, send half, and return: uvicorn closes the
                # connection, so the client sees a transport error after the server committed.
                headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
                await send({**start, "headers": [*headers, (b"content-length", str(len(body) + 1).encode())]})
                await send({"type": "http.response.body", "body": body[: len(body) // 2], "more_body": True})
            case "slow_after_commit":
                start, body = await self._run(scope, receive)
                await asyncio.sleep(rule.seconds)
                await send(start)
                await send({"type": "http.response.body", "body": body})
            case "malformed":
                await self._run(scope, receive)
                broken = b'{"status": 200, "message": "OK", "data": {"truncat'
                await send({"type": "http.response.start", "status": 200,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(broken)).encode())]})
                await send({"type": "http.response.body", "body": broken})
            case "slow_drip":
                start, body = await self._run(scope, receive)
                await send(start)
                await _drip(rule, body, receive, send)
            case "respond":
                if rule.commit:
                    await self._run(scope, receive)
                await _answer(rule)(scope, receive, send)

    async def _run(self, scope: Scope, receive: Receive) -> tuple[Message, bytes]:
        """Run the handler to completion, holding back its response."""
        messages: list[Message] = []

        async def hold(message: Message) -> None:
            messages.append(message)

        await self.app(scope, receive, hold)
        start = next(m for m in messages if m["type"] == "http.response.start")
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        return start, body


async def _body_head(receive: Receive, limit: int = 512) -> str:
    """The start of a request body the handler will never read (a ``status`` answer), for the log."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)[:limit].decode("utf-8", "replace")


def _answer(rule: FaultRule) -> Response:
    """The canned answer of a ``respond`` rule: JSON ``body``, raw ``text``, or an empty body.

    A JSON ``null`` answer is ``text="null"`` with ``content_type="application/json"``: a ``None`` body
    cannot be told apart from no body once the rule has been through JSON.
    """
    status = 200 if rule.status is None else rule.status
    if rule.body is not None:
        return JSONResponse(rule.body, status)
    return Response(rule.text or "", status, media_type=rule.content_type)


async def _drip(rule: FaultRule, body: bytes, receive: Receive, send: Send) -> None:
    """Send ``body`` one byte-sized chunk at a time at ``rule.rate`` bytes/s.

    Bounded three ways: the body ends, ``rule.seconds`` (if > 0) passes — then the rest goes at once —
    or the client hangs up, which ends the drip without sending more.
    """
    chunk = max(1, int(rule.rate // 10))  # about ten sends a second at high rates, one byte at low ones
    interval = chunk / rule.rate
    stop_at = time.monotonic() + rule.seconds if rule.seconds > 0 else math.inf
    gone = asyncio.ensure_future(_disconnected(receive))
    try:
        offset = 0
        while offset < len(body) and time.monotonic() < stop_at:
            await send({"type": "http.response.body", "body": body[offset:offset + chunk], "more_body": True})
            offset += chunk
            done, _ = await asyncio.wait({gone}, timeout=min(interval, max(0.0, stop_at - time.monotonic())))
            if done:
                return
        await send({"type": "http.response.body", "body": body[offset:]})
    finally:
        gone.cancel()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
