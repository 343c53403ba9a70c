"""`mltrain:defaultTags` on ModelArts jobs and algorithms, in process against the emulator: the defaults
reach the platform's tags, a resource's own tags win, a change of the defaults is an update in place
that removes only the keys this resource set, tags added on the platform are not drift, and the
limit of 20 after the merge fails the check."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.accounts import SETTINGS_KEY
from pulumi_mltrain.errors import ConfigError
from support import inprocess
from support.inprocess import AnyHandler

OWNER = {"__mltrain_stack": "st-tags", "__mltrain_urn": "urn:pulumi:test::tags::pulumi-python:dynamic/x:Y::r"}
MARK = {"mltrain-owner-stack": "st-tags", "mltrain-owner-urn": OWNER["__mltrain_urn"]}
DEFAULTS = {"team": "ml", "cost-center": "cc-1"}


pytestmark = pytest.mark.usefixtures("quick")
JOB, ALGORITHM = "modelarts:TrainingJob", "modelarts:Algorithm"


def with_defaults(kind: str, emulator: EmulatorHandle, tags: dict[str, str] | None) -> AnyHandler:
    """The handler of `kind` in a fresh provider process whose `mltrain:defaultTags` are `tags`."""
    config = {"mltrain:defaultTags": json.dumps(tags)} if tags is not None else {}
    return inprocess.handler(kind, emulator, **config)


def algorithm_props(**changes: Any) -> dict[str, Any]:
    return {**OWNER, "name": "algo-tags", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
            "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], **changes}


@pytest.fixture
def job_props() -> Callable[..., dict[str, Any]]:
    def make(**changes: Any) -> dict[str, Any]:
        return {**OWNER, "name": "job-tags", "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
                "flavor_id": d.FLAVOR_CPU_8U, **changes}

    return make


def job_tags(emulator: EmulatorHandle, job_id: str) -> dict[str, str]:
    """The job's tags as the platform holds them (the emulator's own state, owner mark included)."""
    job = next(j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == job_id)
    return {t["key"]: t["value"] for t in job["tags"]}


def algorithm_tags(handler: AnyHandler, algorithm_id: str) -> dict[str, str]:
    metadata = handler.platform({}).client.algorithm(algorithm_id)["metadata"]
    return {t["key"]: t["value"] for t in metadata.get("tags") or []}


def test_defaults_reach_the_platform_and_own_tags_win(
        emulator: EmulatorHandle, job_props: Callable[..., dict[str, Any]]) -> None:
    jobs = with_defaults(JOB, emulator, DEFAULTS)
    algorithms = with_defaults(ALGORITHM, emulator, DEFAULTS)
    own = {"team": "nlp", "run": "r1"}

    job_inputs = inprocess.checked(jobs, job_props(tags=own))
    assert job_inputs["tags"] == {"team": "nlp", "cost-center": "cc-1", "run": "r1"}, \
        "the checked inputs (what a preview and policies see) hold the merged tags, the own value winning"
    job = jobs.create(job_inputs)
    assert job_tags(emulator, job.id) == {**MARK, "team": "nlp", "cost-center": "cc-1", "run": "r1"}
    assert job.outputs["tags"] == {"team": "nlp", "cost-center": "cc-1", "run": "r1"}
    again = inprocess.checked(jobs, job_props(tags=own), job_inputs)
    assert not jobs.diff(job.outputs, again, job.id).changes, "the next preview of the same program is quiet"

    algorithm_inputs = inprocess.checked(algorithms, algorithm_props())
    algorithm = algorithms.create(algorithm_inputs)
    assert algorithm_tags(algorithms, algorithm.id) == {**MARK, **DEFAULTS}
    assert algorithm.outputs["tags"] == DEFAULTS
    again = inprocess.checked(algorithms, algorithm_props(), algorithm_inputs)
    assert not algorithms.diff(algorithm.outputs, again, algorithm.id).changes, "quiet for the algorithm too"


def test_a_change_of_defaults_updates_in_place_and_removes_only_our_keys(
        emulator: EmulatorHandle, job_props: Callable[..., dict[str, Any]]) -> None:
    jobs = with_defaults(JOB, emulator, DEFAULTS)
    algorithms = with_defaults(ALGORITHM, emulator, DEFAULTS)
    job = jobs.create(inprocess.checked(jobs, job_props(tags={"run": "r1"})))
    algorithm = algorithms.create(inprocess.checked(algorithms, algorithm_props()))
    job_id, algorithm_id = job.id, algorithm.id
    # Someone adds a tag in the console, under a key neither the defaults nor the resource set.
    jobs.platform({}).client.tag_job(job_id, [{"key": "owner-team", "value": "console"}])
    put = algorithms.platform({}).client.algorithm(algorithm_id)
    body = {"metadata": {**put["metadata"], "tags": [*put["metadata"]["tags"], {"key": "owner-team",
                                                                               "value": "console"}]},
            "job_config": put["job_config"]}
    algorithms.platform({}).client.update_algorithm(algorithm_id, body)

    changed = {"team": "platform", "env": "prod"}  # cost-center dropped, team changed, env added
    jobs = with_defaults(JOB, emulator, changed)
    algorithms = with_defaults(ALGORITHM, emulator, changed)
    for handler, created, props in ((jobs, job, job_props(tags={"run": "r1"})),
                                    (algorithms, algorithm, algorithm_props())):
        news = inprocess.checked(handler, props, created.outputs)
        diff = handler.diff(created.outputs, news, created.id)
        assert diff.changes and not diff.replaces, "a change of the default tags is made in place"
        updated = handler.update(created.id, created.outputs, news)
        assert "cost-center" not in updated.outputs["tags"]

    assert job_tags(emulator, job_id) == {**MARK, "team": "platform", "env": "prod", "run": "r1",
                                          "owner-team": "console"}
    assert algorithm_tags(algorithms, algorithm_id) == {**MARK, "team": "platform", "env": "prod",
                                                        "owner-team": "console"}


def test_tags_added_on_the_platform_are_not_drift(
        emulator: EmulatorHandle, job_props: Callable[..., dict[str, Any]]) -> None:
    jobs = with_defaults(JOB, emulator, DEFAULTS)
    inputs = inprocess.checked(jobs, job_props())
    job = jobs.create(inputs)
    jobs.platform({}).client.tag_job(job.id, [{"key": "added-in-console", "value": "x"}])

    read = inprocess.read(jobs, job.id, job.outputs)
    assert read.inputs is None and read.outputs["tags"] == DEFAULTS, "no drift: the stored inputs stand"
    news = inprocess.checked(jobs, job_props(), read.outputs)
    assert not jobs.diff(read.outputs, news, job.id).changes, "a no-change preview after refresh is quiet"

    # A default removed on the platform is drift (this resource set it), and only that key is recorded.
    jobs.platform({}).client.untag_job(job.id, [{"key": "team"}])
    drifted = inprocess.read(jobs, job.id, job.outputs)
    assert drifted.inputs["tags"] == {"cost-center": "cc-1"}
    news = inprocess.checked(jobs, job_props(), drifted.outputs)
    assert jobs.diff(drifted.outputs, news, job.id).changes
    jobs.update(job.id, drifted.outputs, news)
    assert job_tags(emulator, job.id) == {**MARK, **DEFAULTS, "added-in-console": "x"}


def test_more_than_twenty_tags_after_the_merge_fail_the_check(
        emulator: EmulatorHandle, job_props: Callable[..., dict[str, Any]]) -> None:
    defaults = {f"d{i}": "v" for i in range(15)}
    jobs = with_defaults(JOB, emulator, defaults)
    algorithms = with_defaults(ALGORITHM, emulator, defaults)
    own = {f"own{i}": "v" for i in range(5)} | {"d0": "mine"}  # 15 + 5 new keys + 1 shared = 20: fine
    assert not inprocess.failures(jobs, job_props(tags=own))
    own["one-more"] = "v"
    for handler, props in ((jobs, job_props(tags=own)), (algorithms, algorithm_props(tags=own))):
        failures = inprocess.failures(handler, props)
        assert [f for f, _ in failures] == ["tags"], failures
        assert "`mltrain:defaultTags`" in failures[0][1] and "has 21 tags" in failures[0][1]
        assert "at most 20" in failures[0][1]
    assert not emulator.admin.state()["modelarts"]["jobs"], "nothing was created"


def test_the_explicit_provider_default_tags_and_invalid_defaults(
        emulator: EmulatorHandle, job_props: Callable[..., dict[str, Any]]) -> None:
    jobs = with_defaults(JOB, emulator, None)
    explicit = {**inprocess.config("modelarts", emulator), **inprocess.BASE_CONFIG}
    settings = {name: explicit[f"mltrain:{key}"] for name, key in
                (("iam_endpoint", "huaweiIamEndpoint"), ("modelarts_endpoint", "modelartsEndpoint"),
                 ("project_name", "huaweiProjectName"), ("project_id", "huaweiProjectId"),
                 ("user", "huaweiUser"), ("domain", "huaweiDomain"), ("password", "huaweiPassword"))}
    props = job_props(tags={"run": "r1"}, **{SETTINGS_KEY: {**settings, "default_tags": {"team": "ml"}}})
    assert inprocess.checked(jobs, props)["tags"] == {"team": "ml", "run": "r1"}
    many = {f"k{i}": "v" for i in range(20)}
    failures = inprocess.failures(jobs, job_props(**{SETTINGS_KEY: {**settings, "default_tags": many}},
                                                  tags={"run": "r1"}))
    assert failures and "the provider's `default_tags`" in failures[0][1]

    with pytest.raises(ConfigError, match=r"mltrain:defaultTags.*reserved for the provider's owner mark"):
        inprocess.settings("modelarts", emulator, **{"mltrain:defaultTags": '{"mltrain-owner-urn": "x"}'})
    with pytest.raises(ConfigError, match=r"mltrain:defaultTags.*JSON map"):
        inprocess.settings("modelarts", emulator, **{"mltrain:defaultTags": "team=ml"})


def test_the_setting_is_one_row_of_the_settings_table() -> None:
    """settings.CONFIG is the table (schema, SDKs and the plugin's provider come from it): the explicit
    Provider's settings and arguments, and the docs' table, agree with it, defaultTags among them."""
    import inspect
    from pathlib import Path

    from pulumi_mltrain import Provider, accounts, config, settings

    keys = [(s.name, s.key, s.env, s.secret) for s in settings.CONFIG]
    assert {name: key for name, key, _, _ in keys} == accounts.SETTINGS
    arguments = set(inspect.signature(Provider.__init__).parameters) - {"self", "resource_name"}
    assert arguments == set(accounts.SETTINGS)
    assert config.ENV_VARS["default_tags"] == "MLTRAIN_DEFAULT_TAGS"
    table = (Path(__file__).parents[2] / "docs" / "installation-configuration.md").read_text()
    for name, key, env, _ in keys:
        assert f"`mltrain:{key}`" in table and f"`{env}`" in table and f"`{name}`" in table, key
