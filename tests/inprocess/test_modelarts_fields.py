"""ModelArts job fields (tags, volumes, retries, priority, dataset inputs) and the replace guard:
created, refreshed with no diff, changed with the declared replace/update, and a guarded preview refused.

What each field does is the provider's own logic, so most cases run in-process against the emulator
(`check` failures are what a preview prints, `diff` gives its replace/update, `read` what a refresh
stores, `update` what an up changes). The ModelArts engine stack
(test_modelarts_engine.py::test_modelarts_stack_lifecycle, with this file's FIELDS) shows that the engine
turns those answers into the same preview: no diff after a refresh, an update for tags that keeps the
job's ID, a replace for a changed priority.
"""

from __future__ import annotations

from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.modelarts.wire import contract
from support import inprocess
from support.inprocess import AnyHandler
from support.modelarts_declared import FIELDS
from support.modelarts_declared import FIELDS_BASE as BASE

MA_JOB = "modelarts:TrainingJob"
REPLACE_OPS = {"replace", "create-replacement", "delete-replaced"}


def _job(emulator: EmulatorHandle, job_id: str) -> dict[str, Any]:
    return dict(next(j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == job_id))


@pytest.fixture
def jobs(emulator: EmulatorHandle) -> AnyHandler:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
    return inprocess.handler("modelarts:TrainingJob", emulator)


class Created:
    """A resource created in-process: its ID and the state the engine would hold (inputs and outputs)."""

    def __init__(self, handler: AnyHandler, props: dict[str, Any], name: str = "job") -> None:
        self.handler = handler
        self.inputs = inprocess.checked(handler, {**inprocess.OWNER, "name": name, **props})
        result = handler.create(self.inputs)
        self.id, self.state = result.id, {**self.inputs, **result.outputs}

    def news(self, props: dict[str, Any]) -> dict[str, Any]:
        """What `check` passes on for changed declarations (the name is kept, as on a re-run)."""
        return inprocess.checked(self.handler, {**inprocess.OWNER, "name": self.inputs["name"], **props},
                                 olds=self.inputs)

    def refresh(self) -> dict[str, Any]:
        """What a refresh stores: the read outputs, which the next diff compares against."""
        read = inprocess.read(self.handler, self.id, self.state)  # fails if the refresh drops it
        self.state = dict(read.outputs)
        return self.state

    def update(self, news: dict[str, Any]) -> None:
        result = self.handler.update(self.id, self.state, news)
        self.inputs, self.state = news, {**news, **result.outputs}

    def delete(self) -> None:
        self.handler.delete(self.id, self.state)


def test_fields_created_refreshed_and_changed(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    job = Created(jobs, FIELDS)
    outputs = job.refresh()
    assert not jobs.diff(outputs, job.news(FIELDS), job.id).changes, "refresh must leave no diff"
    assert outputs["tags"] == {"team": "vision"}, "the owner mark must not show as a user tag"
    assert outputs["volumes"][0]["nfs"]["read_only"] is True

    # Tags change in place, and the owner mark stays beside them.
    news = job.news({**FIELDS, "tags": {"cost": "ml"}})
    diff = jobs.diff(job.state, news, job.id)
    assert diff.changes and not diff.replaces, diff.replaces
    job.update(news)
    tags = {t["key"]: t["value"] for t in _job(emulator, job.id)["tags"]}
    assert tags["cost"] == "ml" and "team" not in tags and contract.OWNER_STACK in tags, tags
    assert [j["metadata"]["id"] for j in emulator.admin.state()["modelarts"]["jobs"]] == [job.id], "updated in place"
    # A changed mount replaces the job.
    diff = jobs.diff(job.state, job.news({**FIELDS, "tags": {"cost": "ml"}, "priority": 3}), job.id)
    assert "priority" in diff.replaces, diff.replaces
    job.delete()


def test_wire_shapes_in_the_emulator(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    job = _job(emulator, Created(jobs, FIELDS).id)
    assert job["metadata"]["annotations"][contract.RETRY_ANNOTATION] == "3"
    assert contract.OWNER_STACK not in job["metadata"]["annotations"], "no annotation key Huawei does not document"
    assert contract.OWNER_STACK in {t["key"] for t in job["tags"]}, "the owner mark is in the job's tags"
    assert job["spec"]["schedule_policy"] == {"priority": 2}
    assert job["spec"]["volumes"][1] == {"obs": {"obs_url": "/b/ckpt/", "local_path": "/mnt/ckpt",
                                                 "read_only": False}}
    assert job["algorithm"]["inputs"][0]["remote"] == {"dataset": {"id": "ds-1", "version_id": "v-1"}}


def test_volume_duplicates_refused_at_preview(jobs: AnyHandler) -> None:
    bad = {**BASE, "volumes": [{"nfs": {"nfs_server_path": "h:/a", "local_path": "/mnt/x"}},
                               {"obs": {"obs_url": "obs://b/y/", "local_path": "/mnt/x/"}}]}
    refused = inprocess.failures(jobs, {**inprocess.OWNER, "name": "job", **bad})
    assert any(f == "volumes[1].obs.local_path" and "already mounted" in r for f, r in refused), refused


def test_replace_guard(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    emulator.admin.set_settings(modelarts_run_seconds=600)
    guarded = {**BASE, "replace_running": "refuse", "wait_for": "running"}
    job = Created(jobs, guarded)
    changed = {**inprocess.OWNER, "name": "job", **guarded, "node_count": 2}
    [(field, reason)] = inprocess.failures_against(jobs, job.inputs, changed)
    assert field == "replace_running"
    assert "refuses to replace job" in reason and "Running" in reason and "node_count" in reason
    allowed = job.news({**guarded, "node_count": 2, "replace_running": "allow"})
    assert "node_count" in jobs.diff(job.state, allowed, job.id).replaces
    job.delete()


ALGORITHM = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
             "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
             "inputs": [{"name": "data_url"}], "tags": {"team": "nlp"},
             "advanced_config": {"auto_search": {"search_params": [
                 {"name": "lr", "param_type": "continuous", "lower_bound": "0.001", "upper_bound": "0.1"}]}}}


def _algorithm(emulator: EmulatorHandle) -> dict[str, Any]:
    [algorithm] = emulator.admin.state()["modelarts"]["algorithms"]
    return dict(algorithm)


def test_algorithm_tags_and_advanced_config(emulator: EmulatorHandle) -> None:
    algorithms = inprocess.handler("modelarts:Algorithm", emulator)
    algorithm = Created(algorithms, ALGORITHM, name="algo")
    stored = _algorithm(emulator)
    tags = {t["key"]: t["value"] for t in stored["metadata"]["tags"]}
    assert tags["team"] == "nlp" and contract.OWNER_STACK in tags, "user tags live beside the owner mark"
    assert stored["advanced_config"] == ALGORITHM["advanced_config"]
    outputs = algorithm.refresh()
    assert not algorithms.diff(outputs, algorithm.news(ALGORITHM), algorithm.id).changes, \
        "refresh must leave no diff"

    # Both change in place; removing advanced_config clears it on the platform.
    changed = {k: v for k, v in ALGORITHM.items() if k != "advanced_config"} | {"tags": {"team": "vision"}}
    news = algorithm.news(changed)
    diff = algorithms.diff(algorithm.state, news, algorithm.id)
    assert diff.changes and not diff.replaces, diff.replaces
    algorithm.update(news)
    stored = _algorithm(emulator)
    tags = {t["key"]: t["value"] for t in stored["metadata"]["tags"]}
    assert stored["metadata"]["id"] == algorithm.id
    assert tags["team"] == "vision" and contract.OWNER_STACK in tags
    assert not stored["advanced_config"]
    algorithm.delete()


def test_each_replacing_field_previews_a_replace(jobs: AnyHandler) -> None:
    job = Created(jobs, FIELDS)
    changes = {
        "volumes": [FIELDS["volumes"][0]],
        "retry_count": 5,
        "inputs": [{"name": "data_url", "dataset": {"id": "ds-2", "version_id": "v-1"}}],
        "priority": 1,
    }
    for field, value in changes.items():
        diff = jobs.diff(job.state, job.news({**FIELDS, field: value}), job.id)
        assert field in diff.replaces, f"a changed {field} replaces the job"
    assert not jobs.diff(job.state, job.news(FIELDS), job.id).changes
    job.delete()
