"""Emulator of Alaya NeW, Huawei IAM and ModelArts v2 for tests and demos (the ``mltrain-emulator`` distribution).

One FastAPI app on one loopback port: Alaya under ``/v1`` and ``/api/osm/v1``, IAM at
``/v3/auth/tokens``, ModelArts under ``/v2/{project_id}``, admin under ``/_admin``. Objects move
through their state machines on a clock tests advance; faults are injected per endpoint.
It knows the platforms from its own statement of them (``alaya.contract``, ``modelarts.contract``),
never from a client's, so a client's wrong constant cannot pass on both sides. Each platform is a
subpackage (``alaya``; ``modelarts`` with IAM and the AK/SK gateway) on the core at this level: the
world and its clock (``state``), settings, faults, the app, the admin API and the server.
"""

from __future__ import annotations

from .app import create_app
from .fault_rules import FaultRule, parse_fault_spec
from .server import EmulatorServer
from .settings import EmulatorSettings, IamUser
from .testing import EmulatorAdmin, EmulatorHandle

__all__ = [
    "EmulatorAdmin",
    "EmulatorHandle",
    "EmulatorServer",
    "EmulatorSettings",
    "FaultRule",
    "IamUser",
    "create_app",
    "parse_fault_spec",
]
