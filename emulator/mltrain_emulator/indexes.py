"""Objects of one kind in creation order, by exact name and by name substring, so that a page of a
list or a name look-up costs the size of its answer, not a scan and a sort of every stored object.

The order is the one the list endpoints define: ``create_time`` (ms), ties in insertion order, in
both directions (a stable sort keeps equal keys in their original order even with ``reverse``).
Creation times normally grow with insertion, so a page is read off the insertion order; if the wall
clock ever stepped back (an object older than the newest one was added), pages fall back to sorting.
Substrings of 3 characters or more are found through a trigram index and checked; shorter ones scan
the names (not the objects).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, KeysView

GRAM = 3


def _grams(text: str) -> set[str]:
    return {text[i:i + GRAM] for i in range(len(text) - GRAM + 1)}


class CreationIndex:
    def __init__(self) -> None:
        self._rows: dict[str, tuple[int, int, str]] = {}  # id -> (create_ms, seq, name), insertion order
        self._by_name: dict[str, dict[str, None]] = {}
        self._by_gram: dict[str, set[str]] = {}
        self._seq = itertools.count()
        self._newest_ms: int | None = None
        self._in_order = True

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, ident: str, name: str, create_ms: int) -> None:
        if ident in self._rows:
            self.remove(ident)
        if self._newest_ms is not None and create_ms < self._newest_ms:
            self._in_order = False
        self._newest_ms = create_ms if self._newest_ms is None else max(self._newest_ms, create_ms)
        self._rows[ident] = (create_ms, next(self._seq), name)
        self._by_name.setdefault(name, {})[ident] = None
        for gram in _grams(name):
            self._by_gram.setdefault(gram, set()).add(ident)

    def remove(self, ident: str) -> None:
        row = self._rows.pop(ident, None)
        if row is None:
            return
        name = row[2]
        same = self._by_name.get(name, {})
        same.pop(ident, None)
        if not same:
            self._by_name.pop(name, None)
        for gram in _grams(name):
            holders = self._by_gram.get(gram)
            if holders is not None:
                holders.discard(ident)
                if not holders:
                    del self._by_gram[gram]

    def all(self) -> KeysView[str]:
        """Every ID, in insertion order."""
        return self._rows.keys()

    def has_name(self, name: str) -> bool:
        return name in self._by_name

    def names(self) -> KeysView[str]:
        """The names in use (a view: ``in`` costs O(1))."""
        return self._by_name.keys()

    def named(self, name: str) -> list[str]:
        """IDs of the objects called exactly ``name``, oldest first."""
        return list(self._by_name.get(name, ()))

    def containing(self, text: str) -> list[str]:
        """IDs of the objects whose name contains ``text`` (unordered)."""
        if len(text) < GRAM:
            return [ident for ident, row in self._rows.items() if text in row[2]]
        holders = [self._by_gram.get(gram) for gram in _grams(text)]
        if not all(holders):
            return []
        ordered = sorted((h for h in holders if h is not None), key=len)
        found = ordered[0].intersection(*ordered[1:])
        return [ident for ident in found if text in self._rows[ident][2]]

    def ordered(self, idents: Iterable[str], *, desc: bool) -> list[str]:
        """``idents`` in list order: create time (newest first when ``desc``), ties oldest first."""
        rows = self._rows
        if desc:
            return sorted(idents, key=lambda i: (-rows[i][0], rows[i][1]))
        return sorted(idents, key=lambda i: (rows[i][0], rows[i][1]))

    def page(self, start: int, stop: int, *, desc: bool) -> list[str]:
        """IDs at positions ``start:stop`` of every object in list order."""
        if not self._in_order:
            return self.ordered(self._rows, desc=desc)[start:stop]
        source = self._newest_first() if desc else iter(self._rows)
        return list(itertools.islice(source, start, stop))

    def _newest_first(self) -> Iterator[str]:
        """Reverse insertion order, except that objects created in the same millisecond stay oldest first."""
        run: list[str] = []
        run_ms: int | None = None
        for ident in reversed(self._rows):
            create_ms = self._rows[ident][0]
            if run and create_ms != run_ms:
                yield from reversed(run)
                run = []
            run.append(ident)
            run_ms = create_ms
        yield from reversed(run)
