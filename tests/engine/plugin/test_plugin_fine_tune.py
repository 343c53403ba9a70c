"""A ModelArts fine-tune job (`train_type`, `ftjob_config`, `base_asset_id`, `output_model`, `asset_model`, and a
`custom_metrics` collection gated by `success_criteria`) through the engine, in one stack of both forms
(dynamic `dyn-ft`, plugin `plug-ft`): `up` creates it and records the trained model's IDs, a refresh finds
no drift although the job detail returns none of the fine-tune fields, and `destroy` removes it. What the
provider decides (the create body, the check failures, the artifacts that cannot be read, the no-change
preview after the refresh) runs in-process (tests/inprocess/test_modelarts_fine_tune.py, its
test_a_fine_tune_job_creates_refreshes_quietly_and_records_its_model, and test_custom_metric_gates.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plugin_support import both_forms, both_platforms_stack, by_name, live_jobs, output_of, summary

from pulumi_mltrain.modelarts.wire import iam
from pulumi_mltrain.modelarts.wire.client import ModelArtsClient
from support import inprocess
from support.modelarts_declared import FINE_TUNE

pytestmark = [pytest.mark.engine, pytest.mark.slow]

GATE = [{"metric": "loss", "op": "<=", "value": 0.5}]
KEPT = ("train_type", "ftjob_config", "base_asset_id", "output_model", "asset_model", "custom_metrics")


def _artifacts(emulator: Any, job_id: str) -> dict[str, Any]:
    iam.forget_tokens()
    [final] = ModelArtsClient(inprocess.settings("modelarts", emulator)).ft_artifacts(job_id)
    return final


def test_a_fine_tune_job_lifecycle_in_both_forms(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=1, delete_delay=0.2,
                                modelarts_custom_metrics={"-ft-": {"loss": 0.3}})
    stack = both_forms(both_platforms_stack(emulator, tmp_path),
                       {"modelarts": {"ft": {**FINE_TUNE, "success_criteria": GATE}}})
    stack.up()
    held = by_name(stack)
    assert sorted(held) == ["dyn-ft", "plug-ft"] and len(live_jobs(emulator, "modelarts")) == 2, sorted(held)
    stored = {j["metadata"]["id"]: j for j in emulator.admin.state()["modelarts"]["jobs"]}
    for name in ("dyn-ft", "plug-ft"):
        resource = held[name]
        outs = resource["outputs"]
        assert outs["phase"] == "Completed" and outs["success_criteria_met"] is True, outs
        assert outs["final_metrics"]["loss"] == 0.3, outs["final_metrics"]
        final = _artifacts(emulator, resource["id"])
        assert (outs["model_id"], outs["model_asset_id"]) == (final["artifact_id"], final["asset_id"]), outs
        job = stored[resource["id"]]
        assert (job["train_type"], job["spec"]["asset_id"]) == ("LORA", "asset-qwen2-7b"), job
        assert job["spec"]["asset_model"]["name"] == "qwen-lora" and job["ftjob_config"]["model_type"] == "qwen2"
        assert {k: resource["inputs"][k] for k in ("train_type", "base_asset_id")} == \
            {"train_type": "LORA", "base_asset_id": "asset-qwen2-7b"}, resource["inputs"]

    # The detail returns none of the fine-tune fields: the state keeps them, and a refresh changes nothing.
    stack.refresh("--expect-no-changes")
    refreshed = by_name(stack)
    for name in ("dyn-ft", "plug-ft"):
        for part in ("inputs", "outputs"):
            assert {k: refreshed[name][part].get(k) for k in KEPT} == {k: held[name][part].get(k) for k in KEPT}, \
                (name, part)
        assert refreshed[name]["outputs"]["model_id"] == held[name]["outputs"]["model_id"]

    result = stack.destroy()
    assert summary(result).get("deleted"), output_of(result)[-3000:]
    assert live_jobs(emulator) == {} and by_name(stack) == {}
