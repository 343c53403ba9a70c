"""The native plugin with Alaya NeW: a mount and a job that uses it through preview, up, refresh, a
replace, import and destroy (one stack); functions as invokes; errors as the provider's message."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from plugin_support import PLUGIN, alaya_job, managed, output_of, tasks

from pulumi_mltrain.emulator import defaults as d
from support.pulumi_cli import BIN, Stack, change_counts

pytestmark = [pytest.mark.engine, pytest.mark.slow]

MOUNT = {"type": "mltrain:alaya:StorageMount", "name": "data", "outputs": ["mount"],
         "args": {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity",
                  "file_directory": "datasets", "mount_path": "/root/nas/datasets"}}


def job_using_mount(**args: Any) -> dict[str, Any]:
    job = alaya_job(storage_mounts=["${data.mount}"], **args)
    job["secretEnv"] = {"WANDB_API_KEY": "wandb-secret-value-123"}
    return job


def test_lifecycle_through_the_plugin(emulator: Any, alaya_plugin_stack: Callable[..., Stack]) -> None:
    stack = alaya_plugin_stack([MOUNT, job_using_mount()],
                               invokes={"products": ["mltrain:alaya:getProducts", {}],
                                        "listed": ["mltrain:alaya:listTrainingJobs", {"name_prefix": "job-"}]})

    # A new stack's preview: the job's mount is unknown (the sentinel), checks still run on the rest.
    preview = stack.preview_json()
    assert change_counts(preview).get("create") == 3, preview.get("changeSummary")

    stack.up()
    out = stack.outputs()
    [task] = tasks(emulator)
    assert task["id"] == out["job_id"] == out["job_training_task_id"]
    assert task["name"] == out["job_name"] and out["job_name"].startswith("job-")
    assert [m["mountPath"] for m in task["storageConfigs"]] == ["/root/nas/datasets"], task["storageConfigs"]
    assert task["env"]["WANDB_API_KEY"] == "wandb-secret-value-123"
    assert "MLTRAIN_OWNER" in task["env"], "created with the owner mark"
    assert "PRD-TRAIN-2" in [p["productCode"] for p in out["products"]["products"]]
    exported = json.dumps(stack.export())
    assert "wandb-secret-value-123" not in exported, "a secret input stays encrypted in the state"
    assert d.DEFAULT_ALAYA_API_KEY not in exported, "the provider's key stays encrypted in the state"
    [job] = stack.resources("mltrain:alaya:TrainingJob")
    assert job["outputs"]["__mltrain_urn"] == job["urn"]
    assert job["outputs"]["__mltrain_stack"].startswith("pl-")
    assert job["outputs"]["__mltrain_account"] == {"alaya_endpoint": emulator.url}

    stack.preview("--expect-no-changes")
    stack.refresh("--expect-no-changes")
    stack.preview("--expect-no-changes")

    # A changed node count replaces the job: delete before create, one task remains.
    declared = [MOUNT, job_using_mount(worker_count=1)]
    stack.set_config("resources", json.dumps(declared))
    assert change_counts(stack.preview_json()).get("replace") == 1
    stack.up()
    [task] = tasks(emulator)
    assert task["id"] == stack.outputs()["job_id"] != out["job_id"] and task["workerCount"] == 1

    # The state forgets the job and its mount; `pulumi import` brings both back with their inputs, and
    # the program that declares them previews no change.
    ids = {r["urn"]: r["id"] for r in managed(stack, "mltrain:alaya:")}
    for urn in sorted(ids, key=lambda u: "StorageMount" in u):  # the job first: it depends on the mount
        stack.run("state", "delete", urn, "--yes")
    assert managed(stack) == []

    by_type = {urn.rsplit("::", 2)[1]: (urn.rsplit("::", 1)[1], i) for urn, i in ids.items()}
    for token in ("mltrain:alaya:StorageMount", "mltrain:alaya:TrainingJob"):
        name, object_id = by_type[token]
        stack.run("import", token, name, object_id, "--yes", "--generate-code=false", "--protect=false")
    [job] = stack.resources("mltrain:alaya:TrainingJob")
    assert job["inputs"]["product_code"] == "PRD-TRAIN-2" and job["inputs"]["worker_count"] == 1
    assert job["inputs"]["__mltrain_urn"] == job["urn"], "owned by this resource"
    stack.preview("--expect-no-changes")

    stack.destroy()
    assert tasks(emulator) == [] and managed(stack) == []


def test_plugin_from_pulumi_yaml_and_a_failed_create(emulator: Any,
                                                    alaya_plugin_stack: Callable[..., Stack]) -> None:
    """`plugins: providers:` in Pulumi.yaml names the plugin's folder; PATH has no plugin. Of the two
    jobs, the one whose task fails is the provider's own message and leaves nothing behind."""
    emulator.admin.set_settings(fail_task_names="^doomed", task_state_delay=0.3)
    stack = alaya_plugin_stack([alaya_job(), alaya_job(name="doomed", wait_for="completed")])
    stack.env_extra["PATH"] = str(BIN) + ":/usr/bin:/bin"
    project = stack.workdir / "Pulumi.yaml"
    spec = yaml.safe_load(project.read_text())
    spec["plugins"] = {"providers": [{"name": "mltrain", "path": str(PLUGIN.parent)}]}
    project.write_text(yaml.safe_dump(spec))
    result = stack.up("--continue-on-error", check=False)
    output = output_of(result)
    assert "from $PATH" not in output
    assert result.returncode != 0
    assert "TrainingJob 'doomed-" in output and "ended FAILED before it was completed" in output, output[-3000:]
    assert "It was deleted so that nothing is left behind" in output
    assert "Traceback" not in output and 'File "' not in output, output[-3000:]
    [job] = stack.resources("mltrain:alaya:TrainingJob")
    assert job["urn"].endswith("::job") and [t["id"] for t in tasks(emulator)] == [job["id"]]
    stack.destroy()
    assert tasks(emulator) == []
