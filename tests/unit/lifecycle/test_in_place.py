"""Updates in place of a run (lifecycle/in_place.py, run_control.py through the handler): `stopped=True`
stops the live job and keeps its ID and record; back to false only records (a run is never started
again); a field the platform only records costs no call; a create with `stopped=True` is refused at
preview and, before any call, at `up`."""

from __future__ import annotations

import pytest
from fake import RUNNING, STOPPED, Cloud, FakeHandler, checked, declared, stored

from pulumi_mltrain.errors import MltrainError

WRITES = ("submit", "stop", "delete", "tag")


def test_stopped_stops_the_live_job_in_place_and_false_only_records(cloud: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared())
    created = jobs.create(props)
    assert cloud.state(created.id) == RUNNING
    state = stored(props, created.outputs)

    stopping = checked(jobs, declared(stopped=True), olds=props)
    diff = jobs.diff(state, stopping, created.id)
    assert diff.changed == ("stopped",) and not diff.replaces
    updated = jobs.update(created.id, state, stopping)
    assert updated.outputs["status"] == STOPPED and updated.outputs["job_id"] == created.id, updated.outputs
    assert cloud.ids() == [created.id] and cloud.state(created.id) == STOPPED, "stopped, not deleted"

    state = stored(stopping, updated.outputs)
    cloud.calls.clear()
    again = jobs.update(created.id, state, checked(jobs, declared(stopped=False), olds=stopping))
    assert again.outputs["status"] == STOPPED, "not started again"
    assert not [call for call, _ in cloud.calls if call in WRITES], cloud.calls


def test_a_field_the_platform_only_records_costs_no_call(cloud: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared())
    created = jobs.create(props)
    described = checked(jobs, declared(description="second try"), olds=props)
    cloud.calls.clear()
    updated = jobs.update(created.id, stored(props, created.outputs), described)
    assert updated.outputs["description"] == "second try" and cloud.calls == []


def test_a_create_with_stopped_true_is_refused_before_any_call(cloud: Cloud, jobs: FakeHandler) -> None:
    refused = jobs.check({}, declared(stopped=True)).failures
    assert [f.property for f in refused] == ["stopped"], refused
    with pytest.raises(MltrainError, match=r"stopped=True stops a job that exists, and this create would start a run"):
        jobs.create({**checked(jobs, declared()), "stopped": True})  # inputs that bypassed the preview
    assert cloud.calls == []
