"""ModelArts Algorithm + TrainingJob: lifecycle, wait targets, secrets, failures, tokens, bad input.

One engine stack (eight commands) holds what the engine decides: the example's lifecycle (a no-change
preview that calls no job API, update, replace, refresh after an out-of-band delete, destroy), wait
targets and secrets, the refresh and repair of a drifted job and algorithm, an algorithm updated in
place under the job that uses it, the scheduling, notification, volume and tag fields with their
declared semantics and run reasons, and a job made outside the stack and taken over with adopt_id.
The timed-out create that the next `up` adopts is held by the two `up` commands of test_errors.py.
What the provider decides (the error a failing job gives, its log lines and its cleanup, a token
revoked mid-run, which fields a check refuses) runs in-process against the emulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.config import Settings
from pulumi_mltrain.modelarts.algorithm import AlgorithmSpec
from pulumi_mltrain.modelarts.training_job import TrainingJobSpec as ModelArtsJobSpec
from pulumi_mltrain.modelarts.wire import contract, iam
from pulumi_mltrain.modelarts.wire.client import ModelArtsClient
from support.drift import (
    ALGORITHM_DECLARED,
    MA_JOB_DECLARED,
    REPLACE_OPS,
    assert_algorithm_repaired,
    assert_ma_job_repaired,
    assert_refreshed,
    patch_algorithm,
    patch_ma_job,
    spec_inputs,
)
from support.emulated_calls import calls, jobs
from support.modelarts_declared import FIELDS as VOLUME_FIELDS
from support.modelarts_declared import USER_ALGORITHM, USER_JOB, job_args
from support.pulumi_cli import ROOT, Stack, change_counts
from support.runs import assert_end_is_start_plus_duration, new_run_reasons, step_reasons
from support.stacks import by_name, ops_by_name

EXAMPLE = ROOT / "examples" / "modelarts-pytorch"
JOB = "dynamic/modelarts:TrainingJob"
ALGORITHM = "dynamic/modelarts:Algorithm"
TOKENS = "POST /v3/auth/tokens"



def api(emulator: EmulatorHandle) -> ModelArtsClient:
    iam.forget_tokens()
    return ModelArtsClient(Settings.load({
        "mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
        "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiUser": emulator.iam_user,
        "mltrain:huaweiDomain": emulator.iam_domain, "mltrain:huaweiPassword": emulator.iam_password}, env={}))


SUITE = ROOT / "tests" / "engine" / "programs" / "modelarts_suite"
EXAMPLE_JOB, EXAMPLE_ALGORITHM = "test-pytorch-cpu01", "test-pytorch-cpu"
SECRET = "wandb-secret-value-123"
TOPIC = "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts"
# Scheduling, notification and access fields, and a wait for the finished run.
RUN_FIELDS: dict[str, Any] = {
    "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
    "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "flavor_id": d.FLAVOR_CPU_8U,
    "pool_id": "pool-a100", "priority": 2, "preemptible": True, "retry_count": 2,
    "required_affinity": {"affinity_type": "hyperinstance", "affinity_group_size": 2},
    "notification": {"topic_urn": TOPIC, "events": ["JobFailed", "JobPreempted"]},
    "ssh_key_pair_names": ["kp-debug"], "unconditional_retry": True, "hang_retry": True,
    "wait_for": "completed",
}
RUN_FIELDS_CHANGED = {**RUN_FIELDS, "hang_retry": False, "notification": {"topic_urn": TOPIC, "events": ["JobFailed"]}}
WAITS = ("accepted", "running", "completed")
# A job made outside the stack (by hand, no owner mark), which the stack takes over with adopt_id.
OUTSIDE: dict[str, Any] = {**RUN_FIELDS, "name": "made-by-hand", "wait_for": "accepted"}


def suite_jobs_beside(extra: dict[str, dict[str, Any]], **changed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The jobs of the stack beside the example (`algorithm` names an algorithm of the program), and `extra`."""
    declared: dict[str, dict[str, Any]] = {
        "accepted": {**job_args(), "algorithm": "algo"},
        "running": {**job_args(wait_for="running"), "algorithm": "algo"},
        "completed": {**job_args(wait_for="completed", environments={"NCCL_DEBUG": "WARN"}), "algorithm": "algo"},
        "user": {**USER_JOB, "algorithm": "shared"},
        "drift": MA_JOB_DECLARED,
        "fields": VOLUME_FIELDS,
        "runfields": RUN_FIELDS,
        **extra,
    }
    return {**declared, **changed}


@pytest.mark.engine
@pytest.mark.slow
def test_modelarts_stack_lifecycle(emulator: EmulatorHandle, modelarts_stack: Callable[..., Stack]) -> None:
    """One stack, eight engine commands: the modelarts-pytorch example (its own `__main__.py`), three jobs
    waiting for each target with a secret environment value on an algorithm whose every input drifts, a
    drifting job, a job on an algorithm whose description changes, and two jobs of scheduling, volume and
    notification fields. Each section says which guarantee it holds and which former test it replaces;
    what the provider decides runs in-process (this file's, test_drift.py's and test_modelarts_fields.py's
    other tests)."""
    outside = api(emulator).create_job(ModelArtsJobSpec.model_validate(OUTSIDE).wire())["metadata"]["id"]

    def suite_jobs(**changed: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return suite_jobs_beside({"adopted": {**OUTSIDE, "adopt_id": outside}}, **changed)

    stack = modelarts_stack(SUITE, {"sensitiveEnv": {name: {"WANDB_API_KEY": SECRET} for name in WAITS}},
                            example=str(EXAMPLE / "__main__.py"),
                            algorithms={"algo": ALGORITHM_DECLARED, "shared": USER_ALGORITHM}, jobs=suite_jobs())
    stack.up()
    out = stack.outputs()
    exported = stack.export()
    state = by_name(exported)
    platform = {j["metadata"]["id"]: j for j in jobs(emulator)}
    ids = {name: state[name]["id"] for name in (EXAMPLE_JOB, *suite_jobs())}
    assert set(platform) == set(ids.values()), "one job per resource"
    # Adoption with the real job detail (no annotations): the job made outside is taken over, not made again,
    # and its tags carry this resource's mark from now on; the refresh and the previews below show no drift.
    assert ids["adopted"] == outside and state["adopted"]["outputs"]["phase"] in ("Pending", "Running", "Completed")
    assert contract.OWNER_STACK in {t["key"] for t in platform[outside]["tags"]}, "adopted: marked as ours"
    ids.update({name: state[name]["id"] for name in ("algo", "shared")})

    # --- The example as declared (was test_seed_example_lifecycle's first part).
    job = platform[out["job_id"]]
    assert out["job_id"] == ids[EXAMPLE_JOB] and out["phase"] in ("Pending", "Running", "Completed")
    assert "log_url" not in state[EXAMPLE_JOB]["outputs"], \
        "no presigned link in the state: get_training_job_logs reads logs"
    assert job["algorithm"]["id"] == out["algorithm_id"] == state[EXAMPLE_ALGORITHM]["outputs"]["algorithm_id"]
    assert job["algorithm"]["inputs"][0]["remote"] == {"obs": {"obs_url": "/cnnorth4-job-test-v2/pytorch/"
                                                                          "fast_example/data/"}}
    assert job["spec"]["log_export_path"] == {"obs_url": "/cnnorth4-job-test-v2/pytorch/fast_example/log/"}

    # --- Wait targets and secrets in the state (was test_wait_targets_and_secret_environment).
    assert out["accepted_phase"] in ("Pending", "Running", "Completed"), "wait: accepted"
    assert out["running_phase"] in ("Running", "Completed"), "wait: running"
    assert out["completed_phase"] == "Completed", "wait: completed"
    text = json.dumps(exported)
    assert SECRET not in text, "secrets: a secret environment value must stay encrypted in the state"
    assert d.DEFAULT_IAM_PASSWORD not in text, "secrets: the IAM password is in the state"

    # --- The scheduling, notification and access fields as Huawei writes them (was
    # test_modelarts_run_fields_engine.py::test_new_fields_round_trip_and_change_with_their_semantics).
    job = platform[ids["runfields"]]
    assert job["spec"]["schedule_policy"] == {"priority": 2, "preemptible": True,
                                              "required_affinity": RUN_FIELDS["required_affinity"]}
    assert job["spec"]["notification"] == RUN_FIELDS["notification"]
    assert job["endpoints"] == {"ssh": {"key_pair_names": ["kp-debug"]}}
    assert job["metadata"]["annotations"][contract.UNCONDITIONAL_RETRY_ANNOTATION] == "true"
    assert job["metadata"]["annotations"][contract.HANG_RETRY_ANNOTATION] == "true"

    # --- Out of band: every remote input of the algorithm `algo` and of the job `drift` is changed (as in
    # the console), and the job `accepted` is deleted.
    algorithm_before = spec_inputs(state["algo"], AlgorithmSpec)
    job_before = spec_inputs(state["drift"], ModelArtsJobSpec)
    algorithm_expected = patch_algorithm(emulator, ids["algo"], algorithm_before)
    job_expected = patch_ma_job(emulator, ids["drift"], job_before)
    api(emulator).delete_job(ids["accepted"])
    emulator.admin.advance(5)

    # --- Refresh (was test_drift.py::test_modelarts_drift_through_the_engine, the seed lifecycle's refresh, and
    # the refreshes of the fields tests): drifted inputs hold the platform's values, a job deleted out of band
    # leaves the state (its algorithm stays), and finished-run facts are recorded as outputs only.
    stack.refresh()
    state = by_name(stack.export())
    assert "accepted" not in state and "algo" in state, "refresh: a job deleted out of band must leave the state"
    assert_refreshed(algorithm_before, spec_inputs(state["algo"], AlgorithmSpec), algorithm_expected)
    assert_refreshed(job_before, spec_inputs(state["drift"], ModelArtsJobSpec), job_expected)
    inputs, outputs = state["runfields"]["inputs"], state["runfields"]["outputs"]
    for field in ("preemptible", "required_affinity", "notification", "ssh_key_pair_names", "unconditional_retry",
                  "hang_retry"):
        assert inputs[field] == RUN_FIELDS[field], f"run fields: {field} after the refresh"
    assert outputs["phase"] == "Completed"
    assert_end_is_start_plus_duration(outputs)
    assert outputs["task_statuses"] == [{"task": "worker-0", "exit_code": 0, "message": None}]
    assert outputs["run_reason"] == "first run (0 GPUs)", "run_reason: kept by the refresh"
    assert state["fields"]["outputs"]["tags"] == {"team": "vision"}, \
        "fields: the owner mark must not show as a user tag"

    # --- The preview plans the repair (the algorithm in place, the job replaced) and the re-creation; the
    # refresh left no diff on the fields jobs; jobs using the algorithm updated in place are unchanged.
    ops = ops_by_name(stack.preview_json())
    assert ops.get("algo") == {"update"}, f"drift: the algorithm is repaired in place: {ops}"
    assert ops.get("drift", set()) & REPLACE_OPS, f"drift: the job is replaced: {ops}"
    assert ops.get("accepted") == {"create"}, f"refresh: a job deleted out of band is created again: {ops}"
    assert set(ops) == {"algo", "drift", "accepted"}, f"refresh must leave no diff elsewhere: {ops}"

    stack.up()
    state = by_name(stack.export())
    assert state["algo"]["id"] == ids["algo"], "drift: the algorithm keeps its ID"
    assert_algorithm_repaired(emulator, algorithm_before, ids["algo"])
    assert_ma_job_repaired(emulator, job_before, ids["drift"], state["drift"]["id"])
    assert [state[name]["id"] for name in ("running", "completed")] == [ids["running"], ids["completed"]], \
        "an algorithm updated in place leaves the jobs that use it unchanged"
    assert state["accepted"]["id"] in {j["metadata"]["id"] for j in jobs(emulator)}, "up creates the deleted job again"
    ids = {name: state[name]["id"] for name in ids}

    # --- No change: nothing to do, and no call to the job or algorithm APIs (the example's program reads the
    # flavor and engine catalogues, which is what get_flavors/get_engines are for). Was the seed lifecycle's
    # no-change preview and the `--expect-no-changes` of the drift and fields tests.
    before = calls(emulator, "")
    counts = change_counts(stack.preview_json())
    assert set(counts) == {"same"}, f"no change: {counts}"
    after = calls(emulator, "")
    changed = {k for k in after if after[k] != before.get(k, 0)}
    assert changed <= {TOKENS, "GET /v2/{project_id}/training-job-flavors",
                       "GET /v2/{project_id}/training-job-engines"}, f"no change: calls {changed}"

    # --- Changes with their declared semantics, one preview and one up: the example's description and the
    # fields job's tags change in place, the shared algorithm's description too (was
    # test_preview_truth.py::test_an_algorithm_description_change_leaves_its_job_unchanged: its job stays),
    # and notification and hang_retry replace the run-fields job, whose new run says why. The drifted job's
    # description changes in place too, and its preview keeps the reason of the run its repair started;
    # so does the example's job, whose stored inputs are the refresh's.
    stack.set_config_all({"description": "second run", "algorithms": json.dumps(
        {"algo": ALGORITHM_DECLARED, "shared": {**USER_ALGORITHM, "description": "v2"}}), "jobs": json.dumps(
        suite_jobs(runfields=RUN_FIELDS_CHANGED, fields={**VOLUME_FIELDS, "tags": {"cost": "ml"}},
                   drift={**MA_JOB_DECLARED, "description": "recorded"}))})
    preview = stack.preview_json()
    ops = ops_by_name(preview)
    said = "new run: changing notification, hang_retry replaces the training job (0 GPUs)"
    assert ops.get(EXAMPLE_JOB) == {"update"}, f"the description changes in place: {ops}"
    assert ops.get("fields") == {"update"}, f"tags change in place: {ops}"
    assert ops.get("shared") == {"update"}, f"the algorithm's description changes in place: {ops}"
    assert ops.get("runfields", set()) & REPLACE_OPS, f"notification and hang_retry replace the job: {ops}"
    assert ops.get("drift") == {"update"}, f"the description changes in place: {ops}"
    assert set(ops) == {EXAMPLE_JOB, "fields", "shared", "runfields", "drift"}, \
        f"the job using the changed algorithm is unchanged: {ops}"
    assert new_run_reasons(preview) == {"runfields": said}, preview["steps"]
    repaired = state["drift"]["outputs"]["run_reason"]
    assert repaired.startswith("new run: changing ") and "name" in repaired, \
        f"run_reason: the repair's run says which drifted fields it declares again: {repaired}"
    assert step_reasons(preview, "update")["drift"] == repaired, \
        "run_reason: a change that keeps the run keeps its reason"
    assert step_reasons(preview, "update")[EXAMPLE_JOB] == state[EXAMPLE_JOB]["outputs"]["run_reason"], \
        "run_reason: kept through a refresh, and shown by the preview of a change in place after it"
    stack.up()
    state = by_name(stack.export())
    live = {j["metadata"]["id"]: j for j in jobs(emulator)}
    for name in (EXAMPLE_JOB, "fields", "user", "drift", "adopted"):
        assert state[name]["id"] == ids[name], f"{name}: updated in place, or left alone, keeps its ID"
    assert live[ids[EXAMPLE_JOB]]["metadata"]["description"] == "second run"
    assert contract.OWNER_STACK in {t["key"] for t in live[ids["fields"]]["tags"]}, "the owner mark stays beside tags"
    new_id = state["runfields"]["id"]
    assert new_id != ids["runfields"] and ids["runfields"] not in live, "replace: the old job must be gone"
    assert state["runfields"]["outputs"]["run_reason"] == said
    assert live[new_id]["spec"]["notification"]["events"] == ["JobFailed"]
    assert live[new_id]["metadata"]["annotations"][contract.HANG_RETRY_ANNOTATION] == "false"
    assert set(live) == {r["id"] for r in state.values() if r["type"].endswith(JOB)}, "one job per resource"
    # Which other fields replace (flavor: tests/unit/test_modelarts_spec.py::test_only_description_changes_in_place;
    # priority: tests/inprocess/test_modelarts_fields.py::test_each_replacing_field_previews_a_replace) or
    # change in place, and that an update keeps its run's reason
    # (tests/inprocess/test_runs.py::test_run_reason_says_why_each_run_exists), is the provider's.

    stack.destroy()
    assert emulator.admin.state()["modelarts"] == {"algorithms": [], "jobs": []}, "destroy: objects are left"
    assert stack.resources(JOB) == stack.resources(ALGORITHM) == []
