"""Alaya NeW TrainingJob: up, preview, replace, refresh, destroy, secrets, bad input, adoption.

One engine stack holds what the engine decides, in nine commands: the alaya-distributed example's lifecycle
(a no-change preview that calls nothing, a replace, a refresh after an out-of-band delete, a refresh and a
no-change `up` that rewrite no resource, destroy), secrets in the state, the refresh and repair of a drifted task, and a
refused key failing the preview. That a check failure fails the preview naming each field is held by
test_errors.py. What the provider decides (which fields a check refuses and why, the error a failed
subscription gives, what an adoption compares and records) runs in-process against the emulator.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest

from mltrain_emulator import defaults
from pulumi_mltrain.alaya.training_job import TrainingJobSpec as AlayaJobSpec
from support.drift import (
    ALAYA_DECLARED,
    REPLACE_OPS,
    assert_alaya_repaired,
    assert_refreshed,
    patch_alaya_task,
    spec_inputs,
)
from support.pulumi_cli import ROOT, change_counts
from support.stacks import alaya_job_args as job_args
from support.stacks import by_name, ops_by_name
from support.state import SECRET_SIG, without_ciphertext

TASK = "dynamic/alaya:TrainingJob"


def live_tasks(emulator: Any) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


def alaya(emulator: Any) -> httpx.Client:
    return httpx.Client(base_url=emulator.url, headers={"Authorization": f"Bearer {defaults.DEFAULT_ALAYA_API_KEY}"})


SUITE = ROOT / "tests" / "engine" / "programs" / "alaya_suite"
DISTRIBUTED = ROOT / "examples" / "alaya-distributed" / "__main__.py"
IMAGE_2_4 = "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu"
SECRET = "wandb-secret-value-123"


@pytest.mark.engine
@pytest.mark.slow
def test_alaya_stack_lifecycle_secrets_drift_and_a_refused_key(emulator: Any, alaya_stack: Any) -> None:
    """One stack, eight engine commands: the alaya-distributed example (a shared read-only mount, a 4-node
    and a 1-node task; its own `__main__.py`), a task with a private image and a secret env value, and a
    task whose every input drifts. Each section says which guarantee it holds and which former test it
    replaces; what the provider decides runs in-process (this file's and test_drift.py's other tests)."""
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=0.2, delete_delay=0.2)
    secrets = {"mltrain:alayaApiKey": "not-the-key", "secretEnv": {"private": {"WANDB_API_KEY": SECRET}}}
    stack = alaya_stack(SUITE, secrets, example=str(DISTRIBUTED),
                        jobs={"private": job_args(image_type="private"), "drift": ALAYA_DECLARED})

    # --- A refused key fails `pulumi preview`, naming the keys to fix, without printing the key (was
    # test_preview_truth.py::test_a_refused_alaya_key_fails_the_preview; that mltrain:skipCredentialCheck
    # lets the check pass is the provider's: test_preview_truth.py::test_a_refused_alaya_key_fails_the_check).
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, "refused key: " + output[-3000:]
    assert "401" in output and "mltrain:alayaApiKey" in output and "mltrain:skipCredentialCheck" in output, \
        "refused key: " + output[-3000:]
    assert "not-the-key" not in output, "refused key: the key is printed"
    assert live_tasks(emulator) == [], "refused key: a preview creates nothing"
    stack.set_config("mltrain:alayaApiKey", emulator.alaya_api_key, secret=True)

    stack.up()
    outputs = stack.outputs()
    exported = stack.export()
    state = by_name(exported)
    tasks = {t["id"]: t for t in live_tasks(emulator)}
    sft_id, eval_id, private_id, drift_id = (outputs["sft_task_id"], outputs["eval_task_id"], outputs["private_id"],
                                             outputs["drift_id"])

    # --- The distributed example as declared (was test_alaya_distributed_example, and the first part of
    # test_quickstart_lifecycle: one task per resource, the mount reaches the tasks, the result key is recorded).
    assert set(tasks) == {sft_id, eval_id, private_id, drift_id}, "example: one task per resource"
    sft = tasks[sft_id]
    assert (sft["workerCount"], sft["productCode"], sft["maxRetryCount"], sft["timeoutHours"]) == \
        (4, "PRD-TRAIN-1", 3, 24), "example: the sft task as declared"
    mounts = [tasks[i]["storageConfigs"][0] for i in (sft_id, eval_id)]
    assert mounts[0] == mounts[1] and mounts[0]["onlyRead"] is True, "example: one shared read-only mount"
    assert mounts[0]["mountPath"] == "/root/nas/", "example: the mount path reaches the task"
    assert state["llama3-8b-sft"]["outputs"]["result_key"], "example: the subscription result key is recorded"

    # --- Where the program declares it: a job's source position (what Pulumi Cloud and editors link to) is
    # the line of the example's `alaya.TrainingJob(`, not the package's generated class.
    position = state["llama3-8b-sft"]["sourcePosition"]
    assert position.endswith("/__main__.py#21") and "pulumi_mltrain" not in position, position
    assert "pulumi_mltrain" not in json.dumps(state["llama3-8b-sft"]["stackTrace"][0]), "the stack's top frame"

    # --- Secrets in the state (was test_api_key_never_in_state): neither the API key nor a secret env value
    # nor the image-pull password is in the state; the pickled provider is a class reference.
    text = json.dumps(exported)
    key = defaults.DEFAULT_ALAYA_API_KEY
    assert key not in text, "secrets: the API key is in the state"
    assert SECRET not in text, "secrets: a secret env value must stay encrypted in the state"
    with alaya(emulator) as api:
        detail = api.get(f"/v1/training/instance/{private_id}/detail").json()["data"]
    pull_password = detail["imagePullSecret"]["password"]
    assert pull_password and pull_password not in text, "secrets: the image-pull password is scrubbed from outputs"
    assert "imagePullSecret" not in text
    for name in ("llama3-8b-sft", "llama3-8b-eval", "private", "drift"):
        decoded = base64.b64decode(state[name]["inputs"]["__provider"])
        assert key.encode() not in decoded, f"secrets: the API key is in the pickled provider of {name}"
        assert len(decoded) < 512, "secrets: the pickled provider is a class reference, not captured state"
    assert state["private"]["outputs"]["env"]["WANDB_API_KEY"].get(SECRET_SIG) == \
        "1b47061264138c4ac30d75fd1eb44270", "secrets: the env output is secret"

    # --- Out of band: every remote input of `drift` is changed (as in the console), the sft task is stopped
    # and deleted; and the program asks for a new image (the example's `image`), which replaces its tasks.
    before = spec_inputs(state["drift"], AlayaJobSpec)
    expected = patch_alaya_task(emulator, drift_id, before)
    with alaya(emulator) as api:
        assert api.post(f"/v1/training/instance/{sft_id}/stop").json()["status"] == 200
        assert api.delete(f"/v1/training/instance/{sft_id}/delete").json()["status"] == 200
    emulator.admin.advance(5)
    stack.set_config("image", IMAGE_2_4)

    # --- Refresh (was test_quickstart_lifecycle's refresh and test_drift.py::test_alaya_drift_through_the_engine):
    # a task deleted out of band leaves the state; the drifted task's state holds the platform's values.
    stack.refresh()
    state = by_name(stack.export())
    assert "llama3-8b-sft" not in state, "refresh: a task deleted out of band must leave the state"
    assert_refreshed(before, spec_inputs(state["drift"], AlayaJobSpec), expected)

    # --- The preview plans the repair and the replace: the drifted task and the task of a new image are
    # replaced, the deleted one is created again, the others are left as they are.
    ops = ops_by_name(stack.preview_json())
    assert ops.get("drift", set()) & REPLACE_OPS, f"drift: the preview must replace the drifted task: {ops}"
    assert ops.get("llama3-8b-eval", set()) & REPLACE_OPS, f"replace: a new image must replace the task: {ops}"
    assert ops.get("llama3-8b-sft") == {"create"}, f"refresh: a task deleted out of band is created again: {ops}"
    assert not {"private", "datasets"} & set(ops), f"nothing else changes: {ops}"

    # --- up: the replaced task leaves exactly one task with a new ID and the new image; the deleted one is
    # back; the drifted one holds the declared inputs again.
    stack.up()
    outputs = stack.outputs()
    new_sft, new_eval, new_drift = outputs["sft_task_id"], outputs["eval_task_id"], outputs["drift_id"]
    tasks = {t["id"]: t for t in live_tasks(emulator)}
    assert eval_id not in tasks and new_eval != eval_id, "replace: the replaced task must be gone"
    assert set(tasks) == {new_sft, new_eval, private_id, new_drift}, "replace: exactly one task per resource"
    assert tasks[new_eval]["image"].endswith("pytorch:2.4.0-gpu") and tasks[new_sft]["image"].endswith(
        "pytorch:2.4.0-gpu"), "replace: the new image"
    assert_alaya_repaired(emulator, before, drift_id, new_drift)

    # --- A preview after the repair changes nothing and makes no API call (was test_quickstart_lifecycle's
    # no-change preview, test_alaya_distributed_example's and the drift test's `--expect-no-changes`).
    calls = emulator.admin.requests().get("total")
    counts = change_counts(stack.preview_json())
    assert set(counts) == {"same"}, f"no change: {counts}"
    assert emulator.admin.requests().get("total") == calls, "no change: a no-change preview must not call the platform"

    # --- A refresh of unchanged jobs and a no-change `up` rewrite no resource: the engine writes its whole
    # checkpoint again after each step whose checked inputs differ from the stored ones (N steps, N writes of
    # the state), so an unchanged resource's check gives them back as they are, and a refresh without drift
    # leaves them so (the dynamic read, handed the outputs alone, would drop the owner mark, which the next
    # check adds back); `llama3-8b-sft` was created by the last `up`, the others are older (in-process for
    # every resource kind: test_handler_operations.py and test_drift.py, whose tests say "unchanged inputs"
    # and "without drift").
    before = by_name(stack.export())
    stack.refresh()
    stored = by_name(stack.export())
    assert {n: without_ciphertext(r.get("inputs")) for n, r in stored.items()} == \
        {n: without_ciphertext(r.get("inputs")) for n, r in before.items()}, "a refresh without drift kept the inputs"
    stack.up()
    again = by_name(stack.export())
    rewritten = {name: sorted(k for k in {*stored[name], *again[name]} - {"dependencies", "propertyDependencies"}
                              if without_ciphertext(stored[name].get(k)) != without_ciphertext(again[name].get(k)))
                 for name in stored}
    # The Python SDK sends a resource's dependencies in the order of a set of strings (a new order in each
    # process): compared as sets. A refresh stores the property dependencies without the empty ones, and the
    # `up` after it puts them back: the engine's bookkeeping, for which it writes no checkpoint per step.
    assert all(set(stored[n].get("dependencies", [])) == set(again[n].get("dependencies", [])) for n in stored)
    assert all({k: v for k, v in (stored[n].get("propertyDependencies") or {}).items() if v} ==
               {k: v for k, v in (again[n].get("propertyDependencies") or {}).items() if v} for n in stored)
    assert not {n: keys for n, keys in rewritten.items() if keys}, f"no change: resources rewritten: {rewritten}"

    # --- destroy leaves nothing behind on the platform or in the state.
    stack.destroy()
    assert live_tasks(emulator) == [], "destroy: tasks are left on the platform"
    assert stack.resources(TASK) == []
