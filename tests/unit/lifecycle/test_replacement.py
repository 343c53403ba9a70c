"""Replacements (handler.py with lifecycle/takeover.py): the job being replaced is never recorded as the
new one. Every diff asks to delete first; when the engine creates the replacement first anyway (a
replacement_trigger or `pulumi up --replace` of a plugin resource without deleteBeforeReplace), the
create removes the old job, which carries the same mark, makes its own, and the engine's delete of the
old one finds it gone. A preview refuses to replace a live job under replace_running="refuse"."""

from __future__ import annotations

import pytest
from fake import RUNNING, Cloud, FakeHandler, checked, declared, stored

from pulumi_mltrain.ownership import EXISTS_KEY


@pytest.mark.parametrize("unique_names", [False, True], ids=["names-shared", "names-unique"])
def test_a_replacement_created_first_never_records_the_job_it_replaces(cloud: Cloud, jobs: FakeHandler,
                                                                        unique_names: bool) -> None:
    cloud.unique_names = unique_names
    props = checked(jobs, declared())
    old = jobs.create(props)
    old_state = stored(props, old.outputs)
    checked(jobs, declared(), olds=props)  # the engine's check against the state
    replacement = checked(jobs, declared())  # and its second check, without the stored inputs
    assert replacement[EXISTS_KEY] is True, "the create knows it replaces a resource of the state"

    cloud.calls.clear()
    made = jobs.create(replacement)
    assert made.id != old.id and made.problem is None
    assert cloud.calls.index(("delete", old.id)) < cloud.calls.index(("submit", "train")) and cloud.ids() == [made.id]
    jobs.delete(old.id, old_state)  # the engine deletes the old job last: gone already
    assert cloud.ids() == [made.id]
    assert jobs.read(made.id, stored(replacement, made.outputs)) is not None, "the state records a live job"


def test_a_targeted_replace_creates_a_new_job_from_the_check_against_the_state(cloud: Cloud,
                                                                               jobs: FakeHandler) -> None:
    props = checked(jobs, declared())
    old = jobs.create(props)
    targeted = checked(jobs, declared(), olds=props)  # `pulumi up --replace`: no second check
    made = jobs.create(targeted)
    assert made.id != old.id and cloud.ids() == [made.id] and len(cloud.made("submit")) == 2


def test_every_replace_deletes_first(cloud: Cloud, jobs: FakeHandler) -> None:
    props = checked(jobs, declared())
    old = jobs.create(props)
    changed = checked(jobs, declared(image="img:2"), olds=props)
    diff = jobs.diff(stored(props, old.outputs), changed, old.id)
    assert diff.replaces == ("image",) and diff.delete_before_replace
    diff = jobs.diff(stored(props, old.outputs), checked(jobs, declared(), olds=props), old.id)
    assert not diff.changes and diff.delete_before_replace, "and so does one the engine forces"


def test_replace_running_refuse_fails_the_preview_of_a_replace_of_a_live_job(cloud: Cloud,
                                                                            jobs: FakeHandler) -> None:
    props = checked(jobs, declared(replace_running="refuse"))
    old = jobs.create(props)
    assert cloud.state(old.id) == RUNNING
    refused = jobs.check(stored(props, old.outputs), declared(replace_running="refuse", image="img:2")).failures
    assert [(f.property, f.reason) for f in refused] == [(
        "replace_running", f"TrainingJob: replace_running refuses to replace job 'train': it is RUNNING ({old.id}), "
        "and changing image replaces it (delete, then create). Revert those fields, stop the job first, or set "
        "replace_running=\"allow\"")]
    assert jobs.check(stored(props, old.outputs), declared(replace_running="allow", image="img:2")).failures == ()
