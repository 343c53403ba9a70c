"""The `pulumi.dynamic` adapter (`dynamic_provider.DynamicProvider`) around the registry's real handler,
against the emulator: what each of its answers carries to the SDK's host. The provider is the class the
states of `alaya.TrainingJob` name, configured as a provider process configures it (`configure` with
the stack's config)."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    UpdateResult,
)
from pulumi.dynamic.config import Config

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain.alaya._resources import _TrainingJobProvider
from pulumi_mltrain.dynamic_provider import DynamicProvider
from support import inprocess
from support.stacks import alaya_job_args

pytestmark = pytest.mark.usefixtures("quick")

OTHER_IMAGE = "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu"


def configured(emulator: EmulatorHandle) -> DynamicProvider:
    """A new provider as the SDK's host unpickles it, configured with the test stacks' config."""
    inprocess.fresh_process()
    provider = _TrainingJobProvider()
    config = {**inprocess.config("alaya", emulator), **inprocess.BASE_CONFIG}
    provider.configure(ConfigureRequest(Config(config, "inprocess")))
    return provider


def declared(**args: Any) -> dict[str, Any]:
    """What the program side sends: the owner marks and the arguments."""
    return {**inprocess.OWNER, **alaya_job_args(name="adapter", wait_for="created", **args)}


def test_the_adapter_answers_in_the_sdks_result_types(emulator: EmulatorHandle) -> None:
    jobs = configured(emulator)
    assert jobs.kind == "alaya:TrainingJob" and jobs.handler.settings.alaya_endpoint == emulator.url

    # check: every failure as a CheckFailure of its property, with the reason naming the resource.
    refused = jobs.check({}, declared(worker_count=0, image=""))
    assert isinstance(refused, CheckResult)
    assert all(isinstance(f, CheckFailure) for f in refused.failures)
    assert sorted(f.property for f in refused.failures) == ["image", "worker_count"]
    assert all(f.reason.startswith(f"TrainingJob: {f.property} ") for f in refused.failures), refused.failures
    checked = jobs.check({}, declared())
    assert isinstance(checked, CheckResult) and checked.failures == []
    assert checked.inputs["name"] == "adapter" and checked.inputs["worker_count"] == 2

    # create: the ID and the outputs the engine records.
    created = jobs.create(checked.inputs)
    assert isinstance(created, CreateResult)
    assert created.id in inprocess.platform_ids(emulator, "alaya")
    assert created.outs is not None and created.outs["training_task_id"] == created.id
    state = {**checked.inputs, **created.outs}

    # diff: a field that replaces the task is listed, and the old task is always deleted first.
    news = jobs.check(checked.inputs, declared(image=OTHER_IMAGE)).inputs
    replace = jobs.diff(created.id, state, news)
    assert isinstance(replace, DiffResult)
    assert (replace.changes, replace.replaces, replace.delete_before_replace) == (True, ["image"], True)

    # An in-place change: no replace, and the update returns the outputs (the SDK's default wipes them).
    news = jobs.check(checked.inputs, declared(description="tuned")).inputs
    in_place = jobs.diff(created.id, state, news)
    assert (in_place.changes, in_place.replaces) == (True, [])
    updated = jobs.update(created.id, state, news)
    assert isinstance(updated, UpdateResult) and updated.outs is not None
    assert updated.outs["training_task_id"] == created.id and updated.outs["description"] == "tuned"
    state = {**news, **updated.outs}

    # read: the ID, the outputs and the inputs a refresh stores.
    found = jobs.read(created.id, state)
    assert isinstance(found, ReadResult) and found.id == created.id
    assert found.outs is not None and found.outs["training_task_id"] == created.id
    assert found.inputs is not None and found.inputs["name"] == "adapter"

    # delete, then the read of a gone task: no ID and no outputs, which drops it from the state.
    assert jobs.delete(created.id, state) is None
    assert created.id not in inprocess.platform_ids(emulator, "alaya")
    gone = jobs.read(created.id, state)
    assert isinstance(gone, ReadResult) and (gone.id, gone.outs) == (None, {})
