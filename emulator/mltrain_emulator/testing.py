"""A small client for the admin API, and the handle the pytest ``emulator`` fixture yields.

Lives in the package (not in conftest) so benches and other test suites drive the emulator the
same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import httpx

from . import defaults as d
from .fault_rules import FaultRule, parse_fault_spec

Json = dict[str, Any]


class EmulatorAdmin:
    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        # Plain HTTP on loopback: verify=False only skips building an SSL context (~50 ms a client).
        self._http = httpx.Client(base_url=url.rstrip("/") + d.ADMIN_PREFIX, timeout=timeout, verify=False)

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        response = self._http.request(method, path, json=body)
        response.raise_for_status()
        return response.json()

    def state(self) -> Json:
        """``{"clock", "alaya": {"subscriptions", "tasks"}, "modelarts": {"algorithms", "jobs"}, "iam"}``."""
        result: Json = self._call("GET", "/state")
        return result

    def requests(self) -> Json:
        """``{"total", "endpoints": {"METHOD /tpl": n}, "faults": {"total", "by_kind", "by_endpoint"}}``."""
        result: Json = self._call("GET", "/requests")
        return result

    def reset(self) -> None:
        self._call("POST", "/reset")

    def settings(self) -> Json:
        result: Json = self._call("GET", "/settings")
        return result

    def set_settings(self, **patch: Any) -> Json:
        result: Json = self._call("POST", "/settings", patch)
        return result

    def set_faults(self, rules: list[FaultRule | Json | str]) -> list[Json]:
        """Replace the fault rules; a string is the CLI's compact form."""
        body = [
            (parse_fault_spec(r) if isinstance(r, str) else FaultRule.model_validate(r)).model_dump()
            for r in rules
        ]
        result: list[Json] = self._call("POST", "/faults", body)["rules"]
        return result

    def faults(self) -> list[Json]:
        result: list[Json] = self._call("GET", "/faults")["rules"]
        return result

    def clear_faults(self) -> None:
        self._call("DELETE", "/faults")

    def advance(self, seconds: float) -> float:
        """Move the emulator clock forward; returns its new time (epoch seconds)."""
        now: float = self._call("POST", "/clock/advance", {"seconds": seconds})["now_epoch"]
        return now

    def patch(self, platform: str, kind: str, object_id: str, changes: Json) -> Json:
        """Change a stored object out of band (``changes``: dotted wire path → value); returns the
        object as the platform's own GET now shows it. Unknown ID → ``httpx.HTTPStatusError`` (404)."""
        result: Json = self._call("POST", "/patch", {"platform": platform, "kind": kind, "id": object_id,
                                                     "set": changes})
        return result

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> EmulatorAdmin:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


@dataclass(frozen=True)
class EmulatorHandle:
    """A running emulator as tests see it: base URL, admin client and the default credentials."""

    url: str
    admin: EmulatorAdmin
    alaya_api_key: str = d.DEFAULT_ALAYA_API_KEY
    iam_user: str = d.DEFAULT_IAM_USER
    iam_password: str = field(default=d.DEFAULT_IAM_PASSWORD, repr=False)
    iam_domain: str = d.DEFAULT_IAM_DOMAIN
    project_name: str = d.DEFAULT_PROJECT_NAME
    project_id: str = d.DEFAULT_PROJECT_ID
    access_key: str = d.DEFAULT_ACCESS_KEY
    secret_key: str = field(default=d.DEFAULT_SECRET_KEY, repr=False)
