"""Provider processes through the engine: one, whose calls all run at once (`host.py`)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from support.pulumi_cli import Stack
from support.stacks import PROGRAMS

PROGRAM = PROGRAMS / "many_jobs"


def provider_names(stack: Stack) -> set[str]:
    return {r["urn"].rsplit("::", 1)[-1] for r in stack.resources() if r["type"] == "pulumi:providers:pulumi-python"}


def live_tasks(emulator: Any) -> list[str]:
    return sorted(t["name"] for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"])


@pytest.mark.engine
@pytest.mark.parametrize("threads", [None, "4"], ids=["default", "sdk-pool-of-4"])
def test_creates_wait_side_by_side_in_one_process(
        emulator: Any, alaya_stack: Callable[..., Stack], threads: str | None) -> None:
    """20 creates whose subscriptions each take 3 s, with --parallel 20 and default settings: one provider
    process, and far more than the SDK host's 4 threads wait at once. Observed at the emulator: the
    subscriptions still PROCESSING at one moment. With the pool's bound kept at the SDK's 4
    (MLTRAIN_PROVIDER_THREADS=4), at most 4 wait: the widened pool is what makes the difference. There
    the subscriptions take 1 s (five rounds of four), since no count must build up."""
    delay = 3.0 if threads is None else 1.0
    emulator.admin.set_settings(subscription_delay=delay, task_state_delay=0.1, delete_delay=0.1)
    stack = alaya_stack(project=PROGRAM, names=json.dumps([f"wait-{i:02d}" for i in range(20)]))
    if threads is not None:
        stack.env_extra["MLTRAIN_PROVIDER_THREADS"] = threads
    most = 0
    with ThreadPoolExecutor(1) as pool:
        up = pool.submit(stack.up, "--parallel", "20")
        deadline = time.monotonic() + 300
        while not up.done() and time.monotonic() < deadline:
            subscriptions = emulator.admin.state()["alaya"]["subscriptions"]
            most = max(most, sum(s["status"] == "PROCESSING" for s in subscriptions))
            time.sleep(0.25)
        up.result(timeout=5)
    if threads is None:
        assert most >= 15, f"only {most} of 20 creates waited at the same time with --parallel 20"
    else:
        assert 1 <= most <= int(threads), f"{most} creates waited at once on a pool of {threads}"
    assert provider_names(stack) == {"default"}, "one provider process"
    assert len(live_tasks(emulator)) == 20
