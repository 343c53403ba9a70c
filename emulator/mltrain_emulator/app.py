"""``create_app``: one FastAPI app serving Alaya NeW, Huawei IAM, ModelArts and the admin API."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.routing import APIRoute

from . import admin
from . import defaults as d
from .alaya import api as alaya_api
from .errors import install_error_handlers
from .fault_rules import FaultRule
from .faults import FaultMiddleware
from .middleware import CommitMiddleware, CountingMiddleware
from .modelarts import aom, iam
from .modelarts import api as modelarts_api
from .routes import RouteTable
from .settings import EmulatorSettings
from .state import World


def create_app(settings: EmulatorSettings | None = None, *, state_file: Path | None = None,
               faults: list[FaultRule] | None = None) -> FastAPI:
    """Build the app. ``state_file`` is loaded now; every change is journaled beside it (persistence.py)."""
    world = World(settings, state_file=state_file, faults=faults)
    app = FastAPI(title="mltrain-emulator", docs_url=d.ADMIN_PREFIX + "/docs",
                  openapi_url=d.ADMIN_PREFIX + "/openapi.json", redoc_url=None)
    app.state.world = world
    platforms = [*(alaya_api.build_router(prefix) for prefix in d.ALAYA_PREFIXES), iam.router, modelarts_api.router,
                 aom.router]
    for router in [*platforms, admin.router]:
        app.include_router(router)
    world.routes = RouteTable(r for router in platforms for r in router.routes if isinstance(r, APIRoute))
    install_error_handlers(app)
    # Added innermost first: Counting → Faults → Commit → handlers.
    app.add_middleware(CommitMiddleware, world=world)
    app.add_middleware(FaultMiddleware, world=world)
    app.add_middleware(CountingMiddleware, world=world)
    return app
