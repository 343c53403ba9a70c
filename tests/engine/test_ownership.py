"""Ownership on a shared account: an object is ours only if it carries our stack's mark.

Two stacks that declare the same explicit name never share (or delete) one object; two state
backends with the same project, stack and resource names get different default names; and a
rename with an alias keeps the object and its name. Each for Alaya and ModelArts jobs and for
ModelArts algorithms: the three kinds are three resources of one stack, so one `up` serves all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pulumi_mltrain.emulator import EmulatorHandle
from pulumi_mltrain.emulator import defaults as d
from support import stacks
from support.drift import Json, preview_ops, state_resource
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAM = stacks.PROGRAMS / "ownership"
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
class Kind:
    kind: str  # alaya-job | modelarts-job | algorithm
    type_suffix: str

    def args(self, name: str | None) -> Json:
        named = {"name": name} if name else {}
        if self.kind == "alaya-job":
            return stacks.alaya_job_args(**named)
        return {**(MA_JOB_ARGS if self.kind == "modelarts-job" else ALGORITHM_ARGS), **named}

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


KINDS = [Kind("alaya-job", "alaya:TrainingJob"), Kind("modelarts-job", "modelarts:TrainingJob"),
         Kind("algorithm", "modelarts:Algorithm")]


def objects(name: str | None = None, *, renamed: bool = False) -> dict[str, Json]:
    """The program's `objects`: one resource of each kind (named after its kind), all with the explicit
    physical `name` if given; `renamed` renames each resource to `<kind>-renamed`, aliased to its old name."""
    return {(f"{k.kind}-renamed" if renamed else k.kind): {"kind": k.kind, "args": k.args(name),
                                                           **({"aliasOf": k.kind} if renamed else {})}
            for k in KINDS}


def ownership_stack(emulator: EmulatorHandle, home: Path, declared: dict[str, Json], *,
                    stack_name: str = "test") -> Stack:
    """A stack of the ownership program wired to both platforms of the emulator."""
    return stacks.modelarts_stack(emulator, home, PROGRAM, {"mltrain:alayaApiKey": emulator.alaya_api_key},
                                  stack_name=stack_name, objects=declared, **{"mltrain:alayaEndpoint": emulator.url})


@pytest.fixture(autouse=True)
def running(emulator: EmulatorHandle) -> None:
    # Jobs keep running through the test, so "left running" can be checked; phases move fast.
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=3600, delete_delay=0.2)


def _ids(found: list[Live]) -> list[str]:
    return sorted(o.id for o in found)


def _output(result: Any) -> str:
    return str(result.stdout + result.stderr)


def test_explicit_name_shared_by_two_stacks_of_one_backend(emulator: EmulatorHandle, tmp_path: Path) -> None:
    dev = ownership_stack(emulator, tmp_path, objects("shared-name"), stack_name="dev")
    prod = stacks.sibling_stack(dev, "prod")
    dev.up()
    mine: dict[str, Live] = {}
    for k in KINDS:
        [mine[k.kind]] = k.objects(emulator)
        assert state_resource(dev, k.type_suffix)["id"] == mine[k.kind].id and mine[k.kind].name == "shared-name"
    dev_urns = {k.kind: state_resource(dev, k.type_suffix)["urn"] for k in KINDS}

    # Every resource's create is tried (--continue-on-error), so each kind's refusal is seen.
    failed = prod.up("--continue-on-error", check=False)
    output = _output(failed)
    assert failed.returncode != 0, "prod must not take over dev's objects"
    assert "adopt_id" in output, output[-3000:]
    for k in KINDS:
        assert mine[k.kind].id in output, (k.kind, output[-3000:])
        assert dev_urns[k.kind] in output, f"the error names the {k.kind}'s owner (its mark: dev's resource)"
        assert _ids(k.objects(emulator)) == [mine[k.kind].id], f"exactly one {k.kind}: prod made none"
        assert prod.resources(k.type_suffix) == [], f"prod recorded no {k.kind} of dev's"

    prod.destroy()
    for k in KINDS:
        [still] = k.objects(emulator)
        assert (still.id, still.running) == (mine[k.kind].id, True), f"prod's destroy left dev's {k.kind} alone"
    dev.destroy()
    assert [k.objects(emulator) for k in KINDS] == [[], [], []]


def test_default_names_differ_between_backends(emulator: EmulatorHandle, tmp_path: Path) -> None:
    first = ownership_stack(emulator, tmp_path / "first", objects())
    second = ownership_stack(emulator, tmp_path / "second", objects())  # same project, stack and resource names
    first.up()
    second.up()
    ids = {k.kind: [state_resource(s, k.type_suffix)["id"] for s in (first, second)] for k in KINDS}
    for k in KINDS:
        live = k.objects(emulator)
        assert _ids(live) == sorted(ids[k.kind]) and len(set(ids[k.kind])) == 2, k.kind
        assert len({o.name for o in live}) == 2, f"each backend's stack has its own default {k.kind} name"

    first.destroy()
    for k in KINDS:
        assert [(o.id, o.running) for o in k.objects(emulator)] == [(ids[k.kind][1], True)], k.kind
    second.destroy()
    assert [k.objects(emulator) for k in KINDS] == [[], [], []]


def test_alias_rename_keeps_the_object_and_its_default_name(emulator: EmulatorHandle, tmp_path: Path) -> None:
    stack = ownership_stack(emulator, tmp_path, objects())
    stack.up()
    before = {k.kind: state_resource(stack, k.type_suffix) for k in KINDS}
    live = {k.kind: k.objects(emulator) for k in KINDS}

    stack.set_config("objects", json.dumps(objects(renamed=True)))
    preview = stack.preview_json()
    for k in KINDS:
        assert not preview_ops(preview, k.type_suffix) & CHANGING_OPS, (k.kind, preview_ops(preview, k.type_suffix))
    stack.up()
    for k in KINDS:
        after = state_resource(stack, k.type_suffix)
        [was] = live[k.kind]
        assert after["urn"].endswith(f"::{k.kind}-renamed") and after["id"] == before[k.kind]["id"]
        assert after["inputs"]["name"] == before[k.kind]["inputs"]["name"] == was.name
        assert [(o.id, o.name) for o in k.objects(emulator)] == [(was.id, was.name)], k.kind
    stack.preview("--expect-no-changes")
