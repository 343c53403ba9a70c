"""The creation-order and name indexes against the brute-force answer (a stable sort of every object,
a scan of every name) for random sequences of adds and removes, with colliding names and equal or
out-of-order creation times."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from mltrain_emulator.indexes import CreationIndex

NAMES = st.text(alphabet="ab-", min_size=1, max_size=6)
PROBES = ("", "a", "b-", "ab", "aba", "a-b", "bab-", "abab", "-", "zz", "aaa")


@dataclass(frozen=True)
class Add:
    name: str
    step_ms: int  # from the newest time so far; negative = the wall clock stepped back


@dataclass(frozen=True)
class Remove:
    pick: int  # index into the live objects


OPS = st.lists(st.one_of(st.builds(Add, NAMES, st.sampled_from([0, 0, 1, 5, -3])),
                         st.builds(Remove, st.integers(0, 50))), max_size=40)


def brute_order(live: list[tuple[str, str, int]], desc: bool) -> list[str]:
    """The list endpoints' old answer: a stable sort of every object by create time."""
    return [ident for ident, _, _ in sorted(live, key=lambda row: row[2], reverse=desc)]


def check(index: CreationIndex, live: list[tuple[str, str, int]]) -> None:
    assert len(index) == len(live)
    for desc in (False, True):
        expected = brute_order(live, desc)
        assert index.page(0, len(live) + 1, desc=desc) == expected
        for start, stop in ((0, 1), (1, 3), (2, 7), (5, 6)):
            assert index.page(start, stop, desc=desc) == expected[start:stop]
        for text in PROBES:
            matching = [i for i, name, _ in live if text in name]
            assert sorted(index.containing(text)) == sorted(matching)
            assert index.ordered(index.containing(text), desc=desc) == [i for i in expected if i in matching]
    for name in {name for _, name, _ in live} | {"a", "zz"}:
        assert index.named(name) == [i for i, n, _ in live if n == name]
        assert index.has_name(name) == any(n == name for _, n, _ in live)
        assert (name in index.names()) == index.has_name(name)


@settings(max_examples=300, deadline=None)
@given(OPS)
def test_the_index_answers_as_a_full_sort_and_scan_would(ops: list[Add | Remove]) -> None:
    index = CreationIndex()
    live: list[tuple[str, str, int]] = []
    newest, serial = 1_000, 0
    for op in ops:
        if isinstance(op, Add):
            serial += 1
            ident, at = f"id-{serial}", newest + op.step_ms
            newest = max(newest, at)
            index.add(ident, op.name, at)
            live.append((ident, op.name, at))
        elif live:
            ident = live.pop(op.pick % len(live))[0]
            index.remove(ident)
        check(index, live)


def test_a_page_of_many_objects_reads_only_its_own_rows() -> None:
    """Creation times in order: the page comes off the insertion order, newest first with ties kept."""
    index = CreationIndex()
    for i in range(1000):
        index.add(f"id-{i}", f"job-{i:04d}", 5_000 + i // 2)  # pairs share a millisecond
    assert index.page(0, 4, desc=True) == ["id-998", "id-999", "id-996", "id-997"]
    assert index.page(0, 3, desc=False) == ["id-0", "id-1", "id-2"]
    assert index.containing("job-0042") == ["id-42"]
