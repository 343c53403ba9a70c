"""Ownership on a shared account: an object is ours only if it carries our stack's mark.

Two stacks that declare the same explicit name never share (or delete) one object; two state
backends with the same project, stack and resource names get different default names; and a
rename with an alias keeps the object and its name. Each for Alaya and ModelArts jobs and for
ModelArts algorithms.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from pulumi_mltrain.emulator import EmulatorHandle
from pulumi_mltrain.emulator import defaults as d
from support import stacks
from support.drift import Json, preview_ops, state_resource
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

CHANGING_OPS = {"create", "delete", "replace", "create-replacement", "delete-replaced"}
MA_RUNNING = ("Creating", "Pending", "Running")
ALAYA_RUNNING = (d.TASK_QUEUED, d.TASK_STARTING, d.TASK_RUNNING)
ALGORITHM_ARGS: Json = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                        "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}
MA_JOB_ARGS: Json = {**ALGORITHM_ARGS, "flavor_id": d.FLAVOR_CPU_8U,
                     "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}]}


@dataclass(frozen=True)
class Live:
    """A platform object as these tests compare it."""

    id: str
    name: str
    running: bool


@dataclass(frozen=True)
class Case:
    kind: str  # alaya-job | modelarts-job | algorithm
    type_suffix: str

    def stack(self, emulator: EmulatorHandle, home: Path, *, stack_name: str = "test", name: str | None = None,
              resource: str = "job") -> Stack:
        named = {"name": name} if name else {}
        if self.kind == "alaya-job":
            return stacks.alaya_stack(emulator, home, stack_name=stack_name,
                                      job=stacks.alaya_job_args(**named), resourceName=resource)
        if self.kind == "modelarts-job":
            return stacks.modelarts_stack(emulator, home, stack_name=stack_name,
                                          jobs={resource: {**MA_JOB_ARGS, **named}})
        return stacks.modelarts_stack(emulator, home, stack_name=stack_name, jobs={},
                                      algorithm={**ALGORITHM_ARGS, **named}, algorithmResourceName=resource)

    def rename(self, stack: Stack, resource: str, alias: str) -> None:
        """Rename the resource in the program, with `aliases=[pulumi.Alias(name=alias)]`."""
        if self.kind == "alaya-job":
            stack.set_config("resourceName", resource)
            stack.set_config("aliasOf", alias)
        elif self.kind == "modelarts-job":
            stack.set_config("jobs", json.dumps({resource: MA_JOB_ARGS}))
            stack.set_config("aliasOf", json.dumps({resource: alias}))
        else:
            stack.set_config("algorithmResourceName", resource)
            stack.set_config("aliasOf", json.dumps({resource: alias}))

    def objects(self, emulator: EmulatorHandle) -> list[Live]:
        """The objects of this kind on the platform, leaving out those being deleted."""
        state = emulator.admin.state()
        if self.kind == "alaya-job":
            return [Live(t["id"], t["name"], t["status"] in ALAYA_RUNNING)
                    for t in state["alaya"]["tasks"] if not t["deleting"]]
        if self.kind == "modelarts-job":
            return [Live(j["metadata"]["id"], j["metadata"]["name"], j["status"]["phase"] in MA_RUNNING)
                    for j in state["modelarts"]["jobs"] if not j["deleting"]]
        return [Live(a["metadata"]["id"], a["metadata"]["name"], True) for a in state["modelarts"]["algorithms"]]


CASES = [Case("alaya-job", "alaya:TrainingJob"), Case("modelarts-job", "modelarts:TrainingJob"),
         Case("algorithm", "modelarts:Algorithm")]


@pytest.fixture(params=CASES, ids=[c.kind for c in CASES])
def case(request: pytest.FixtureRequest, emulator: EmulatorHandle) -> Case:
    # Jobs keep running through the test, so "left running" can be checked; phases move fast.
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=3600, delete_delay=0.2)
    found: Case = request.param
    return found


def _ids(objects: list[Live]) -> list[str]:
    return sorted(o.id for o in objects)


def test_explicit_name_shared_by_two_stacks_of_one_backend(case: Case, emulator: EmulatorHandle,
                                                           tmp_path: Path) -> None:
    dev = case.stack(emulator, tmp_path, stack_name="dev", name="shared-name")
    prod = stacks.sibling_stack(dev, "prod")
    dev.up()
    [mine] = case.objects(emulator)
    dev_urn = state_resource(dev, case.type_suffix)["urn"]
    assert state_resource(dev, case.type_suffix)["id"] == mine.id and mine.name == "shared-name"

    failed = prod.up(check=False)
    output = failed.stdout + failed.stderr
    assert failed.returncode != 0, "prod must not take over dev's object"
    assert "adopt_id" in output and mine.id in output, output[-3000:]
    assert dev_urn in output, "the error names the object's owner (its mark: dev's resource)"
    assert _ids(case.objects(emulator)) == [mine.id], "exactly one object: prod made none"
    assert prod.resources(case.type_suffix) == [], "prod recorded nothing of dev's"

    prod.destroy()
    [still] = case.objects(emulator)
    assert (still.id, still.running) == (mine.id, True), "prod's destroy left dev's object alone"
    dev.destroy()
    assert case.objects(emulator) == []


def test_default_names_differ_between_backends(case: Case, emulator: EmulatorHandle, tmp_path: Path) -> None:
    first = case.stack(emulator, tmp_path / "first")
    second = case.stack(emulator, tmp_path / "second")  # same project, stack and resource names
    first.up()
    second.up()
    ids = [state_resource(s, case.type_suffix)["id"] for s in (first, second)]
    live = case.objects(emulator)
    assert _ids(live) == sorted(ids) and len(set(ids)) == 2
    assert len({o.name for o in live}) == 2, "each backend's stack has its own default name"

    first.destroy()
    assert [(o.id, o.running) for o in case.objects(emulator)] == [(ids[1], True)]
    second.destroy()
    assert case.objects(emulator) == []


def test_alias_rename_keeps_the_object_and_its_default_name(case: Case, emulator: EmulatorHandle,
                                                            tmp_path: Path) -> None:
    stack = case.stack(emulator, tmp_path, resource="job")
    stack.up()
    before = state_resource(stack, case.type_suffix)
    [live] = case.objects(emulator)

    case.rename(stack, "renamed", alias="job")
    preview = stack.preview_json()
    assert not preview_ops(preview, case.type_suffix) & CHANGING_OPS, preview_ops(preview, case.type_suffix)
    stack.up()
    after = state_resource(stack, case.type_suffix)
    assert after["urn"].endswith("::renamed") and after["id"] == before["id"]
    assert after["inputs"]["name"] == before["inputs"]["name"] == live.name
    assert [(o.id, o.name) for o in case.objects(emulator)] == [(live.id, live.name)]
    stack.preview("--expect-no-changes")
