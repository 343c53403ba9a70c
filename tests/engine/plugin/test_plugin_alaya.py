"""The native plugin with Alaya NeW, one stack (each section says which guarantee it holds): a mount and a
job that uses it through preview, up, refresh, a replace, import and destroy; functions as invokes; the
plugin found through `plugins: providers:` in Pulumi.yaml; a failed create as the provider's message; a name
this stack holds refused to two other stacks; the platform's own not-found code that drops the job (a
gateway 404 that drops nothing: tests/inprocess/test_plugin_refresh.py and tests/engine/faults/test_not_found.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from plugin_support import PLUGIN, RAW, alaya_job, declare, managed, on_path, output_of, summary, tasks

from mltrain_emulator import defaults as d
from pulumi_mltrain.alaya.wire.client import AlayaClient
from pulumi_mltrain.config import Settings
from support import stacks
from support.pulumi_cli import BIN, Stack, change_counts

pytestmark = [pytest.mark.engine, pytest.mark.slow]

JOB = "mltrain:alaya:TrainingJob"
MOUNT = {"type": "mltrain:alaya:StorageMount", "name": "data", "outputs": ["mount"],
         "args": {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
                  "file_directory": "datasets", "mount_path": "/root/nas/datasets"}}


def job_using_mount(**args: Any) -> dict[str, Any]:
    job = alaya_job(storage_mounts=["${data.mount}"], **args)
    job["secretEnv"] = {"WANDB_API_KEY": "wandb-secret-value-123"}
    return job


def ids(stack: Stack) -> dict[str, str]:
    """Resource name -> ID of the stack's training jobs."""
    return {r["urn"].rsplit("::", 1)[1]: r["id"] for r in stack.resources(JOB)}


def test_lifecycle_through_the_plugin(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(fail_task_names="^doomed", task_state_delay=0.3, subscription_delay=0.2)
    # `trainer` holds an explicit name that two other stacks declare too (the ownership section).
    trainer = alaya_job("trainer")
    trainer["args"]["name"] = "shared-name"
    declared = [MOUNT, job_using_mount(), trainer]
    stack = stacks.alaya_stack(emulator, tmp_path, RAW)
    declare(stack, declared, invokes={"products": ["mltrain:alaya:getProducts", {}],
                                      "listed": ["mltrain:alaya:listTrainingJobs", {"name_prefix": "job-"}]})
    # `plugins: providers:` in Pulumi.yaml names the plugin's folder; PATH has no plugin.
    stack.env_extra["PATH"] = str(BIN) + ":/usr/bin:/bin"
    project = stack.workdir / "Pulumi.yaml"
    spec = yaml.safe_load(project.read_text())
    spec["plugins"] = {"providers": [{"name": "mltrain", "path": str(PLUGIN.parent)}]}
    project.write_text(yaml.safe_dump(spec))

    # A new stack's preview: the job's mount is unknown (the sentinel), checks still run on the rest.
    preview = stack.preview_json()
    assert change_counts(preview).get("create") == 4, preview.get("changeSummary")  # the stack, mount, 2 jobs

    output = output_of(stack.up())
    assert "from $PATH" not in output, "the plugin comes from the folder Pulumi.yaml names"
    out = stack.outputs()
    live = {t["id"]: t for t in tasks(emulator)}
    assert sorted(live) == sorted([out["job_id"], out["trainer_id"]]), live
    task, theirs = live[out["job_id"]], live[out["trainer_id"]]
    assert task["id"] == out["job_training_task_id"] and theirs["name"] == "shared-name"
    assert task["name"] == out["job_name"] and out["job_name"].startswith("job-")
    assert [m["mountPath"] for m in task["storageConfigs"]] == ["/root/nas/datasets"], task["storageConfigs"]
    assert task["env"]["WANDB_API_KEY"] == "wandb-secret-value-123"
    assert "MLTRAIN_OWNER" in task["env"], "created with the owner mark"
    assert "PRD-TRAIN-2" in [p["productCode"] for p in out["products"]["products"]]
    exported = json.dumps(stack.export())
    assert "wandb-secret-value-123" not in exported, "a secret input stays encrypted in the state"
    assert d.DEFAULT_ALAYA_API_KEY not in exported, "the provider's key stays encrypted in the state"
    job = {r["urn"].rsplit("::", 1)[1]: r for r in stack.resources(JOB)}["job"]
    assert task["env"]["MLTRAIN_OWNER"] == f'{job["inputs"]["__mltrain_stack"]} {job["urn"]}', "owned by this resource"
    assert job["inputs"]["__mltrain_stack"].startswith("pl-")
    assert "__mltrain_urn" not in job["inputs"], "the engine gives the URN with every call: no state keeps it"
    assert not {"__mltrain_urn", "__mltrain_stack"} & set(job["outputs"]), "the owner mark is kept once"
    assert job["outputs"]["__mltrain_account"] == {"alaya_endpoint": emulator.url}

    # Refresh and drift: a refresh finds nothing changed. That the refreshed job then diffs nothing is the
    # plugin's own logic (tests/inprocess/test_plugin_refresh.py); the engine's no-change preview after a
    # read is the one after the import below.
    stack.refresh("--expect-no-changes")

    # Ownership: the name `trainer` holds is refused to other stacks, naming adopt_id; nothing is made or
    # touched, and nothing enters their state (so their destroys could not reach my job).
    def refused(other: Stack) -> None:
        result = other.up(check=False)
        output = output_of(result)
        assert result.returncode != 0
        assert "already taken by" in output and f'adopt_id="{theirs["id"]}"' in output, output[-3000:]
        assert "Traceback" not in output
        assert sorted(t["id"] for t in tasks(emulator)) == sorted(live), "nothing made, nothing touched"
        assert other.resources(JOB) == [], "nothing of mine is in their state"

    # Another stack of the same project and backend.
    refused(stacks.sibling_stack(stack, "other", resources=[trainer]))
    # The same project and stack name in another backend: told apart by its `stackIdentity` setting.
    elsewhere = on_path(stacks.alaya_stack(emulator, tmp_path / "elsewhere", RAW,
                                           **{"mltrain:stackIdentity": "team-b/test"}))
    declare(elsewhere, [trainer])
    refused(elsewhere)

    # Replace order: a changed node count replaces the job, delete before create, one task remains.
    # Failed run: `doomed`, whose task fails, is the provider's own message; its task is deleted
    # (on_failure="delete") and the failure held in the state.
    doomed = alaya_job("doomed", wait_for="completed", on_failure="delete")
    declare(stack, [MOUNT, job_using_mount(worker_count=1), trainer, doomed])
    result = stack.up("--continue-on-error", check=False)
    output = output_of(result)
    assert result.returncode != 0
    assert "TrainingJob 'doomed-" in output and "ended FAILED before it was completed" in output, output[-3000:]
    assert 'its job was deleted (on_failure="delete")' in output and "is held" in output, output[-3000:]
    assert "Traceback" not in output and 'File "' not in output, output[-3000:]
    assert summary(result).get("replaced") == 1, output[-3000:]
    held = ids(stack)
    assert sorted(held) == ["doomed", "job", "trainer"], "the failed run is held in the state"
    assert held["job"] != out["job_id"] and held["trainer"] == theirs["id"]
    now = {t["id"]: t for t in tasks(emulator)}
    assert sorted(now) == sorted([held["job"], held["trainer"]]) and now[held["job"]]["workerCount"] == 1, now

    # Not found: a gateway 404 on a refresh is an error that drops nothing: the plugin's read in
    # tests/inprocess/test_plugin_refresh.py, the engine's refresh in tests/engine/faults/test_not_found.py.

    # Not found: deleted in the platform, the platform's own not-found answer drops the job from the state.
    client = AlayaClient(Settings.load({"mltrain:alayaEndpoint": emulator.url,
                                        "mltrain:alayaApiKey": emulator.alaya_api_key}, env={}))
    client.stop_task(theirs["id"])
    emulator.admin.advance(5)
    client.delete_task(theirs["id"])
    emulator.admin.advance(5)
    stack.refresh()
    assert ids(stack) == {"job": held["job"], "doomed": held["doomed"]}, \
        "only the job deleted in the platform is dropped; a held failure's record is its state"

    # Import: the state forgets the job and its mount; one `pulumi import --file` brings both back with
    # their inputs, and the program that declares them previews no change.
    declared = [MOUNT, job_using_mount(worker_count=1)]
    declare(stack, declared)
    objects = {r["urn"]: r for r in managed(stack, "mltrain:alaya:")}
    stack.run("state", "delete", *objects, "--yes")  # one edit; the engine deletes the job before its mount
    assert managed(stack) == []
    wanted = tmp_path / "import.json"
    wanted.write_text(json.dumps({"resources": [  # the held failure's job was deleted: nothing to import
        {"type": r["type"], "name": urn.rsplit("::", 1)[1], "id": r["id"]} for urn, r in objects.items()
        if not urn.endswith("::doomed")]}))
    stack.run("import", "--file", str(wanted), "--yes", "--generate-code=false", "--protect=false")
    [job] = stack.resources(JOB)
    assert job["id"] == held["job"]
    assert job["inputs"]["productCode"] == "PRD-TRAIN-2" and job["inputs"]["workerCount"] == 1
    assert "__mltrain_urn" not in job["inputs"]
    owner = {t["id"]: t for t in tasks(emulator)}[job["id"]]["env"]["MLTRAIN_OWNER"]
    assert owner == f'{job["inputs"]["__mltrain_stack"]} {job["urn"]}', "owned by this resource"
    assert len(managed(stack, "mltrain:alaya:StorageMount")) == 1
    stack.preview("--expect-no-changes")

    stack.destroy()
    assert tasks(emulator) == [] and managed(stack) == []
