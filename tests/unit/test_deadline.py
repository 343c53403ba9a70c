"""The parts of an operation's deadline: a grace within it never outlasts it, a clean-up after it has a
budget of its own, and what either says of itself is what it really has."""

from __future__ import annotations

import time

from pulumi_mltrain import deadline
from pulumi_mltrain.deadline import Deadline


def test_a_part_ends_with_its_own_budget_or_with_the_operation() -> None:
    operation = Deadline.after(10, "creating TrainingJob 'x'", fix="check the platform", cleanup=60)
    grace = operation.within(3, "looking for task 'x'")
    assert grace.at <= time.monotonic() + 3 and 2.9 < grace.seconds <= 3
    assert (grace.what, grace.fix, grace.cleanup) == ("looking for task 'x'", "check the platform", 60)
    longer = operation.within(30)
    assert longer.at == operation.at and longer.seconds <= 10, "a part never outlasts its operation"
    assert longer.what == operation.what


def test_a_part_of_a_spent_operation_has_nothing() -> None:
    spent = Deadline(time.monotonic() - 1, "spent", 5)
    part = spent.within(3)
    assert part.seconds == 0 and part.left() == 0


def test_a_clean_up_starts_now_with_the_operations_clean_up_budget() -> None:
    spent = Deadline(time.monotonic() - 1, "creating TrainingJob 'x'", 5, cleanup=120)
    roll_back = spent.clean_up("deleting failed task t1")
    assert roll_back.seconds == 120 and roll_back.left() > 119, "its own budget, although the create's is spent"
    look = spent.clean_up("reading t1", 2)
    assert look.seconds == 2, "a clean-up of its own smaller budget"
    assert Deadline.after(30, "op").clean_up("undo").seconds == 30, "without one, as much as the operation had"


def test_the_operation_is_the_current_deadline() -> None:
    assert deadline.current() is None
    with deadline.scope(Deadline.after(5, "op")) as found:
        assert deadline.operation() is found
