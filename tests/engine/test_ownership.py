"""Ownership on a shared account: an object is ours only if it carries our stack's mark.

Two stacks that declare the same explicit name never share (or delete) one object; two state
backends with the same project, stack and resource names get different default names; and a
rename with an alias keeps the object and its name. Each for Alaya and ModelArts jobs and for
ModelArts algorithms: the three kinds are resources of one stack, and the three guarantees share its
commands (three stacks, six engine commands in all).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from support import stacks
from support.drift import Json
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


def objects(name: str | None = None, *, renamed: bool = False, suffix: str = "") -> dict[str, Json]:
    """Entries of the program's `objects`: one resource of each kind (named after its kind, plus `suffix`), all
    with the explicit physical `name` if given; `renamed` renames each resource to `<kind>-renamed`, aliased to
    its old name."""
    return {(f"{k.kind}-renamed" if renamed else k.kind + suffix): {
        "kind": k.kind, "args": k.args(name), **({"aliasOf": k.kind + suffix} if renamed else {})} for k in KINDS}


def ownership_stack(emulator: EmulatorHandle, home: Path, declared: dict[str, Json], *,
                    stack_name: str = "test") -> Stack:
    """A stack of the ownership program wired to both platforms of the emulator."""
    return stacks.modelarts_stack(emulator, home, PROGRAM, {"mltrain:alayaApiKey": emulator.alaya_api_key},
                                  stack_name=stack_name, objects=declared, **{"mltrain:alayaEndpoint": emulator.url})


@pytest.fixture(autouse=True)
def running(emulator: EmulatorHandle) -> None:
    # Jobs keep running through the test, so "left running" can be checked; phases move fast.
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=3600, delete_delay=0.2,
                                subscription_delay=0.2, task_state_delay=0.2)


def _ids(found: list[Live]) -> list[str]:
    return sorted(o.id for o in found)


def _output(result: Any) -> str:
    return str(result.stdout + result.stderr)


def recorded(stack: Stack) -> dict[str, Json]:
    """Resource name -> the state's record (id, urn, inputs), for the resources of the three kinds."""
    return {r["urn"].rsplit("::", 1)[-1]: r for r in stack.export()["deployment"].get("resources", [])
            if r.get("type", "").endswith(tuple(k.type_suffix for k in KINDS))}


def update_ops(stdout: str, type_suffix: str) -> set[str]:
    """The step operations a `pulumi up --json` (one engine event per line) ran for resources of that type."""
    ops = set()
    for line in stdout.splitlines():
        event = json.loads(line)
        step = event.get("resourcePreEvent") or event.get("resOutputsEvent")
        if step and step["metadata"]["urn"].split("::")[-2].endswith(type_suffix):
            ops.add(str(step["metadata"]["op"]))
    return ops


def test_names_are_owned_by_one_stack_and_kept_through_an_alias_rename(emulator: EmulatorHandle,
                                                                       tmp_path: Path) -> None:
    """Three guarantees, each for an Alaya NeW job, a ModelArts job and an algorithm (the three kinds are
    resources of one stack, so one `up` serves all): an explicit name declared by two stacks of one backend
    belongs to the first; two backends' stacks with the same project, stack and resource names get
    different default names; a rename with an alias keeps the object and its default name. `dev` holds,
    per kind, one explicitly named resource (`<kind>-shared`) and one default-named (`<kind>`); `prod`
    (dev's backend) declares the explicit ones, `other` (another backend, also stack `dev`) the
    default-named ones."""
    shared, default = objects("shared-name", suffix="-shared"), objects()
    dev = ownership_stack(emulator, tmp_path / "first", {**shared, **default}, stack_name="dev")
    prod = stacks.sibling_stack(dev, "prod", objects=shared)
    other = ownership_stack(emulator, tmp_path / "second", default, stack_name="dev")

    dev.up()
    dev_state = recorded(dev)
    mine: dict[str, Live] = {}
    for k in KINDS:
        live = {o.id: o for o in k.objects(emulator)}
        assert sorted(live) == sorted(dev_state[n]["id"] for n in (k.kind + "-shared", k.kind)), k.kind
        mine[k.kind] = live[dev_state[k.kind + "-shared"]["id"]]
        assert mine[k.kind].name == "shared-name", f"the explicit {k.kind} name is used as it is"

    # 1. An explicit name shared by two stacks of one backend (was
    #    test_explicit_name_shared_by_two_stacks_of_one_backend). Every resource's create is tried
    #    (--continue-on-error), so each kind's refusal is seen.
    failed = prod.up("--continue-on-error", check=False)
    output = _output(failed)
    assert failed.returncode != 0, "prod must not take over dev's objects"
    assert "adopt_id" in output, output[-3000:]
    for k in KINDS:
        assert mine[k.kind].id in output, (k.kind, output[-3000:])
        assert dev_state[k.kind + "-shared"]["urn"] in output, \
            f"the error names the {k.kind}'s owner (its mark: dev's resource)"
        assert [o.id for o in k.objects(emulator) if o.name == "shared-name"] == [mine[k.kind].id], \
            f"exactly one shared-name {k.kind}: prod made none"
        assert prod.resources(k.type_suffix) == [], f"prod recorded no {k.kind} of dev's"

    # 2. Default names differ between backends (was test_default_names_differ_between_backends).
    other.up()
    other_state = recorded(other)
    for k in KINDS:
        ids = [dev_state[k.kind]["id"], other_state[k.kind]["id"]]
        live = {o.id: o for o in k.objects(emulator)}
        assert sorted(live) == sorted([*ids, mine[k.kind].id]) and len(set(ids)) == 2, k.kind
        assert live[ids[0]].name != live[ids[1]].name, f"each backend's stack has its own default {k.kind} name"

    # 3. An alias rename keeps the object and its default name (was
    #    test_alias_rename_keeps_the_object_and_its_default_name): the update changes no object.
    live_before = {k.kind: sorted((o.id, o.name) for o in k.objects(emulator)) for k in KINDS}
    dev.set_config("objects", json.dumps({**shared, **objects(renamed=True)}))
    update = dev.up("--json").stdout
    for k in KINDS:
        ops = update_ops(update, k.type_suffix)
        assert ops and not ops & CHANGING_OPS, (k.kind, ops)
    renamed = recorded(dev)
    for k in KINDS:
        after, was = renamed[f"{k.kind}-renamed"], dev_state[k.kind]
        assert k.kind not in renamed and after["id"] == was["id"], k.kind
        names = {o.id: o.name for o in k.objects(emulator)}
        assert after["inputs"]["name"] == was["inputs"]["name"] == names[was["id"]], k.kind
        assert sorted((o.id, o.name) for o in k.objects(emulator)) == live_before[k.kind], k.kind
    dev.preview("--expect-no-changes")

    # Destroying one backend's stack leaves the other backend's objects running.
    dev.destroy()
    for k in KINDS:
        assert [(o.id, o.running) for o in k.objects(emulator)] == [(other_state[k.kind]["id"], True)], k.kind
