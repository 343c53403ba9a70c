"""What a refresh through the plugin stores, without the engine: a job read back after its create, and after
an update in place, diffs nothing against the program that made it (for both platforms, the ModelArts job
with its scheduling, notification and access fields); a gateway's 404 on the read or the delete is an error
naming the endpoint setting, never a deletion (an empty ID would make the engine drop the job from the state).

The engine's view of the same: `pulumi refresh --expect-no-changes` and the preview after `pulumi import`
in tests/engine/plugin/test_plugin_alaya.py and test_plugin_modelarts.py, and a gateway 404 on a refresh
(a failed destroy: the mistyped endpoint there) in tests/engine/faults/test_not_found.py."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.provider.experimental import provider as p
from pulumi.provider.experimental.property_value import PropertyValue

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.plugin import names
from pulumi_mltrain.plugin.provider import MltrainPlugin
from support import inprocess
from support.platforms import PLATFORMS
from support.plugin_calls import run

pytestmark = pytest.mark.usefixtures("quick")

GATEWAY_404 = {"error_code": "APIG.0101", "error_msg": "The API does not exist or has not been published in the "
               "environment", "request_id": "2f6d3c1e"}
# platform -> (its endpoint setting, the gateway's path pattern, the job's arguments)
CASES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "alaya": ("mltrain:alayaEndpoint", "/v1/*", PLATFORMS["alaya"].job_args(wait_for="running")),
    "modelarts": ("mltrain:modelartsEndpoint", "/v2/*", PLATFORMS["modelarts"].job_args(
        wait_for="completed", pool_id="pool-a100", preemptible=True, retry_count=1,
        required_affinity={"affinity_type": "networkTopology", "affinity_group_size": 2, "job_level": "cluster"},
        notification={"topic_urn": "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts",
                      "events": ["JobStarted", "JobFailed"]},
        ssh_key_pair_names=["kp-a", "kp-b"], unconditional_retry=False, hang_retry=True)),
}



def plugin_for(emulator: EmulatorHandle, platform: str) -> MltrainPlugin:
    plugin = MltrainPlugin()
    config = {**PLATFORMS[platform].settings(emulator), **inprocess.BASE_CONFIG}
    run(plugin.configure(p.ConfigureRequest(
        variables={k.replace("mltrain:", "mltrain:config:", 1): v for k, v in config.items()},
        args={}, accept_secrets=True, accept_resources=False)))
    return plugin


def unchanged(plugin: MltrainPlugin, urn: str, job_id: str, state: dict[str, PropertyValue],
              news: dict[str, PropertyValue]) -> p.DiffResponse:
    """The diff the engine asks for at the next preview: the state against the program's checked inputs."""
    checked = run(plugin.check(p.CheckRequest(urn, {}, news, b"")))
    assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
    return run(plugin.diff(p.DiffRequest(urn, job_id, state, checked.inputs or {}, [])))


@pytest.mark.parametrize("platform", sorted(CASES))
def test_a_refreshed_job_diffs_nothing_and_a_gateway_404_drops_nothing(
        emulator: EmulatorHandle, platform: str) -> None:
    setting, gateway, args = CASES[platform]
    urn = f"urn:pulumi:dev::refresh::mltrain:{platform}:TrainingJob::job"
    plugin = plugin_for(emulator, platform)
    handler = plugin._handler(f"mltrain:{platform}:TrainingJob")
    news = names.wrap(handler, args)
    checked = run(plugin.check(p.CheckRequest(urn, {}, news, b"")))
    assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
    created = run(plugin.create(p.CreateRequest(urn, checked.inputs or {}, 600, False)))
    job_id, state = created.resource_id, created.properties or {}

    # The refresh: the same ID, and the program that made the job previews no change.
    read = run(plugin.read(p.ReadRequest(urn, job_id, state, checked.inputs or {})))
    assert read.resource_id == job_id
    diff = unchanged(plugin, urn, job_id, read.properties or {}, news)
    assert not diff.changes and not diff.replaces, diff.diffs

    # An update in place (the description), then the same program with it previews no change either.
    described = names.wrap(handler, {**args, "description": "nightly"})
    again = run(plugin.check(p.CheckRequest(urn, read.inputs or {}, described, b"")))
    assert run(plugin.diff(p.DiffRequest(urn, job_id, read.properties or {}, again.inputs or {}, []))).diffs \
        == ["description"]
    updated = run(plugin.update(p.UpdateRequest(urn, job_id, read.properties or {}, again.inputs or {},
                                                600, [], False)))
    diff = unchanged(plugin, urn, job_id, updated.properties or {}, described)
    assert not diff.changes and not diff.replaces, diff.diffs

    # A gateway's 404 (not the platform's own not-found code): the read fails, naming the setting to check;
    # it never answers the empty ID that drops the job from the state.
    emulator.admin.set_faults([{"path": gateway, "kind": "respond", "status": 404, "body": GATEWAY_404}])
    with pytest.raises(MltrainError) as failed:
        run(plugin.read(p.ReadRequest(urn, job_id, updated.properties or {}, again.inputs or {})))
    assert f"check `{setting}`" in str(failed.value) and job_id in str(failed.value), str(failed.value)
    # The delete too fails, naming the setting: the engine keeps a resource whose delete raised.
    with pytest.raises(MltrainError) as failed:
        run(plugin.delete(p.DeleteRequest(urn, job_id, updated.properties or {}, 600)))
    assert f"check `{setting}`" in str(failed.value), str(failed.value)
    emulator.admin.clear_faults()
    assert inprocess.platform_ids(emulator, platform) == [job_id], "the job is kept on the platform"
    assert run(plugin.read(p.ReadRequest(urn, job_id, updated.properties or {}, again.inputs or {}))).resource_id \
        == job_id
    run(plugin.delete(p.DeleteRequest(urn, job_id, updated.properties or {}, 600)))
