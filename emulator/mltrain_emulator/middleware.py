"""Per-request bookkeeping: count the call and date the answer by the emulator's clock (outermost, so
faulted answers count and are dated too), and around the handler bring the world to "now" and journal
what changed (when a state file is kept).
"""

from __future__ import annotations

from email.utils import formatdate

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .routes import platform_of
from .state import World


class CountingMiddleware:
    """Counts each platform call, and gives every answer the `Date` header a platform's gateway sends,
    from the emulator's clock (uvicorn's own is off: `server.uvicorn_config`), so that an advanced clock
    shows in the header as it shows in the create times."""

    def __init__(self, app: ASGIApp, world: World) -> None:
        self.app = app
        self.world = world

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if platform_of(scope["path"]) != "admin":
            self.world.requests.count(self.world.routes.key(scope["method"], scope["path"]))

        async def send_dated(message: Message) -> None:
            if message["type"] == "http.response.start":
                date = formatdate(self.world.now(), usegmt=True).encode()
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"date"]
                message = {**message, "headers": [*headers, (b"date", date)]}
            await send(message)

        await self.app(scope, receive, send_dated)


class CommitMiddleware:
    """Innermost: sync before the handler; save when it starts its answer (so no client sees an
    answer to a change that is not on disk yet) and before any fault spoils the answer."""

    def __init__(self, app: ASGIApp, world: World) -> None:
        self.app = app
        self.world = world

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.world.sync()

        async def send_saved(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.world.save_if_dirty()
            await send(message)

        try:
            await self.app(scope, receive, send_saved)
        finally:
            self.world.save_if_dirty()
