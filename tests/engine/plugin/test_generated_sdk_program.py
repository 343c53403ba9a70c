"""A program on the plugin's generated Python SDK (sdk/python) through the engine; that the SDKs are
generated from the current schema and generator is tests/unit/test_generated_sdk.py's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_support import on_path

from support.pulumi_cli import Stack, change_counts
from support.stacks import alaya_job_args

PROGRAM = Path(__file__).parent / "programs" / "sdk_python"


def live_tasks(emulator: Any) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


@pytest.mark.engine
def test_generated_sdk_program_up_and_preview(emulator: Any, tmp_path: Path) -> None:
    """An explicit pulumi_mltrain_native.Provider (typed, secret key), an alaya.TrainingJob and the
    get_products function on it. (A destroy through an explicit provider is test_plugin_operations.py's
    test_two_explicit_providers_and_a_move: `pulumi destroy` runs no program, so the SDK plays no part in it.)"""
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2)
    stack = on_path(Stack.from_project(PROGRAM, tmp_path))
    stack.set_config_all({"alayaEndpoint": emulator.url, "job": json.dumps(alaya_job_args())},
                         {"alayaApiKey": emulator.alaya_api_key})

    stack.up()
    outputs = stack.outputs()
    tasks = live_tasks(emulator)
    assert [t["id"] for t in tasks] == [outputs["training_task_id"]]
    assert tasks[0]["image"] == alaya_job_args()["image"]
    assert outputs["name"].startswith("job")
    assert alaya_job_args()["product_code"] in outputs["product_codes"], outputs["product_codes"]

    state = {r["type"]: r for r in stack.export()["deployment"]["resources"]}
    assert "mltrain:alaya:TrainingJob" in state, sorted(state)
    assert state["mltrain:alaya:TrainingJob"]["provider"].startswith(state["pulumi:providers:mltrain"]["urn"])
    assert emulator.alaya_api_key not in json.dumps(stack.export()), "the provider's key is kept secret"

    before = emulator.admin.requests()
    counts = change_counts(stack.preview_json())
    assert set(counts) == {"same"}, counts
    after = emulator.admin.requests()["endpoints"]
    called = {k: n - before["endpoints"].get(k, 0) for k, n in after.items() if n != before["endpoints"].get(k, 0)}
    assert called == {"GET /v1/product/list-for-training-task": 1}, "a no-change preview calls only the function"
