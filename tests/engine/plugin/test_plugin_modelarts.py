"""The native plugin with ModelArts, one stack (each section says which guarantee it holds): an algorithm,
a job that runs it and a job with the scheduling, notification and access fields, through preview, up,
refresh, an in-place update (first past its customTimeouts deadline), a replace of a field fixed at create,
import (under a new resource name, which re-marks the job), a failing job's rollback and destroy."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from plugin_support import managed, output_of, python_names, summary

from mltrain_emulator import defaults as d
from pulumi_mltrain.config import Settings
from pulumi_mltrain.modelarts.wire import contract, iam
from pulumi_mltrain.modelarts.wire.client import ModelArtsClient
from support.pulumi_cli import Stack, change_counts
from support.runs import assert_end_is_start_plus_duration

pytestmark = [pytest.mark.engine, pytest.mark.slow]

JOB = "mltrain:modelarts:TrainingJob"
ALGORITHM = {"type": "mltrain:modelarts:Algorithm", "name": "algo", "outputs": ["algorithm_id"],
             "args": {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                      "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
                      "inputs": [{"name": "data_url"}], "outputs": [{"name": "train_url"}]}}
TOPIC = "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts"
FIELDS: dict[str, Any] = {
    "pool_id": "pool-a100", "preemptible": True, "retry_count": 1,
    "required_affinity": {"affinity_type": "networkTopology", "affinity_group_size": 2, "job_level": "cluster"},
    "notification": {"topic_urn": TOPIC, "events": ["JobStarted", "JobFailed"]},
    "ssh_key_pair_names": ["kp-a", "kp-b"], "unconditional_retry": False, "hang_retry": True,
    "wait_for": "completed",
}


def job(name: str = "job", **changes: Any) -> dict[str, Any]:
    args = {"flavor_id": d.FLAVOR_CPU_8U, "algorithm_id": "${algo.algorithm_id}",
            "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
            "outputs": [{"name": "train_url", "obs_url": "obs://b/out/"}], **changes}
    return {"type": JOB, "name": name, "args": args, "outputs": ["phase"]}


def fields_job(**changes: Any) -> dict[str, Any]:
    """A job with the scheduling, notification and access fields (its own code: no algorithm)."""
    args = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
            "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], **FIELDS, **changes}
    return {"type": JOB, "name": "fields", "args": args, "outputs": ["phase"]}


def api(emulator: Any) -> ModelArtsClient:
    iam.forget_tokens()
    return ModelArtsClient(Settings.load({
        "mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
        "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiUser": emulator.iam_user,
        "mltrain:huaweiDomain": emulator.iam_domain, "mltrain:huaweiPassword": emulator.iam_password}, env={}))


def live_jobs(emulator: Any) -> list[dict[str, Any]]:
    return [j for j in emulator.admin.state()["modelarts"]["jobs"] if not j.get("deleting")]


def held(stack: Stack) -> dict[str, dict[str, Any]]:
    """The stack's training jobs by resource name."""
    return {r["urn"].rsplit("::", 1)[1]: python_names(r) for r in stack.resources(JOB)}


def test_lifecycle_fields_update_deadline_import_and_rollback(
        emulator: Any, modelarts_plugin_stack: Callable[..., Stack]) -> None:
    timed = {"customTimeouts": {"update": "3s"}}
    stack = modelarts_plugin_stack([ALGORITHM, {**job(), **timed}, fields_job()],
                                   invokes={"flavors": ["mltrain:modelarts:getFlavors", {"flavor_type": "CPU"}]})
    # A new stack's preview: the job's algorithm ID is unknown, checks still run on the rest.
    assert change_counts(stack.preview_json()).get("create") == 4  # the stack, the algorithm, 2 jobs
    stack.up()
    out = stack.outputs()
    remote = {j["metadata"]["id"]: j for j in live_jobs(emulator)}
    assert sorted(remote) == sorted([out["job_id"], out["fields_id"]]), remote
    assert remote[out["job_id"]]["algorithm"]["id"] == out["algo_algorithm_id"]
    assert d.FLAVOR_CPU_8U in [f["flavorId"] for f in out["flavors"]["flavors"]]  # schema.json's names
    # The fields are created as Huawei writes them.
    fields = remote[out["fields_id"]]
    assert fields["spec"]["schedule_policy"] == {"preemptible": True, "required_affinity": FIELDS["required_affinity"]}
    assert fields["spec"]["notification"] == FIELDS["notification"]
    assert fields["endpoints"] == {"ssh": {"key_pair_names": ["kp-a", "kp-b"]}}
    annotations = fields["metadata"]["annotations"]
    assert (annotations[contract.UNCONDITIONAL_RETRY_ANNOTATION], annotations[contract.HANG_RETRY_ANNOTATION]) \
        == ("false", "true")

    # Refresh and drift: a refresh finds nothing changed (the fields read back as declared); the finished
    # run's outputs are in the state. That the refreshed job then diffs nothing is the plugin's own logic
    # (tests/inprocess/test_plugin_refresh.py); the engine's no-change preview after a read is the one
    # after the import below.
    stack.refresh("--expect-no-changes")
    outputs = held(stack)["fields"]["outputs"]
    assert outputs["required_affinity"] == FIELDS["required_affinity"]
    assert_end_is_start_plus_duration(outputs)
    assert [t["exit_code"] for t in outputs["task_statuses"]] == [0]
    assert outputs["run_reason"] == "first run (0 GPUs)", "kept by the refresh"

    # A description is updated in place; a changed key pair list (fixed at create) replaces its job, whose
    # new run says why. (A preview's new-run reasons through the plugin: test_plugin_reruns.py; the engine's
    # update and replace show below, in the IDs.) The 3 s customTimeouts update, whose answer the platform
    # holds back for 10 s (after applying it), fails at the forwarded deadline, not the 10-minute default;
    # the job is kept.
    stack.set_config("resources", json.dumps([ALGORITHM, {**job(description="second run"), **timed},
                                              fields_job(ssh_key_pair_names=["kp-a"])]))
    said = "new run: changing ssh_key_pair_names replaces the training job (0 GPUs)"
    emulator.admin.set_faults([{"method": "PUT", "path": "/v2/*/training-jobs/*", "kind": "slow_after_commit",
                                "seconds": 10}])
    result = stack.up("--continue-on-error", check=False)  # the replace goes on beside the failed update
    output = output_of(result)
    assert result.returncode != 0
    assert "no answer within the 3s deadline of updating TrainingJob" in output, output[-3000:]
    assert "raise its timeout (customTimeouts)" in output
    assert "Traceback" not in output
    assert emulator.admin.requests()["faults"]["by_kind"].get("slow_after_commit", 0) >= 1
    emulator.admin.clear_faults()
    replaced = held(stack)["fields"]
    assert replaced["outputs"]["run_reason"] == said
    assert replaced["id"] != out["fields_id"]
    [kept] = [j for j in live_jobs(emulator) if j["metadata"]["id"] == replaced["id"]]
    assert kept["endpoints"] == {"ssh": {"key_pair_names": ["kp-a"]}}

    # The next up, with the platform answering again, converges on the declared description without a
    # replace; a description change alone updates the replaced job in place too.
    stack.set_config("resources", json.dumps([ALGORITHM, {**job(description="second run"), **timed},
                                              fields_job(ssh_key_pair_names=["kp-a"], description="nightly")]))
    result = stack.up()
    assert summary(result).get("updated") == 2 and "replaced" not in summary(result), output_of(result)[-3000:]
    after = {j["metadata"]["id"]: j for j in live_jobs(emulator)}
    assert sorted(after) == sorted([out["job_id"], replaced["id"]]), "updated in place, never replaced"
    assert after[out["job_id"]]["metadata"]["description"] == "second run"

    # Import: forgotten by the state, the algorithm and the job are imported, the job under a new resource
    # name: it now carries that name's mark. The preview after it also holds the converged `fields` job,
    # which nothing touches in between (an update's diff-free result: tests/inprocess/test_plugin_refresh.py).
    stack.run("state", "delete", *(r["urn"] for r in managed(stack) if not r["urn"].endswith("::fields")), "--yes")
    wanted = stack.home / "import.json"
    wanted.write_text(json.dumps({"resources": [
        {"type": ALGORITHM["type"], "name": "algo", "id": out["algo_id"]},
        {"type": JOB, "name": "trainer", "id": out["job_id"]}]}))
    stack.run("import", "--file", str(wanted), "--yes", "--generate-code=false", "--protect=false")
    imported = held(stack)["trainer"]
    assert imported["inputs"]["flavor_id"] == d.FLAVOR_CPU_8U and imported["inputs"]["description"] == "second run"
    tags = {t["key"]: t["value"] for t in api(emulator).job_tags(out["job_id"])}
    assert tags["mltrain-owner-urn"] == imported["urn"], "adopted: the mark names the importing resource"
    declared = [ALGORITHM, job("trainer", description="second run"),
                fields_job(ssh_key_pair_names=["kp-a"], description="nightly")]
    stack.set_config("resources", json.dumps(declared))
    stack.preview("--expect-no-changes")

    # A failed run: the job that fails before it completes is deleted (on_failure="delete"), and the failure
    # is held in the state (an initialization error, which the next `up` reports again).
    emulator.admin.set_settings(modelarts_fail_names="^doomed")
    stack.set_config("resources", json.dumps([*declared, job("doomed", wait_for="completed", on_failure="delete")]))
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "TrainingJob 'doomed-" in output, output[-3000:]
    assert 'its job was deleted (on_failure="delete")' in output and "is held" in output, output[-3000:]
    # The job's own log lines (a Python traceback of the training script) are quoted; no provider frames.
    assert "pulumi_mltrain/" not in output and "provider/experimental" not in output, output[-3000:]
    doomed = [r for name, r in held(stack).items() if name.startswith("doomed")]
    assert len(doomed) == 1 and doomed[0].get("initErrors"), held(stack)
    assert sorted(r["urn"] for r in held(stack).values()) == sorted([imported["urn"], replaced["urn"],
                                                                     doomed[0]["urn"]])
    emulator.admin.advance(5)
    assert sorted(j["metadata"]["id"] for j in live_jobs(emulator)) == sorted([out["job_id"], replaced["id"]])

    stack.destroy()
    assert live_jobs(emulator) == [] and emulator.admin.state()["modelarts"]["algorithms"] == []
