"""The plugin's property names, without the engine: schema.json's camelCase names in and out, and a
state written before 0.2 (the spec's field names, exactly what the handlers return and what the 0.1
plugin recorded) moved to the new names by Check, Read and an update that only renames it (a Diff
with no property diff), none of which calls the platform. The engine's view of the same move is
tests/engine/upgrade/test_upgrade.py."""

from __future__ import annotations

from typing import Any

from pulumi.provider.experimental import provider as p
from pulumi.provider.experimental.property_value import PropertyValue

from pulumi_mltrain.plugin import sdk
from pulumi_mltrain.plugin.provider import MltrainPlugin
from support.plugin_calls import run
from support.stacks import alaya_job_args

TOKEN = "mltrain:alaya:TrainingJob"



URN = f"urn:pulumi:dev::names::{TOKEN}::job"
CAMEL = {"product_code": "productCode", "worker_count": "workerCount", "training_framework": "trainingFramework",
         "start_command": "startCommand", "timeout_hours": "timeoutHours"}


def camel_args() -> dict[str, Any]:
    """The test job's arguments as every SDK of the plugin sends them (written out here, not derived)."""
    return {CAMEL.get(k, k): v for k, v in alaya_job_args().items()}


def plugin_for(emulator: Any) -> MltrainPlugin:
    plugin = MltrainPlugin()
    run(plugin.configure(p.ConfigureRequest(
        variables={"mltrain:config:alayaEndpoint": emulator.url, "mltrain:config:alayaApiKey": emulator.alaya_api_key,
                   "mltrain:config:keepRuns": "0"},  # its destroy is about the delete: no run kept
        args={}, accept_secrets=True, accept_resources=False)))
    return plugin


def calls(emulator: Any) -> dict[str, int]:
    return dict(emulator.admin.requests()["endpoints"])


def test_camel_case_in_and_out_and_a_field_named_state_is_renamed_in_place(emulator: Any) -> None:
    emulator.admin.set_settings(subscription_delay=0.1, task_state_delay=0.1)
    plugin = plugin_for(emulator)
    news = sdk.wrap({**camel_args(), "waitFor": "created"})

    checked = run(plugin.check(p.CheckRequest(URN, {}, news, b"")))
    assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
    inputs = sdk.plain(checked.inputs or {})[0]
    assert inputs["productCode"] == "PRD-TRAIN-2" and inputs["workerCount"] == 2 and inputs["waitFor"] == "created"
    assert not [k for k in inputs if "_" in k and not k.startswith("__mltrain_")], sorted(inputs)

    # A misspelt property and a bad nested one are named as the program wrote them.
    mount = {"storageId": "s", "storageType": "nas-capacity", "fileDirectory": "d", "mountPath": "rel"}
    bad = sdk.wrap({**camel_args(), "workerCount": 0, "storageMounts": [mount]})
    failed = run(plugin.check(p.CheckRequest(URN, {}, bad, b"")))
    named = {f.property for f in failed.failures or []}
    assert "workerCount" in named and any(n.startswith("storageMounts[0].") for n in named), named

    # The state the 0.1 plugin recorded: the handler's own check and create results, field names.
    handler = plugin._handler(TOKEN)
    owner = plugin._owner_inputs(TOKEN, URN)
    old_inputs = handler.check({}, {**alaya_job_args(), **owner}).inputs
    created = handler.create(old_inputs)
    old_state = created.outputs
    assert "product_code" in old_state and "training_task_id" in old_state

    before = calls(emulator)
    again = run(plugin.check(p.CheckRequest(URN, sdk.wrap(old_inputs), news, b"")))
    assert not again.failures
    diff = run(plugin.diff(p.DiffRequest(URN, created.id, sdk.wrap(old_state), again.inputs or {}, [])))
    # An update with no property diff: it renames the state, so that resources built from its outputs
    # read them by the schema's names (tests/upgrade holds the engine's view).
    assert (diff.changes, diff.replaces, diff.diffs) == (True, [], []), (diff.changes, diff.diffs)
    for preview in (True, False):
        renamed = run(plugin.update(p.UpdateRequest(URN, created.id, sdk.wrap(old_state), again.inputs or {},
                                                    60, [], preview)))
        outputs = sdk.plain(renamed.properties or {})[0]
        assert outputs["trainingTaskId"] == created.id and outputs["productCode"] == "PRD-TRAIN-2", outputs
        assert not [k for k in outputs if "_" in k and not k.startswith("__mltrain_")], sorted(outputs)
    # A state in the schema's names is no change.
    moved = run(plugin.diff(p.DiffRequest(URN, created.id, renamed.properties or {}, again.inputs or {}, [])))
    assert not moved.changes and not moved.replaces, moved.diffs
    assert calls(emulator) == before, "check, diff and the renaming update of the old state call no platform API"

    # A real change is reported under the schema's name.
    changed = run(plugin.diff(p.DiffRequest(
        URN, created.id, sdk.wrap(old_state), {**(again.inputs or {}), "workerCount": PropertyValue(4.0)}, [])))
    assert changed.changes and changed.replaces == ["workerCount"], (changed.diffs, changed.replaces)

    read = run(plugin.read(p.ReadRequest(URN, created.id, sdk.wrap(old_state), sdk.wrap(old_inputs))))
    outputs, read_inputs = sdk.plain(read.properties or {})[0], sdk.plain(read.inputs or {})[0]
    assert read.resource_id == created.id
    assert outputs["trainingTaskId"] == created.id and outputs["productCode"] == "PRD-TRAIN-2"
    assert read_inputs["workerCount"] == 2 and "worker_count" not in read_inputs and "training_task_id" not in outputs
    run(plugin.delete(p.DeleteRequest(URN, created.id, sdk.wrap(old_state), 60)))
    assert emulator.admin.state()["alaya"]["tasks"] == []
