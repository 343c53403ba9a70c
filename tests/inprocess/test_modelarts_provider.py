"""ModelArts providers against the emulator: idempotent create, rollback, timeouts, drift, delete."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.ownership import FAILED_KEY, UNFINISHED_KEY
from support import inprocess
from support.inprocess import AnyHandler, checked

pytestmark = pytest.mark.usefixtures("quick")


@pytest.fixture
def jobs(emulator: EmulatorHandle) -> AnyHandler:
    return inprocess.handler("modelarts:TrainingJob", emulator, **{"mltrain:maxRetries": "2"})


@pytest.fixture
def algorithms(emulator: EmulatorHandle) -> AnyHandler:
    return inprocess.handler("modelarts:Algorithm", emulator, **{"mltrain:maxRetries": "2"})


OWNER = {"__mltrain_stack": "st-unit", "__mltrain_urn": "urn:pulumi:test::unit::pulumi-python:dynamic/x:Y::job"}
ALGORITHM = {**OWNER, "name": "algo", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
             "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
             "parameters": [{"name": "epochs", "value": 1}], "inputs": [{"name": "data_url"}]}


@pytest.fixture
def algorithm_id(algorithms: AnyHandler) -> str:
    return algorithms.create(checked(algorithms, dict(ALGORITHM))).id


@pytest.fixture
def job_props(algorithm_id: str) -> Callable[..., dict[str, Any]]:
    def make(**changes: Any) -> dict[str, Any]:
        props = {**OWNER, "name": "job", "algorithm_id": algorithm_id, "flavor_id": d.FLAVOR_CPU_8U,
                 "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
                 "parameters": [{"name": "epochs", "value": 3}], "log_export_path": "obs://b/logs/"}
        props.update(changes)
        return props

    return make


def live(emulator: EmulatorHandle) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["modelarts"]["jobs"])


def test_wait_targets(emulator: EmulatorHandle, jobs: AnyHandler,
                      job_props: Callable[..., dict[str, Any]]) -> None:
    for name, target, phases in (("a", "accepted", {"Pending", "Running", "Completed"}),
                                 ("r", "running", {"Running", "Completed"}), ("c", "completed", {"Completed"})):
        created = jobs.create(checked(jobs, job_props(name=name, wait_for=target)))
        assert created.outputs["phase"] in phases
        assert created.outputs["job_id"] == created.id and created.outputs["tasks"] == ["worker-0"]
    done = inprocess.read(jobs, created.id, created.outputs)
    assert "log_url" not in done.outputs and "cpuUsage" in done.outputs["metrics_summary"]
    assert len(live(emulator)) == 3


def test_a_failing_job_is_deleted_and_explained(emulator: EmulatorHandle, jobs: AnyHandler,
                                                job_props: Callable[..., dict[str, Any]]) -> None:
    """on_failure="delete": the failed run's job is deleted, and its failure held in the state."""
    emulator.admin.set_settings(modelarts_fail_names="^doomed")
    created = jobs.create(checked(jobs, job_props(name="doomed-1", wait_for="completed", on_failure="delete")))
    text = str(created.outputs[FAILED_KEY])
    assert text.startswith("TrainingJob 'doomed-1': training job 'doomed-1' (")
    assert "ended Failed before it was completed" in text and "exited with code 1" in text
    assert "logs were exported to obs://b/logs/" in text and 'its job was deleted (on_failure="delete")' in text
    assert live(emulator) == []


def test_a_slow_job_is_recorded_unfinished_and_waited_for_next_time(
        emulator: EmulatorHandle, jobs: AnyHandler, job_props: Callable[..., dict[str, Any]]) -> None:
    """A create that runs out of time records its job as unfinished (the program raises the timeout);
    the next `pulumi up` (an update) goes on waiting for the same job."""
    emulator.admin.set_settings(modelarts_phase_delay=1000)
    props = checked(jobs, job_props(wait_for="running", timeouts={"create": 1.5}))
    created = jobs.create(props)
    [job] = live(emulator)
    text = str(created.outputs[UNFINISHED_KEY])
    assert created.id == job["metadata"]["id"] and "was still Creating after " in text, text
    assert "recorded as unfinished: the next `pulumi up` goes on waiting for it to be running" in text, text
    emulator.admin.set_settings(modelarts_phase_delay=0.1)
    again = jobs.update(created.id, dict(created.outputs), props)
    assert again.outputs["phase"] in ("Running", "Completed") and not again.outputs.get(UNFINISHED_KEY), \
        again.outputs
    assert len(live(emulator)) == 1


def test_a_lost_create_answer_does_not_duplicate(emulator: EmulatorHandle, jobs: AnyHandler,
                                                 job_props: Callable[..., dict[str, Any]]) -> None:
    emulator.admin.set_faults(["POST /v2/*/training-jobs:drop_after_commit:times=1"])
    created = jobs.create(checked(jobs, job_props()))
    assert [j["metadata"]["id"] for j in live(emulator)] == [created.id]
    assert emulator.admin.requests()["endpoints"]["POST /v2/{project_id}/training-jobs"] == 1


def test_an_unrecorded_job_of_ours_is_removed_before_the_create(
        emulator: EmulatorHandle, jobs: AnyHandler, job_props: Callable[..., dict[str, Any]]) -> None:
    """A job of this resource's mark that no state records (other settings, even) is never taken over: the
    create removes it, then makes the declared one."""
    stale = jobs.create(checked(jobs, job_props(flavor_id=d.FLAVOR_GPU_V100)))
    fresh = jobs.create(checked(jobs, job_props()))
    assert [j["metadata"]["id"] for j in live(emulator)] == [fresh.id] and fresh.id != stale.id
    assert live(emulator)[0]["spec"]["resource"]["flavor_id"] == d.FLAVOR_CPU_8U


def test_a_job_of_another_owner_is_refused_by_name(emulator: EmulatorHandle, jobs: AnyHandler,
                                                   job_props: Callable[..., dict[str, Any]]) -> None:
    first = jobs.create(checked(jobs, job_props()))
    other = {"__mltrain_stack": "st-other", "__mltrain_urn": OWNER["__mltrain_urn"]}
    with pytest.raises(MltrainError) as caught:
        jobs.create(checked(jobs, job_props(**other)))
    text = str(caught.value)
    assert f"already taken by training job {first.id}" in text and "stack identity st-other" not in text
    assert "stack identity st-unit" in text and f'adopt_id="{first.id}"' in text
    assert len(live(emulator)) == 1


def test_adoption_marks_the_job_as_ours(emulator: EmulatorHandle, jobs: AnyHandler,
                                        job_props: Callable[..., dict[str, Any]]) -> None:
    other = {"__mltrain_stack": "st-other", "__mltrain_urn": OWNER["__mltrain_urn"]}
    first = jobs.create(checked(jobs, job_props(**other)))
    with pytest.raises(MltrainError, match="adopt_id"):
        jobs.create(checked(jobs, job_props()))  # by name: not ours
    adopted = jobs.create(checked(jobs, job_props(adopt_id=first.id)))
    assert adopted.id == first.id
    tags = {t["key"]: t["value"] for t in jobs.platform({}).client.job_tags(first.id)}
    assert tags == {"mltrain-owner-stack": "st-unit", "mltrain-owner-urn": OWNER["__mltrain_urn"]}
    again = jobs.create(checked(jobs, job_props()))  # a create's look-up now knows it as ours, and removes it
    assert again.id != first.id and [j["metadata"]["id"] for j in live(emulator)] == [again.id]


def test_adoption_waits_and_leaves_a_failed_job(emulator: EmulatorHandle, jobs: AnyHandler,
                                                job_props: Callable[..., dict[str, Any]]) -> None:
    """adopt_id records a job only once it has reached `wait_for`; one that fails first is an error and
    is neither deleted nor marked as ours (it is not this resource's to roll back)."""
    emulator.admin.set_settings(modelarts_run_seconds=2, modelarts_fail_names="^doomed")
    other = {"__mltrain_stack": "st-other", "__mltrain_urn": OWNER["__mltrain_urn"]}
    good = jobs.create(checked(jobs, job_props(name="good", **other)))
    doomed = jobs.create(checked(jobs, job_props(name="doomed-3", **other)))
    adopted = jobs.create(checked(jobs, job_props(name="good", wait_for="completed", adopt_id=good.id)))
    assert adopted.id == good.id and adopted.outputs["phase"] == "Completed"
    with pytest.raises(MltrainError) as caught:
        jobs.create(checked(jobs, job_props(name="doomed-3", wait_for="completed", adopt_id=doomed.id)))
    text = str(caught.value)
    assert "ended Failed before it was completed" in text and "so it was not deleted" in text, text
    assert sorted(j["metadata"]["id"] for j in live(emulator)) == sorted([good.id, doomed.id])
    tags = {t["key"]: t["value"] for t in jobs.platform({}).client.job_tags(doomed.id)}
    assert tags == {"mltrain-owner-stack": "st-other", "mltrain-owner-urn": OWNER["__mltrain_urn"]}, \
        "the failed job keeps its maker's mark: it was not marked as ours"


def test_adoption_fixes_only_the_description(emulator: EmulatorHandle, jobs: AnyHandler,
                                             job_props: Callable[..., dict[str, Any]]) -> None:
    first = jobs.create(checked(jobs, job_props(description="old")))
    adopted = jobs.create(checked(jobs, job_props(description="new", adopt_id=first.id)))
    assert adopted.id == first.id
    assert live(emulator)[0]["metadata"]["description"] == "new"


def test_refresh_reports_description_drift_and_deletion(emulator: EmulatorHandle, jobs: AnyHandler,
                                                        job_props: Callable[..., dict[str, Any]]) -> None:
    created = jobs.create(checked(jobs, job_props(description="mine")))
    jobs.platform({}).client.update_job_description(created.id, "changed in the console")
    read = inprocess.read(jobs, created.id, created.outputs)
    assert read.inputs["description"] == "changed in the console"
    assert read.outputs["description"] == "changed in the console"
    jobs.delete(created.id, created.outputs)
    assert live(emulator) == []
    assert jobs.read(created.id, created.outputs) is None, "gone: the engine drops it from the state"
    jobs.delete(created.id, created.outputs)  # already gone: success


def test_update_changes_only_the_description(emulator: EmulatorHandle, jobs: AnyHandler,
                                             job_props: Callable[..., dict[str, Any]]) -> None:
    created = jobs.create(checked(jobs, job_props()))
    news = checked(jobs, job_props(description="second"))
    diff = jobs.diff(created.outputs, news, created.id)
    assert diff.changes and not diff.replaces
    updated = jobs.update(created.id, created.outputs, news)
    assert updated.outputs["description"] == "second" and updated.outputs["job_id"] == created.id
    assert live(emulator)[0]["metadata"]["description"] == "second"
    assert jobs.diff(created.outputs, checked(jobs, job_props(node_count=2)), created.id).replaces == ("node_count",)


def test_preview_checks_the_catalogues(emulator: EmulatorHandle, jobs: AnyHandler,
                                       job_props: Callable[..., dict[str, Any]]) -> None:
    found = dict(inprocess.failures(jobs, job_props(flavor_id="modelarts.vm.nope")))
    assert "modelarts.vm.nope is not offered here" in found["flavor_id"]
    found = dict(inprocess.failures(jobs, job_props(node_count=5)))
    assert found == {"node_count": "TrainingJob: node_count 5 exceeds the maximum of 4 nodes for modelarts.vm.cpu.8u"}
    found = dict(inprocess.failures(jobs, job_props(algorithm_id="missing")))
    assert "does not exist" in found["algorithm_id"]
    inline = job_props(algorithm_id=None, code_dir="/b/c/", boot_file="/b/c/t.py", engine_name="PyTorch",
                       engine_version="pytorch_0.1")
    found = dict(inprocess.failures(jobs, inline))
    assert "is not a version of PyTorch" in found["engine_version"]
    before = emulator.admin.requests()["endpoints"]
    jobs.check({}, job_props())
    jobs.check({}, job_props())
    after = emulator.admin.requests()["endpoints"]
    key = "GET /v2/{project_id}/training-job-flavors"
    assert after.get(key, 0) == before.get(key, 0), "catalogues are cached for a minute"


def test_algorithm_update_is_a_full_put(emulator: EmulatorHandle, algorithms: AnyHandler,
                                        algorithm_id: str) -> None:
    olds = {**checked(algorithms, dict(ALGORITHM)),
            **inprocess.read(algorithms, algorithm_id, checked(algorithms, dict(ALGORITHM))).outputs}
    news = checked(algorithms, {**ALGORITHM, "parameters": [], "inputs": [], "description": "v2"})
    assert algorithms.diff(olds, news, algorithm_id).replaces == ()
    updated = algorithms.update(algorithm_id, olds, news)
    assert updated.outputs["algorithm_id"] == algorithm_id and updated.outputs["update_time"]
    [stored] = emulator.admin.state()["modelarts"]["algorithms"]
    assert stored["job_config"]["parameters"] == [] and stored["job_config"]["inputs"] == []
    assert stored["metadata"]["description"] == "v2"
    renamed = checked(algorithms, {**ALGORITHM, "name": "algo-2"})
    assert algorithms.diff(olds, renamed, algorithm_id).replaces == ("name",)
    algorithms.delete(algorithm_id, olds)
    assert emulator.admin.state()["modelarts"]["algorithms"] == []
