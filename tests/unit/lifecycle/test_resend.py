"""Resend (lifecycle/resend.py, through create.py and the handler): a create whose answer is lost is
looked for by name before it is ever sent again, so one resource never makes two jobs; a refused
create is not sent again; a late first request's duplicate is removed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest
from fake import MINE, Cloud, FakeHandler, checked, configured, declared, handler_on

from pulumi_mltrain import waiter
from pulumi_mltrain.deadline import Deadline
from pulumi_mltrain.errors import MltrainError
from pulumi_mltrain.lifecycle import resend

T = TypeVar("T")


def test_an_unanswered_create_is_found_by_name_and_not_sent_again(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.answers.append("lost")
    created = jobs.create(checked(jobs, declared()))
    assert created.problem is None and cloud.ids() == [created.id], "one job, the one recorded"
    assert cloud.made("submit") == ["train"], "never sent again"
    assert ("list", "train") in cloud.calls[cloud.calls.index(("submit", "train")):], "looked for by name"
    assert created.outputs["status"] == "RUNNING"


def test_a_job_the_lost_create_made_is_ours_though_not_yet_marked(cloud: Cloud, jobs: FakeHandler) -> None:
    """A platform that marks a job by a call of its own (ModelArts' tags): the job the lost answer made
    has no mark yet, under a name the user chose. It appeared after this create's request, so it is
    this create's: taken and marked, not refused."""
    cloud.mark_in_create = False
    cloud.answers.append("lost")
    created = jobs.create(checked(jobs, declared(name="chosen")))
    assert cloud.ids() == [created.id] and cloud.made("submit") == ["chosen"]
    assert cloud.jobs[created.id].mark == MINE, "marked once found"


def test_a_create_that_never_appears_is_sent_again_after_the_look(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.answers.append("unsent")
    created = jobs.create(checked(jobs, declared()))
    assert cloud.ids() == [created.id] and len(cloud.made("submit")) == 2
    first, second = (i for i, call in enumerate(cloud.calls) if call[0] == "submit")
    assert ("list", "train") in cloud.calls[first:second], "looked for before it was sent again"


def test_after_three_unanswered_creates_it_stops_and_says_what_the_next_up_does(cloud: Cloud,
                                                                                 jobs: FakeHandler) -> None:
    cloud.answers.extend(["unsent", "unsent", "unsent"])
    with pytest.raises(MltrainError) as failed:
        jobs.create(checked(jobs, declared()))
    text = str(failed.value)
    assert text.startswith("TrainingJob 'train': POST /jobs: the connection dropped"), text
    assert "No job named 'train' appeared within 0s. Run `pulumi up` again" in text, text
    assert len(cloud.made("submit")) == resend.CREATE_ATTEMPTS == 3 and cloud.ids() == []


def test_a_refused_create_is_not_sent_again(cloud: Cloud, jobs: FakeHandler) -> None:
    cloud.answers.append("refused")
    with pytest.raises(MltrainError, match=r"TrainingJob 'train': Fake Cloud rejected the request \(400 Bad"):
        jobs.create(checked(jobs, declared()))
    assert cloud.made("submit") == ["train"] and cloud.ids() == []


def test_a_duplicate_from_the_late_first_request_is_removed(cloud: Cloud, jobs: FakeHandler) -> None:
    """The first request's job shows up only after the create was sent again: two jobs of this
    resource's mark exist for a moment, and the one not recorded is removed."""
    cloud.answers.append("late")
    created = jobs.create(checked(jobs, declared()))
    assert len(cloud.made("submit")) == 2
    assert cloud.ids() == [created.id], "the late duplicate is deleted; the recorded one stays"
    [duplicate] = set(cloud.made("delete"))
    assert duplicate != created.id and duplicate not in cloud.jobs


def test_a_name_refused_as_taken_after_a_lost_answer_is_looked_up(cloud: Cloud, jobs: FakeHandler) -> None:
    """Unique names (ModelArts): the first look missed the job (the listing lagged), the resend is
    refused because the name is taken, and the job is then found: recorded, not made twice."""
    cloud.unique_names = True
    cloud.answers.append("lagging")
    created = jobs.create(checked(jobs, declared()))
    assert cloud.ids() == [created.id] and len(cloud.made("submit")) == 2
    assert cloud.made("delete") == [], "nothing to remove: one job all along"


def test_the_look_lasts_the_ambiguity_grace(cloud: Cloud, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within `ambiguityGrace` the look goes on until the job appears, and only past it is the create sent
    again (`look_for` on a clock of its own: no time passes for real; `now` is the time since the grace
    began, which its deadline's `at` counts on the monotonic clock)."""
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    def look_for(find: Callable[[], T | None], *, until: Deadline) -> T | None:
        began = until.at - until.seconds
        return waiter.look_for(find, until=until, clock=lambda: began + now[0], sleep=sleep)

    monkeypatch.setattr(resend, "look_for", look_for)
    jobs = handler_on(cloud, configured(ambiguityGrace="30"))
    cloud.answers.append("lagging")
    cloud.lag_looks = 4  # the job the lost answer made shows at the fifth look
    created = jobs.create(checked(jobs, declared()))
    assert len(cloud.made("submit")) == 1 and cloud.ids() == [created.id], "found: no second create"
    assert cloud.made("list") == ["train"] * 6, "clear_own's look, then five within the grace"
    assert 0 < now[0] < 30.0, now

    cloud.answers.append("unsent")
    now[0] = 0.0
    again = jobs.create(checked(jobs, declared(name="other", timeouts={"create": 120})))  # past the grace
    assert len(cloud.made("submit")) == 3 and cloud.jobs[again.id].name == "other"
    assert now[0] == pytest.approx(30.0), "looked for the whole grace before sending again"
