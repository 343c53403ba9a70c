"""The fault matrix's ownership and not-found cases through the plugin, one job: a name held by another
stack's job is refused naming adopt_id; a gateway 404 on read is an error that drops nothing; the
platform's own not-found code drops the job from the state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from plugin_support import RAW, alaya_job, declare, on_path, output_of, tasks

from pulumi_mltrain.alaya.client import AlayaClient
from pulumi_mltrain.config import Settings
from support import stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

GATEWAY_404 = {"error_code": "APIG.0101", "error_msg": "The API does not exist or has not been published in the "
               "environment", "request_id": "2f6d3c1e"}
JOB = "mltrain:alaya:TrainingJob"


def test_a_name_held_by_another_stack_is_refused_and_only_the_platforms_code_drops_it(
        emulator: Any, alaya_plugin_stack: Callable[..., Stack], tmp_path: Path) -> None:
    job = alaya_job("trainer")
    job["args"]["name"] = "shared-name"
    mine = alaya_plugin_stack([job])
    mine.up()
    [theirs] = tasks(emulator)

    def refused(stack: Stack) -> None:
        result = stack.up(check=False)
        output = output_of(result)
        assert result.returncode != 0
        assert "already taken by" in output and f'adopt_id="{theirs["id"]}"' in output, output[-3000:]
        assert "Traceback" not in output
        assert [t["id"] for t in tasks(emulator)] == [theirs["id"]], "nothing made, nothing touched"

    # Another stack of the same project and backend.
    other = stacks.sibling_stack(mine, "other")
    refused(other)
    # The same project and stack name in another backend: told apart by its `stackIdentity` setting.
    elsewhere = on_path(stacks.alaya_stack(emulator, tmp_path / "elsewhere", RAW))
    declare(elsewhere, [job])
    elsewhere.set_config("mltrain:stackIdentity", "team-b/test")
    refused(elsewhere)
    for stack in (elsewhere, other):
        stack.destroy()
    assert [t["id"] for t in tasks(emulator)] == [theirs["id"]], "their destroys leave my job alone"

    # A gateway 404 on a refresh of my job is an error that drops nothing.
    emulator.admin.set_faults([{"path": "/v1/*", "kind": "respond", "status": 404, "body": GATEWAY_404}])
    result = mine.refresh(check=False)
    output = output_of(result)
    assert result.returncode != 0 and "check `mltrain:alayaEndpoint`" in output, output[-3000:]
    assert [r["id"] for r in mine.resources(JOB)] == [theirs["id"]], "a gateway 404 drops nothing"
    emulator.admin.clear_faults()

    # Deleted in the platform: its own not-found answer drops the job from the state.
    client = AlayaClient(Settings.load({"mltrain:alayaEndpoint": emulator.url,
                                        "mltrain:alayaApiKey": emulator.alaya_api_key}, env={}))
    client.stop_task(theirs["id"])
    emulator.admin.advance(5)
    client.delete_task(theirs["id"])
    emulator.admin.advance(5)
    mine.refresh()
    assert mine.resources(JOB) == []
    declare(mine, [])
    mine.destroy()
    assert tasks(emulator) == []
