"""Soak: many jobs under a 20 % fault rate, through `pulumi up` and `pulumi destroy`.

A `pulumi up` killed mid-create, its plugins exiting by themselves and its recovery are
tests/engine/team/test_s3_backend.py::test_login_up_concurrent_up_refused_killed_up_recovered_destroy_keeps_history's."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pytest

from support import stacks
from support.pulumi_cli import ROOT

pytestmark = [pytest.mark.engine, pytest.mark.slow]

MANY = ROOT / "tests" / "engine" / "faults" / "programs" / "many_jobs"
JOBS = 40

# About one call in five meets a fault, of every kind a create can survive.
SOAK_FAULTS = [
    {"method": "GET", "path": "/v1/*", "kind": "status", "status": 503, "probability": 0.08},
    {"method": "GET", "path": "/v1/*", "kind": "malformed", "probability": 0.03},
    {"method": "POST", "path": "/v1/subscription/training/create", "kind": "status", "status": 429,
     "retry_after": 0.2, "probability": 0.05},
    {"method": "POST", "path": "/v1/subscription/training/create", "kind": "business_500", "probability": 0.02},
    {"method": "POST", "path": "/v1/subscription/training/create", "kind": "drop_after_commit", "probability": 0.02},
    {"method": "*", "path": "/v1/training/instance/*/*", "kind": "status", "status": 502, "probability": 0.05},
]


def tasks(emulator: Any) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


def test_soak_many_jobs_under_faults(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(subscription_delay=0.3, task_state_delay=0.3, delete_delay=0.2, seed=7)
    stack = stacks.alaya_stack(emulator, tmp_path, MANY, count=str(JOBS), **{"mltrain:maxRetries": "6"})
    emulator.admin.set_faults(SOAK_FAULTS)

    stack.up("--parallel", "16")
    created = tasks(emulator)
    names = collections.Counter(t["name"] for t in created)
    duplicates = sum(n - 1 for n in names.values())
    in_stack = {r["id"] for r in stack.resources("dynamic/alaya:TrainingJob")}
    orphans = [t["id"] for t in created if t["id"] not in in_stack]
    injected = emulator.admin.requests()["faults"]["total"]
    print(f"soak: {JOBS} jobs, {injected} faults injected, {len(created)} tasks, "
          f"{duplicates} duplicates, {len(orphans)} orphans")
    assert injected > 0
    assert (len(created), duplicates, orphans) == (JOBS, 0, [])
    assert len(in_stack) == JOBS

    stack.destroy("--parallel", "16")
    assert tasks(emulator) == []
    assert emulator.admin.requests()["faults"]["total"] > injected, "faults were injected during destroy too"
