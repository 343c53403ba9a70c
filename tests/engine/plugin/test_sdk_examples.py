"""examples/typescript and examples/go under the official Node.js and Go language hosts, through the
`mltrain` plugin (found on PATH) against the emulator: each on one stack, `up`, a no-change `preview`,
`refresh` and `destroy`, with their dependencies installed from the committed package-lock.json and go.sum.
The TypeScript stack's no-change preview runs the policy pack (it passes), and a preview with a docker.io
image is refused by it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_support import live_jobs, managed, on_path, output_of, summary

from support import node_go, stacks
from support.pulumi_cli import ROOT, VENV, Stack, change_counts

pytestmark = [pytest.mark.engine, pytest.mark.slow]

EXAMPLES = ROOT / "examples"
IMAGE = "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu"
# ModelArts keeps the channels' OBS locations as /bucket/path/ (the programs write obs://bucket/path/).
OBS = "/cnnorth4-job-test-v2/pytorch/fast_example"


def example_stack(emulator: Any, home: Path, name: str) -> Stack:
    """examples/NAME on a stack with both platforms' settings pointed at the emulator; jobs move through
    their states in fractions of a second."""
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2, modelarts_phase_delay=0.2,
                                modelarts_run_seconds=0.8, delete_delay=0.2)
    return on_path(stacks.both_platforms_stack(emulator, home, EXAMPLES / name, stack_type=node_go.ExampleStack))


def check_up(emulator: Any, stack: Stack) -> dict[str, Any]:
    """After `up`: one Alaya NeW task on the NAS mount and one ModelArts job with its OBS channels, the
    ones the outputs name."""
    outputs = stack.outputs()
    state = emulator.admin.state()
    tasks = [t for t in state["alaya"]["tasks"] if not t["deleting"]]
    jobs = [j for j in state["modelarts"]["jobs"] if not j["deleting"]]
    assert [str(t["id"]) for t in tasks] == [outputs["trainingTaskId"]], (tasks, outputs)
    assert [str(j["metadata"]["id"]) for j in jobs] == [outputs["modelartsJobId"]], (jobs, outputs)
    task, job = tasks[0], jobs[0]
    assert task["image"] == IMAGE and outputs["taskName"] == task["name"], (task, outputs)
    assert outputs["taskName"].startswith("llama3-sft-"), outputs
    assert "/root/nas/datasets" in json.dumps(task), task
    assert f"{OBS}/data/" in json.dumps(job) and f"{OBS}/outputs/" in json.dumps(job), job
    assert outputs["taskStatus"] and outputs["modelartsPhase"], outputs
    kinds = sorted(r["type"] for r in managed(stack))
    assert kinds == ["mltrain:alaya:StorageMount", "mltrain:alaya:TrainingJob", "mltrain:modelarts:TrainingJob"], kinds
    return outputs


def check_refresh_and_destroy(emulator: Any, stack: Stack, outputs: dict[str, Any]) -> None:
    result = stack.refresh()
    assert set(summary(result)) == {"unchanged"}, output_of(result)[-3000:]
    assert stack.outputs()["trainingTaskId"] == outputs["trainingTaskId"]

    result = stack.destroy()
    assert summary(result).get("deleted") == 4, output_of(result)[-3000:]  # three resources and the stack
    assert live_jobs(emulator) == {}, emulator.admin.state()
    assert managed(stack) == []


@pytest.fixture(scope="session")
def typescript_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return node_go.typescript_example_modules(tmp_path_factory)


def test_typescript_example_up_preview_with_the_policy_pack_refresh_and_destroy(
        emulator: Any, tmp_path: Path, typescript_modules: Path) -> None:
    """The example's node_modules: `npm ci` of its committed lock (once per session, shared with
    test_plugin_package.py), copied into the stack."""
    node_go.host("nodejs")
    stack = example_stack(emulator, tmp_path, "typescript")
    node_go.copy_modules(typescript_modules, stack.workdir)
    node_go.tsc_strict(stack.workdir)
    # That was the type check; the engine's runs of the program need not repeat it (ts-node's own, about
    # 1.5 CPU-s a run) and only transpile.
    stack.env_extra["PULUMI_NODEJS_TRANSPILE_ONLY"] = "true"

    stack.up()
    outputs = check_up(emulator, stack)

    # The project's policy pack, written as an infra repo writes it; it passes the example as it is.
    pack = tmp_path / "policy-pack"
    node_go.run_tool(VENV / "bin" / "mltrain-policy-pack", pack, cwd=tmp_path)
    before = live_jobs(emulator)
    counts = change_counts(stack.preview_json("--policy-pack", str(pack)))
    assert set(counts) == {"same"}, counts

    # A docker.io image: refused at preview, nothing changes on the platform.
    stack.set_config("image", "docker.io/library/pytorch:latest")
    result = stack.preview("--policy-pack", str(pack), check=False)
    output = output_of(result)
    assert result.returncode != 0, output[-3000:]
    assert "allowed-image-registries" in output and "[mandatory]" in output, output[-3000:]
    assert "alaya:TrainingJob 'llama3-sft': image 'docker.io/library/pytorch:latest' comes from docker.io" in output
    assert live_jobs(emulator) == before
    stack.set_config("image", IMAGE)

    check_refresh_and_destroy(emulator, stack, outputs)


def test_go_example_up_preview_refresh_and_destroy(emulator: Any, tmp_path: Path) -> None:
    node_go.host("go")
    stack = example_stack(emulator, tmp_path, "go")
    node_go.go_vet(stack.workdir)

    stack.up()
    outputs = check_up(emulator, stack)

    counts = change_counts(stack.preview_json())
    assert set(counts) == {"same"}, counts

    check_refresh_and_destroy(emulator, stack, outputs)
