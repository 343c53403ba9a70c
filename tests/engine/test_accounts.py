"""Explicit providers: two accounts (two emulators) in one stack, and a job moved between them.

The stack is not destroyed at the end: the move already deleted a task through an explicit provider.
A plaintext key's warning is
tests/engine/test_unreachable.py::test_an_unreachable_platform_keeps_the_job_and_destroy_takes_the_short_path's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mltrain_emulator import EmulatorServer
from mltrain_emulator import defaults as d
from mltrain_emulator.testing import EmulatorAdmin
from support import stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAM = Path(__file__).parent / "programs" / "accounts"
TASK = "dynamic/alaya:TrainingJob"


@pytest.fixture
def second_account() -> Iterator[EmulatorServer]:
    with EmulatorServer() as server:
        yield server


def tasks(url: str) -> list[str]:
    with EmulatorAdmin(url) as admin:
        return sorted(str(t["id"]) for t in admin.state()["alaya"]["tasks"] if t.get("status") != "DELETING")


def test_two_accounts_and_a_move(emulator: Any, second_account: EmulatorServer, tmp_path: Path) -> None:
    key = d.DEFAULT_ALAYA_API_KEY
    accounts = {"one": {"endpoint": emulator.url, "key": key}, "two": {"endpoint": second_account.url, "key": key}}
    jobs = {"a": {"account": "one", **stacks.alaya_job_args()}, "b": {"account": "two", **stacks.alaya_job_args()}}
    stack = Stack.from_project(PROGRAM, tmp_path)
    stack.set_config("accounts", json.dumps(accounts), secret=True)
    stack.set_config("jobs", json.dumps(jobs))
    stack.up()
    out = stack.outputs()
    assert tasks(emulator.url) == [out["a_id"]] and tasks(second_account.url) == [out["b_id"]]
    assert key not in json.dumps(stack.export()), "credentials of explicit providers stay secret in the state"

    # Move `a` to the second account: a replace, applied as delete there + create here (read from the
    # update's own steps: no separate preview).
    jobs["a"]["account"] = "two"
    stack.set_config("jobs", json.dumps(jobs))
    ops: dict[str, set[str]] = {}
    for line in stack.up("--json").stdout.splitlines():  # one engine event per line
        step = json.loads(line).get("resourcePreEvent")
        if step:
            ops.setdefault(step["metadata"]["urn"].rsplit("::", 1)[-1], set()).add(step["metadata"]["op"])
    assert ops.get("a", set()) & {"replace", "delete-replaced", "create-replacement"}, ops
    assert ops.get("b", {"same"}) == {"same"}, ops
    moved = stack.outputs()["a_id"]
    assert moved != out["a_id"]
    assert tasks(emulator.url) == [], "the old account keeps nothing: the task was deleted there"
    assert tasks(second_account.url) == sorted([moved, out["b_id"]])
