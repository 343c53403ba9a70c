"""Per-request bookkeeping: count the call (outermost, so faulted calls count too), and around
the handler bring the world to "now" and journal what changed (when a state file is kept).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .routes import platform_of
from .state import World


class CountingMiddleware:
    def __init__(self, app: ASGIApp, world: World) -> None:
        self.app = app
        self.world = world

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and platform_of(scope["path"]) != "admin":
            self.world.requests.count(self.world.routes.key(scope["method"], scope["path"]))
        await self.app(scope, receive, send)


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
