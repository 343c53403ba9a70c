"""Rules the handler owns for both forms, which the plugin adapter once held (the adapters now only
translate): the outputs a state keeps (no nulls of output-only fields or of `adopt_id`), the diff of an
imported state (`takeover.imported_unchanged`), the preview's mark of a create that starts a run, and a
partially created resource finished by the next update. The plugin's gRPC side of them is
tests/inprocess/test_plugin_names.py and the engine tests of tests/engine/plugin/."""

from __future__ import annotations

from collections import deque
from typing import ClassVar

from fake import QUEUED, RUNNING, Cloud, FakeHandler, checked, declared, jobs_on, stored

from pulumi_mltrain import cancel
from pulumi_mltrain.handler import Handler
from pulumi_mltrain.ownership import IMPORTED_KEY, PARTIAL_KEY, UNFINISHED_KEY
from pulumi_mltrain.runs import RUN_STARTS


def test_outputs_without_a_value_stay_out_of_the_state(cloud: Cloud, jobs: FakeHandler) -> None:
    """Every SDK reads a missing output as a null one: a null of an output-only field costs state only."""
    props = checked(jobs, declared())
    created = jobs.create(props)
    assert created.outputs["status"] == RUNNING and "reason" not in created.outputs, created.outputs
    assert "adopt_id" not in created.outputs and "accuracy" not in created.outputs, created.outputs
    found = jobs.read(created.id, stored(props, created.outputs))
    assert found is not None and "reason" not in found.outputs and found.outputs["job_id"] == created.id
    updated = jobs.update(created.id, stored(props, created.outputs), checked(jobs, declared(description="d"), props))
    assert "reason" not in updated.outputs and updated.outputs["status"] == RUNNING, updated.outputs


def test_the_diff_of_an_imported_state_leaves_out_what_the_declaration_leaves_to_the_platform(
        jobs: FakeHandler) -> None:
    """An import reads the platform's complete copy back as the inputs: a value the program leaves unset
    is no change, a declared value that differs still is, and the import's own mark never is."""
    held = {**checked(jobs, declared(description="written on the platform")), "job_id": "j-1"}
    news = checked(jobs, declared(), held)
    assert jobs.diff(held, news, "j-1").changed == ("description",), "without the mark, an unset value changes"
    imported = {**held, IMPORTED_KEY: True}
    assert jobs.diff(imported, news, "j-1").changed == ()
    other = jobs.diff(imported, checked(jobs, declared(image="img:2"), imported), "j-1")
    assert other.changed == ("image",) and other.replaces == ("image",), other


def test_the_preview_of_a_create_marks_the_start_of_a_run_only_for_a_run(cloud: Cloud, jobs: FakeHandler) -> None:
    assert jobs.preview_create() == {RUN_STARTS: True}

    class Objects(jobs_on(cloud)):  # type: ignore[misc]  # the fake kind, as a resource that is no run
        runs: ClassVar[bool] = False

    assert Handler(Objects).preview_create() == {}


def test_a_partial_create_is_finished_by_the_next_update(cloud: Cloud, jobs: FakeHandler) -> None:
    """A create the engine recorded as partially created (`Handler.partial`, kept with the engine's create
    timeout): a diff asks for an update, which waits for the same job (no second create), and keeps the
    partial mark while it is cancelled again."""
    cloud.run = (QUEUED,)
    cloud.cancel_at = ("get", 1)
    props = checked(jobs, declared())
    created = jobs.create(props, timeout=600.0)
    assert created.unfinished, created.outputs
    cancel.reset()
    state = stored(props, jobs.partial(created.outputs, 600.0))
    assert state[PARTIAL_KEY] == 600.0
    assert PARTIAL_KEY in jobs.diff(state, props, created.id).changed

    cloud.cancel_at = ("get", cloud.counts["get"] + 1)  # cancelled once more: still partial and unfinished
    again = jobs.update(created.id, state, props, timeout=5.0)
    assert again.outputs[PARTIAL_KEY] == 600.0 and again.outputs[UNFINISHED_KEY], again.outputs
    cancel.reset()
    cloud.jobs[created.id].ahead = deque([RUNNING])
    done = jobs.update(created.id, stored(props, again.outputs), props, timeout=5.0)
    assert done.problem is None and done.outputs["status"] == RUNNING and PARTIAL_KEY not in done.outputs
    assert cloud.made("submit") == ["train"] and cloud.ids() == [created.id], "no second create"
