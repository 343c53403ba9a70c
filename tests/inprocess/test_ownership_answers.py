"""Whose object is it, with the answers the real platforms give: ModelArts' job detail returns no
annotations (the owner mark lives in the job's tags), and Alaya NeW's task detail may return no `env`.

In process against the emulator in its default, real-shaped mode. A "next run" below is a second
create with the same checked inputs: what `pulumi up` does after a run that was killed before its
state recorded the object. The mark tells it is this resource's own, so the create removes it before it
makes its own (lifecycle/takeover.py: a create never takes an object over by its mark); an object that
is not its own stops it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain import spec as specs
from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.modelarts.training_job import TrainingJobSpec
from pulumi_mltrain.modelarts.wire import contract
from pulumi_mltrain.ownership import Mark
from support import inprocess
from support.inprocess import AnyHandler, checked
from support.stacks import alaya_job_args

URN = "urn:pulumi:test::unit::pulumi-python:dynamic/modelarts:TrainingJob::trainer"
OWNER = {"__mltrain_stack": "st-owner", "__mltrain_urn": URN}
MARK = {contract.OWNER_STACK: "st-owner", contract.OWNER_URN: URN}
JOBS = "POST /v2/{project_id}/training-jobs"
RETRY_KEYS = (contract.RETRY_ANNOTATION, contract.UNCONDITIONAL_RETRY_ANNOTATION, contract.HANG_RETRY_ANNOTATION)


pytestmark = pytest.mark.usefixtures("quick")


@pytest.fixture
def jobs(emulator: EmulatorHandle) -> AnyHandler:
    return inprocess.handler("modelarts:TrainingJob", emulator, **{"mltrain:maxRetries": "2"})


@pytest.fixture
def job_props() -> Callable[..., dict[str, Any]]:
    def make(**changes: Any) -> dict[str, Any]:
        props = {**OWNER, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                 "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
                 "flavor_id": d.FLAVOR_CPU_8U, "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
                 "retry_count": 3, "unconditional_retry": True, "hang_retry": True, "tags": {"team": "nlp"}}
        props.update(changes)
        return props

    return make


def wire(inputs: dict[str, Any]) -> dict[str, Any]:
    """The create body the provider sends for checked `inputs` (its tags go by a call of their own)."""
    body = TrainingJobSpec.model_validate(specs.user_props(inputs, TrainingJobSpec)).wire()
    body.pop("tags", None)
    return body


def stored_jobs(emulator: EmulatorHandle) -> list[dict[str, Any]]:
    return [j for j in emulator.admin.state()["modelarts"]["jobs"] if not j["deleting"]]


def tags_of(jobs: AnyHandler, job_id: str) -> dict[str, str]:
    return {t["key"]: t["value"] for t in jobs.platform({}).client.job_tags(job_id)}


def test_the_mark_is_in_the_job_tags_and_no_annotation_key_is_invented(
        emulator: EmulatorHandle, jobs: AnyHandler, job_props: Callable[..., dict[str, Any]]) -> None:
    created = jobs.create(checked(jobs, job_props()))
    assert tags_of(jobs, created.id) == {**MARK, "team": "nlp"}
    [stored] = stored_jobs(emulator)
    annotations = stored["metadata"]["annotations"]  # as sent, with the platform's own defaults
    assert {k: annotations[k] for k in RETRY_KEYS} == {RETRY_KEYS[0]: "3", RETRY_KEYS[1]: "true",
                                                       RETRY_KEYS[2]: "true"}
    assert not [k for k in annotations if "mltrain" in k], "no annotation key that Huawei does not document"
    detail = jobs.platform({}).client.job(created.id)
    assert "annotations" not in detail["metadata"], "a real-shaped detail"
    assert created.outputs["tags"] == {"team": "nlp"}, "the mark never shows among the user's tags"


def test_the_next_run_knows_its_unrecorded_job_by_the_tags(
        emulator: EmulatorHandle, jobs: AnyHandler, job_props: Callable[..., dict[str, Any]]) -> None:
    inputs = checked(jobs, job_props(name="named-by-user"))
    first = jobs.create(inputs)
    again = jobs.create(inputs)
    assert again.id != first.id and [j["metadata"]["id"] for j in stored_jobs(emulator)] == [again.id], \
        "the unrecorded job is removed, then the new one made: one job"
    assert emulator.admin.requests()["endpoints"][JOBS] == 2
    other = {**job_props(name="named-by-user"), "__mltrain_stack": "st-fork"}
    with pytest.raises(MltrainError) as refused:
        jobs.create(checked(jobs, other))
    assert f"it belongs to resource {URN} of stack identity st-owner" in str(refused.value)
    assert len(stored_jobs(emulator)) == 1


def test_a_job_made_before_its_mark_is_ours_under_the_name_the_provider_chose(
        emulator: EmulatorHandle, jobs: AnyHandler, job_props: Callable[..., dict[str, Any]]) -> None:
    """A run killed between the create and the tags call leaves an unmarked job. The name the provider
    chose (a hash of the stack identity and the URN) proves it is this resource's, so the next run removes
    it; a name the user chose proves nothing, and the job is refused with the way to adopt it."""
    inputs = checked(jobs, job_props())
    assert inputs["name"] == Mark("st-owner", URN).default_name()
    made = jobs.platform({}).client.create_job(wire(inputs))  # no tags yet
    taken = jobs.create(inputs)
    assert taken.id != made["metadata"]["id"] and [j["metadata"]["id"] for j in stored_jobs(emulator)] == [taken.id]
    assert tags_of(jobs, taken.id) == {**MARK, "team": "nlp"}, "the new one is marked"

    named = checked(jobs, job_props(name="chosen-name"))
    unmarked = jobs.platform({}).client.create_job(wire(named))
    with pytest.raises(MltrainError) as refused:
        jobs.create(named)
    text = str(refused.value)
    assert "carries no owner mark" in text and f'adopt_id="{unmarked["metadata"]["id"]}"' in text, text
    assert len(stored_jobs(emulator)) == 2 and tags_of(jobs, unmarked["metadata"]["id"]) == {}


def test_a_lost_create_answer_is_found_unmarked_and_marked(
        emulator: EmulatorHandle, jobs: AnyHandler, job_props: Callable[..., dict[str, Any]]) -> None:
    """The answer is lost after the job was made, so its tags were never written: the job that appears
    under the name (none did before the POST) is the one just sent, also under a name the user chose."""
    emulator.admin.set_faults(["POST /v2/*/training-jobs:drop_after_commit:times=1"])
    created = jobs.create(checked(jobs, job_props(name="chosen-name")))
    assert [j["metadata"]["id"] for j in stored_jobs(emulator)] == [created.id]
    assert emulator.admin.requests()["endpoints"][JOBS] == 1
    assert tags_of(jobs, created.id) == {**MARK, "team": "nlp"}


def test_a_job_whose_mark_cannot_be_written_is_deleted(
        emulator: EmulatorHandle, jobs: AnyHandler, job_props: Callable[..., dict[str, Any]]) -> None:
    emulator.admin.set_faults(["POST /v2/*/modelarts-training-job/*/tags/create:status=403"])
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, job_props(name="chosen-name")))
    text = str(failed.value)
    assert "was created, but writing its owner mark failed" in text and "was deleted" in text, text
    assert stored_jobs(emulator) == []


def test_inputs_the_detail_does_not_return_are_kept_from_the_state(
        emulator: EmulatorHandle, jobs: AnyHandler, job_props: Callable[..., dict[str, Any]]) -> None:
    """Retry annotations and input channels are not in the real job detail: a refresh keeps the
    state's values and a no-change diff stays empty. Where an answer carries them (the reference's
    full shape), drift in them is read."""
    inputs = checked(jobs, job_props())
    created = jobs.create(inputs)
    job_id = created.id
    assert inprocess.read(jobs, job_id, created.outputs).inputs is None, "no drift: the stored inputs stand"
    state = {**inputs, **created.outputs}  # as the plugin's read is handed it: the inputs it gives
    read = inprocess.read(jobs, job_id, state)
    for key in ("retry_count", "unconditional_retry", "hang_retry", "inputs"):
        assert read.inputs is not None and read.inputs[key] == inputs[key], key
    assert jobs.diff(read.outputs, checked(jobs, job_props()), job_id).changes is False

    emulator.admin.patch("modelarts", "job", job_id, {
        "metadata.annotations.fault-tolerance/job-retry-num": "5",
        "algorithm.inputs": [{"name": "data_url", "remote": {"obs": {"obs_url": "/b/other/"}}}]})
    assert inprocess.read(jobs, job_id, created.outputs).inputs is None, "not returned, so no drift"
    assert inprocess.read(jobs, job_id, state).inputs == read.inputs, "not returned, so no drift"
    emulator.admin.set_settings(modelarts_full_detail=True)
    drifted = inprocess.read(jobs, job_id, created.outputs).inputs
    assert drifted["retry_count"] == 5 and drifted["inputs"][0]["obs_url"] == "/b/other/"


@pytest.mark.parametrize("detail_env", [True, False])
def test_alaya_next_run_knows_its_task_with_or_without_env_in_the_detail(emulator: EmulatorHandle,
                                                                        detail_env: bool) -> None:
    """Alaya NeW's task detail is not public: the mark travels in `env`, assumed returned. Without it
    the task is still this resource's under the name the provider chose, and refused under a user's."""
    emulator.admin.set_settings(alaya_detail_env=detail_env)
    tasks = inprocess.handler("alaya:TrainingJob", emulator)
    owner = {"__mltrain_stack": "st-owner", "__mltrain_urn": URN.replace("modelarts", "alaya")}
    autonamed = {**alaya_job_args(wait_for="running"), **owner}
    autonamed.pop("name", None)
    inputs = checked(tasks, autonamed)
    first = tasks.create(inputs)
    again = tasks.create(inputs)
    assert again.id != first.id, "removed, then made again: never taken over by its mark"

    named = checked(tasks, {**autonamed, "name": "chosen-name"})
    second = tasks.create(named)
    if detail_env:
        third = tasks.create(named)
        kept = [again.id, third.id]
    else:
        with pytest.raises(MltrainError, match=f'carries no owner mark.*adopt_id="{second.id}"'):
            tasks.create(named)
        kept = [again.id, second.id]
    live = [t for t in emulator.admin.state()["alaya"]["tasks"] if not t["deleting"]]
    assert sorted(t["id"] for t in live) == sorted(kept)
