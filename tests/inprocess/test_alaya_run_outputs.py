"""Alaya NeW tasks report a finished run like ModelArts jobs do: start, end and a duration derived from them
(Alaya NeW gives no duration), in process against the emulator."""

from __future__ import annotations

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain.config import Settings
from support import inprocess
from support.runs import assert_end_is_start_plus_duration
from support.stacks import alaya_job_args

OWNER = {"__mltrain_stack": "st-unit", "__mltrain_urn": "urn:pulumi:test::unit::pulumi-python:dynamic/x:Y::job"}


def test_duration_is_end_minus_start_once_the_task_has_ended(emulator: EmulatorHandle) -> None:
    emulator.admin.set_settings(subscription_delay=0.1, task_state_delay=1.0, fail_task_names="^short")
    jobs = inprocess.serving("alaya:TrainingJob", Settings.load({"mltrain:alayaEndpoint": emulator.url,
                                                                 "mltrain:alayaApiKey": emulator.alaya_api_key},
                                                                env={}))
    inputs = inprocess.checked(jobs, {**OWNER, **alaya_job_args(name="short-run", wait_for="running")})
    created = jobs.create(inputs)
    # An output that has no value yet is absent from the state (`Handler._present`), which SDKs read as null.
    assert created.outputs["start_time"] and "end_time" not in created.outputs
    assert "duration_ms" not in created.outputs, "no duration before the task has ended"
    emulator.admin.advance(5)  # the emulator's clock: the task fails (ends) a second after it started
    outs = inprocess.read(jobs, created.id, created.outputs).outputs
    assert outs["status"] == "FAILED" and outs["end_time"]
    assert outs["duration_ms"] > 0
    assert_end_is_start_plus_duration(outs)
