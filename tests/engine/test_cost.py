"""GPUs and cost from the platforms' catalogues, known at preview: the outputs in `pulumi preview --json`
of a new stack, and the policy pack's GPU-hour budget computed from them (`--policy-pack`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pulumi_mltrain.emulator import EmulatorHandle
from support import stacks
from support.pulumi_cli import ROOT, Stack

pytestmark = pytest.mark.engine

PROGRAM = ROOT / "tests" / "engine" / "programs" / "cost"
PACK = ROOT / "policy"
# The emulator's catalogue: PRD-TRAIN-1 has 8 GPUs at 80.00 per node-hour (priceUnit 1); 8*V100 has 8 GPUs.
ALAYA = {"gpus_per_node": 8, "gpu_count": 16, "cost_per_hour": 160.0}
MODELARTS = {"gpus_per_node": 8, "gpu_count": 16, "billing_code": "modelarts.vm.gpu.8v100"}


def cost_stack(emulator: EmulatorHandle, tmp_path: Path, *, credentials: bool = True) -> Stack:
    """The cost program wired to both platforms (one `config set-all`); without credentials, a preview
    makes no API call."""
    huawei = {f"mltrain:{key}": value for key, value in {
        "huaweiIamEndpoint": emulator.url, "modelartsEndpoint": emulator.url,
        "huaweiProjectName": emulator.project_name, "huaweiProjectId": emulator.project_id,
        "huaweiUser": emulator.iam_user, "huaweiDomain": emulator.iam_domain}.items()}
    if credentials:
        return stacks.alaya_stack(emulator, tmp_path, PROGRAM, {"mltrain:huaweiPassword": emulator.iam_password},
                                  **huawei)
    stack = Stack.from_project(PROGRAM, tmp_path)
    stack.set_config_all({"mltrain:alayaEndpoint": emulator.url, **huawei})
    return stack


def job_steps(preview: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """resource name -> the checked inputs the preview shows for the job it would create."""
    return {s["urn"].rsplit("::", 1)[-1]: s["newState"]["inputs"] for s in preview["steps"]
            if s["urn"].split("::")[-2].endswith(":TrainingJob")}


def test_gpu_and_cost_outputs_are_known_in_the_preview_of_a_new_stack(
        emulator: EmulatorHandle, tmp_path: Path) -> None:
    stack = cost_stack(emulator, tmp_path)
    preview = stack.preview_json()
    jobs = job_steps(preview)
    assert {k: jobs["sft"].get(k) for k in ALAYA} == ALAYA, jobs["sft"]
    assert {k: jobs["vision"].get(k) for k in MODELARTS} == MODELARTS, jobs["vision"]
    # The program's exports of them are known too: the preview shows values, not output<...>.
    shown = stack.preview().stdout
    exported = shown[shown.index("--outputs:--", shown.index("pulumi:pulumi:Stack")):]
    exported = exported[:exported.index("\n+ ")] if "\n+ " in exported else exported
    assert "output<" not in exported, exported
    for line in ["cost_per_hour: 160", "gpu_count    : 16", "gpus_per_node: 8",
                 'billing_code : "modelarts.vm.gpu.8v100"']:
        assert line in exported, (line, exported)
    assert not emulator.admin.state()["alaya"]["tasks"], "a preview creates nothing"


def test_budget_violation_is_computed_from_the_catalogue(emulator: EmulatorHandle, tmp_path: Path) -> None:
    """The pack's own map says PRD-TRAIN-1 has 1 GPU and 8*V100 has 2; the catalogue's 8 and 8 count."""
    stack = cost_stack(emulator, tmp_path)
    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"gpu-hours-budget": {
        "maxGpuHours": 400, "gpusPerProduct": {"PRD-TRAIN-1": 1}, "gpusPerFlavor": {"modelarts.vm.gpu.8v100": 2}}}))
    result = stack.preview("--policy-pack", str(PACK), "--policy-pack-config", str(config), check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert "gpu-hours-budget" in output
    for text in ["480 GPU-hours exceed the budget of 400 GPU-hours (maxGpuHours)",
                 "alaya:TrainingJob 'sft': PRD-TRAIN-1 8 GPU/node (catalogue) x 2 nodes x 24 h = 384 GPU-h; "
                 "est. 160/h",
                 "modelarts:TrainingJob 'vision': modelarts.vm.gpu.8v100 8 GPU/node (catalogue) x 2 nodes x 6 h "
                 "= 96 GPU-h"]:
        assert text in output, text

    # Four nodes double the Alaya figures: still from the catalogue, at preview.
    stack.set_config("workers", "4")
    jobs = job_steps(stack.preview_json())
    assert {k: jobs["sft"].get(k) for k in ALAYA} == {"gpus_per_node": 8, "gpu_count": 32, "cost_per_hour": 320.0}


def test_without_credentials_the_budget_falls_back_to_the_pack_and_says_so(
        emulator: EmulatorHandle, tmp_path: Path) -> None:
    stack = cost_stack(emulator, tmp_path, credentials=False)
    before = emulator.admin.requests().get("total")
    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"gpu-hours-budget": {"maxGpuHours": 100}}))
    result = stack.preview("--policy-pack", str(PACK), "--policy-pack-config", str(config), check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    for text in ["480 GPU-hours exceed the budget of 100 GPU-hours (maxGpuHours)",
                 "alaya:TrainingJob 'sft': PRD-TRAIN-1 8 GPU/node (gpusPerProduct) x 2 nodes x 24 h = 384 GPU-h",
                 "modelarts:TrainingJob 'vision': modelarts.vm.gpu.8v100 8 GPU/node (gpusPerFlavor) x 2 nodes "
                 "x 6 h = 96 GPU-h"]:
        assert text in output, text
    assert emulator.admin.requests().get("total") == before, "no credentials: no API call"
