"""Deadlines through the real engine: a dripping answer cannot stretch `up` past customTimeouts, and a
40-second outage inside a long wait is waited out instead of failing the resource.

Neither destroys its job at the end: that a destroy of an Alaya NeW job empties the platform is
tests/engine/test_unreachable.py::test_an_unreachable_platform_keeps_the_job_and_destroy_takes_the_short_path's
(and the emulator is reset before every test)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from support import fault_matrix, inprocess, stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

RESULT = "/v1/subscription/training/result"
DETAIL = "/v1/training/instance/*/detail"
CREATE_DEADLINE = 10.0
MARGIN = 5.0  # covers the clean-up of the task the create made, inside the failing step


def platform_ids(emulator: Any) -> list[str]:
    return inprocess.platform_ids(emulator, "alaya")


def stack_ids(stack: Stack) -> list[str]:
    return fault_matrix.stack_ids(stack, "alaya")


def timed_up(stack: Stack) -> tuple[float, str, int]:
    started = time.monotonic()
    result = stack.up(check=False)
    return time.monotonic() - started, result.stdout + result.stderr, result.returncode


def step_seconds(events: str, name: str) -> int:
    """How long the engine's step for resource `name` took, from its start to its failure, as the
    `pulumi up --json` event stream (one event per line, timestamps in whole seconds) records it: the
    provider's part of the up, the engine's start-up and the program's left out."""
    stamps: dict[str, int] = {}
    for line in events.splitlines():
        event = json.loads(line)
        for kind in ("resourcePreEvent", "resOpFailedEvent"):
            if kind in event and event[kind]["metadata"]["urn"].endswith(f"::{name}"):
                stamps[kind] = int(event["timestamp"])
    assert set(stamps) == {"resourcePreEvent", "resOpFailedEvent"}, events[-4000:]
    return stamps["resOpFailedEvent"] - stamps["resourcePreEvent"]


def test_a_dripping_result_ends_up_at_the_create_deadline(emulator: Any, tmp_path: Path) -> None:
    stack = stacks.alaya_stack(emulator, tmp_path, job=stacks.alaya_job_args(),
                               customTimeouts=json.dumps({"create": f"{CREATE_DEADLINE:.0f}s"}),
                               **{"mltrain:requestTimeout": "4"})
    emulator.admin.set_faults([{"method": "GET", "path": f"{RESULT}*", "kind": "slow_drip", "rate": 1.0}])
    result = stack.up("--json", check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-4000:]
    assert "TrainingJob 'job" in output, "the error names the resource"
    assert emulator.admin.requests()["faults"]["by_kind"].get("slow_drip", 0) >= 1
    assert platform_ids(emulator) == stack_ids(stack) == [], \
        "no orphan: the task the request made was cleaned up, and the state records none"
    provider_part = step_seconds(result.stdout, "job")
    print(f"dripping result: the create failed after {provider_part}s against a {CREATE_DEADLINE:.0f}s deadline")
    assert CREATE_DEADLINE - 1 <= provider_part < CREATE_DEADLINE + MARGIN, provider_part


def test_a_40s_outage_inside_the_wait_is_waited_out(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(subscription_delay=1.0, task_state_delay=10.0)
    stack = stacks.alaya_stack(emulator, tmp_path, job=stacks.alaya_job_args(wait_for="running"),
                               customTimeouts=json.dumps({"create": "180s"}))
    emulator.admin.set_faults([
        {"method": "GET", "path": f"{RESULT}*", "kind": "status", "status": 503, "for_seconds": 40},
        {"method": "GET", "path": DETAIL, "kind": "status", "status": 503, "for_seconds": 40},
    ])
    elapsed, output, code = timed_up(stack)
    print(f"40 s outage: up {'succeeded' if code == 0 else 'failed'} after {elapsed:.1f}s")
    assert code == 0, output[-4000:]
    assert emulator.admin.requests()["faults"]["total"] >= 3, "the outage hit the wait"
    assert len(stack_ids(stack)) == 1
    assert platform_ids(emulator) == stack_ids(stack), "exactly one job, the one in the state"
    assert stack.outputs()["status"] == "RUNNING"
