"""Alaya NeW tasks report a finished run like ModelArts jobs do: start, end and a duration derived from them
(Alaya NeW gives no duration), in process against the emulator."""

from __future__ import annotations

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain.alaya.training_job import TrainingJobProvider
from pulumi_mltrain.config import Settings
from support.runs import assert_end_is_start_plus_duration
from support.stacks import alaya_job_args

OWNER = {"__mltrain_stack": "st-unit", "__mltrain_urn": "urn:pulumi:test::unit::pulumi-python:dynamic/x:Y::job"}


def test_duration_is_end_minus_start_once_the_task_has_ended(emulator: EmulatorHandle) -> None:
    emulator.admin.set_settings(subscription_delay=0.1, task_state_delay=1.0, fail_task_names="^short")
    provider = TrainingJobProvider()
    provider.handler.configure(Settings.load({"mltrain:alayaEndpoint": emulator.url,
                                              "mltrain:alayaApiKey": emulator.alaya_api_key}, env={}))
    checked = provider.check({}, {**OWNER, **alaya_job_args(name="short-run", wait_for="running")})
    assert checked.failures == []
    created = provider.create(dict(checked.inputs))
    assert created.outs["start_time"] and created.outs["end_time"] is None
    assert created.outs["duration_ms"] is None, "no duration before the task has ended"
    emulator.admin.advance(5)  # the emulator's clock: the task fails (ends) a second after it started
    outs = provider.read(str(created.id), created.outs).outs
    assert outs["status"] == "FAILED" and outs["end_time"]
    assert outs["duration_ms"] > 0
    assert_end_is_start_plus_duration(outs)
