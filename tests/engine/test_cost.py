"""GPUs and cost from the platforms' catalogues, known at preview: the inputs and exports that
`pulumi preview --diff` shows for a new stack, and the policy pack's GPU-hour budget computed from them
(`--policy-pack`), in one preview; without credentials, the pack's own map, in another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from support import stacks
from support.policy_output import violations
from support.pulumi_cli import ROOT, Stack

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


def shown_inputs(output: str, name: str) -> dict[str, Any]:
    """The top-level inputs `pulumi preview --diff` shows for the resource `name` it would create."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("[urn=")
                 and line.strip().endswith(f"::{name}]"))
    shown: dict[str, Any] = {}
    for line in lines[start + 1:]:
        text = line.strip()
        if text.startswith(("+ ", "~ ", "- ", "[urn=", "--outputs:--")):
            break
        key, sep, value = text.partition(":")
        try:  # numbers, strings and booleans as JSON; `[unknown]` and nested values stay text
            shown[key.strip()] = json.loads(value) if sep else None
        except ValueError:
            shown[key.strip()] = value.strip()
    return shown


@pytest.mark.engine
def test_gpus_cost_and_the_budget_are_known_in_the_preview_of_a_new_stack(
        emulator: EmulatorHandle, tmp_path: Path) -> None:
    """One `pulumi preview --diff --policy-pack` of a new stack: the jobs' GPUs and cost from the catalogues
    are known (in their inputs and in the program's exports, no output<...>), and the pack's GPU-hour budget
    is computed from them, not from its own map (PRD-TRAIN-1 has 1 GPU and 8*V100 has 2 there). Was
    test_gpu_and_cost_outputs_are_known_in_the_preview_of_a_new_stack and
    test_budget_violation_is_computed_from_the_catalogue (its 4-node figures: test_four_nodes_double_the_figures)."""
    stack = cost_stack(emulator, tmp_path)
    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"gpu-hours-budget": {
        "maxGpuHours": 400, "gpusPerProduct": {"PRD-TRAIN-1": 1}, "gpusPerFlavor": {"modelarts.vm.gpu.8v100": 2}}}))
    result = stack.preview("--policy-pack", str(PACK), "--policy-pack-config", str(config), check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    # A stack policy runs during `preview` on v3.274.1: the budget's mandatory violation alone fails it (was
    # tests/engine/policy/test_policy_engine.py::test_config_tightens_thresholds_and_stack_policy_fails_preview's).
    # (The retried task without a checkpoint is only advised about: checkpoint-for-retries is advisory.)
    assert violations(output) == {"gpu-hours-budget": [("mandatory", "pulumi:pulumi:Stack mltrain-cost-test")],
                                  "checkpoint-for-retries": [("advisory", "alaya:TrainingJob sft")]}, \
        output[-3000:]

    # Known at preview: each job's GPUs and cost ...
    sft, vision = shown_inputs(result.stdout, "sft"), shown_inputs(result.stdout, "vision")
    assert {k: sft.get(k) for k in ALAYA} == ALAYA, sft
    assert {k: vision.get(k) for k in MODELARTS} == MODELARTS, vision
    # ... and the program's exports of them: the preview shows values, not output<...>.
    shown = result.stdout
    exported = shown[shown.index("--outputs:--", shown.index("pulumi:pulumi:Stack")):]
    exported = exported[:exported.index("\n+ ")] if "\n+ " in exported else exported
    exported = exported[:exported.index("mltrain-policies@")] if "mltrain-policies@" in exported else exported
    assert "output<" not in exported, exported
    alaya_block = exported[exported.index("alaya    : {"):exported.index("modelarts: {")]
    for line in ["cost_per_hour: 160", "gpu_count    : 16", "gpus_per_node: 8"]:
        assert line in alaya_block, (line, exported)
    for line in ['billing_code : "modelarts.vm.gpu.8v100"', "gpu_count    : 16", "gpus_per_node: 8"]:
        assert line in exported[exported.index("modelarts: {"):], (line, exported)

    # The budget, from the catalogue's figures.
    assert "gpu-hours-budget" in output
    for text in ["480 GPU-hours exceed the budget of 400 GPU-hours (maxGpuHours)",
                 "alaya:TrainingJob 'sft': PRD-TRAIN-1 8 GPU/node (catalogue) x 2 nodes x 24 h = 384 GPU-h; "
                 "est. 160/h",
                 "modelarts:TrainingJob 'vision': modelarts.vm.gpu.8v100 8 GPU/node (catalogue) x 2 nodes x 6 h "
                 "= 96 GPU-h"]:
        assert text in output, text
    assert not emulator.admin.state()["alaya"]["tasks"], "a preview creates nothing"


@pytest.mark.engine
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
