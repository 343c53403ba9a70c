"""A Pulumi YAML program (`runtime: yaml`, the language host that scripts/bootstrap.sh builds from
its Go module) on the native `mltrain` plugin: typed by the plugin's schema, through the engine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from plugin_support import on_path, output_of, summary

from support.pulumi_cli import BIN, Stack, change_counts

pytestmark = pytest.mark.engine

PROGRAM = Path(__file__).parent / "programs" / "yaml_alaya"


def yaml_stack(home: Path) -> Stack:
    """The YAML project copied as it is (Stack.from_project would make it a Python project)."""
    assert (BIN / "pulumi-language-yaml").exists(), (
        "no pulumi-language-yaml in .tools/bin: run `bash scripts/bootstrap.sh` (it builds the YAML language host "
        "from the Go module proxy with `go install`)"
    )
    workdir = home / "project"
    shutil.copytree(PROGRAM, workdir)
    (home / "state").mkdir(parents=True)
    stack = Stack(workdir=workdir, home=home)
    stack.init()
    return on_path(stack)


def live_tasks(emulator: Any) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


def test_yaml_program_up_preview_and_replace(emulator: Any, tmp_path: Path) -> None:
    """(`pulumi destroy` runs no program, so a YAML stack's destroy is the plugin's delete through an
    explicit provider: test_plugin_operations.py's test_two_explicit_providers_a_move_and_twenty_waiting_creates.)"""
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2)
    stack = yaml_stack(tmp_path)
    stack.set_config_all({"alayaEndpoint": emulator.url}, {"alayaApiKey": emulator.alaya_api_key})

    stack.up()
    outputs = stack.outputs()
    tasks = live_tasks(emulator)
    assert [t["id"] for t in tasks] == [outputs["training_task_id"]]
    assert tasks[0]["image"].endswith("pytorch:2.3.1-gpu")
    state = {r["type"]: r for r in stack.export()["deployment"]["resources"]}
    assert state["mltrain:alaya:TrainingJob"]["provider"].startswith(state["pulumi:providers:mltrain"]["urn"])
    assert emulator.alaya_api_key not in json.dumps(stack.export()), "the provider's key is kept secret"

    assert set(change_counts(stack.preview_json())) == {"same"}

    # The image forces a replace, as in every other language: a task with a new ID runs, and the replaced
    # run's task stays, stopped, as its record (the explicit provider keeps the default keepRuns, 5).
    stack.set_config("image", "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu")
    result = stack.up()
    assert summary(result).get("replaced") == 1, output_of(result)[-3000:]
    new_id = stack.outputs()["training_task_id"]
    assert new_id != outputs["training_task_id"]
    states = {t["id"]: t["status"] for t in live_tasks(emulator)}
    assert states == {outputs["training_task_id"]: "STOPPED", new_id: states[new_id]}, states
    assert states[new_id] != "STOPPED"


def test_yaml_program_is_typed_by_the_plugin_schema(emulator: Any, tmp_path: Path) -> None:
    """A misspelt property fails the preview with the schema's names; nothing reaches the platform."""
    stack = yaml_stack(tmp_path)
    program = stack.workdir / "Pulumi.yaml"
    program.write_text(program.read_text().replace("workerCount: 2", "workerCnt: 2"))
    stack.set_config_all({"alayaEndpoint": emulator.url}, {"alayaApiKey": emulator.alaya_api_key})

    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "workerCount: Missing required property 'workerCount'" in output, output[-3000:]
    assert live_tasks(emulator) == []


def test_a_held_failure_runs_again_when_ci_names_it(emulator: Any, tmp_path: Path) -> None:
    """A YAML program's failed run is held. CI asks for a new run without touching the program, by the
    failed run's ID (MLTRAIN_RERUN_FAILED here, which the explicit provider reads like
    `mltrain:rerunFailed`): one new run. That a retry of a held failure starts nothing is
    test_plugin_held_failures.py's (the same plugin, through the engine); that the request is then spent is
    tests/inprocess/test_automation_safety.py::test_a_failed_run_is_held_and_never_started_again_unasked."""
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2, succeed_after=0.6,
                                fail_task_names="^job-")
    stack = yaml_stack(tmp_path)
    program = stack.workdir / "Pulumi.yaml"
    program.write_text(program.read_text().replace("      timeoutHours: 12", "      timeoutHours: 12\n"
                                                   "      waitFor: completed"))
    stack.set_config_all({"alayaEndpoint": emulator.url}, {"alayaApiKey": emulator.alaya_api_key})

    result = stack.up(check=False)
    assert result.returncode != 0 and "is held" in output_of(result), output_of(result)[-3000:]
    [failed] = live_tasks(emulator)
    assert failed["status"] == "FAILED" and len(emulator.admin.state()["alaya"]["subscriptions"]) == 1

    emulator.admin.set_settings(fail_task_names="^$")
    stack.env_extra["MLTRAIN_RERUN_FAILED"] = failed["id"]
    stack.up()
    assert stack.outputs()["status"] == "SUCCEEDED"
    rerun = stack.outputs()["training_task_id"]
    # The failed run's task stays as its record (the default keepRuns), ended as it failed.
    assert rerun != failed["id"]
    assert {t["id"]: t["status"] for t in live_tasks(emulator)} == {failed["id"]: "FAILED", rerun: "SUCCEEDED"}
