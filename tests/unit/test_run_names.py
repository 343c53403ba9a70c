"""The names of a resource's runs on a platform whose names are unique among all its jobs (ModelArts):
each new run gets its own (`Mark.run_name`), chosen from the previous run's name so that a preview and
the update choose the same one, and all of them stay recognisable as this resource's (`owns`, for a job
whose mark could not be read) and findable by one prefix (`Mark.name_stem`)."""

from __future__ import annotations

from pulumi_mltrain.ownership import RUN_TOKEN, Mark, owns

URN = "urn:pulumi:dev::infra::mltrain:modelarts:TrainingJob::" + "a-very-long-resource-name-" * 3
MINE = Mark("st-1", URN)
OTHER = Mark("st-2", URN)


def test_each_run_has_a_name_of_its_own_chosen_from_the_previous_one() -> None:
    first = MINE.default_name()
    second = MINE.run_name(first)
    third = MINE.run_name(second)
    assert len({first, second, third}) == 3
    assert second == MINE.run_name(first), "the same previous run gives the same name (preview and up agree)"
    assert all(len(n) <= 64 for n in (first, second, third))
    assert MINE.is_run_name(second) and MINE.is_run_name(third) and not MINE.is_run_name(first)
    assert not OTHER.is_run_name(second), "another stack's identity never owns the name"
    assert len(second) - len(MINE.run_stem()) == RUN_TOKEN + 1


def test_unmarked_jobs_under_a_run_name_are_ours_and_share_a_stem() -> None:
    second = MINE.run_name(MINE.default_name())
    assert owns(MINE, None, second) and not owns(OTHER, None, second)
    assert not owns(MINE, None, "chosen-by-the-user")
    stem = MINE.name_stem(second)
    assert stem and MINE.default_name().startswith(stem) and second.startswith(stem)
    assert MINE.name_stem(MINE.default_name()) == stem
    assert MINE.name_stem("chosen") == "chosen", "a name the user chose is every run's"
