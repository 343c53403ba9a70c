"""The emulator's world: stored objects, clock, settings, fault rules, request counts.

Concurrency: every handler and middleware is ``async`` and runs on the server's one event loop, so
the world is only ever touched from that loop and needs no lock. Objects advance lazily: ``sync()``
runs before each request and moves the objects that are due (``schedule.py``) to the clock's "now";
a mutation names the objects it changed (``commit(obj)``) so only those are rescheduled and journaled,
and a bare ``commit()`` reschedules and re-indexes everything on the next sync and rewrites the whole
state file (correct, just not constant-time: admin calls and resets only).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

from starlette.requests import HTTPConnection

from . import persistence
from .alaya import catalog as alaya_catalog
from .alaya import lifecycle as alaya_lifecycle
from .alaya.records import AlayaTask, Subscription
from .clock import Clock
from .fault_rules import FaultBook, FaultRule
from .indexes import CreationIndex
from .modelarts import lifecycle as modelarts_lifecycle
from .modelarts.records import Algorithm, Token, TrainingJob
from .records import Snapshot
from .routes import RouteTable
from .schedule import Key, Schedule
from .settings import EmulatorSettings

Json = dict[str, Any]
Stored = Subscription | AlayaTask | Algorithm | TrainingJob | Token


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RequestLog:
    """Calls per route template, and faults applied, for ``GET /_admin/requests``."""

    ANSWERS_KEPT = 10_000

    def __init__(self) -> None:
        self.endpoints: Counter[str] = Counter()
        self.fault_kinds: Counter[str] = Counter()
        self.fault_endpoints: Counter[str] = Counter()
        self.answers: list[Json] = []  # the status faults answered, oldest first (the first ANSWERS_KEPT)

    def count(self, key: str) -> None:
        self.endpoints[key] += 1

    def count_fault(self, kind: str, key: str) -> None:
        self.fault_kinds[kind] += 1
        self.fault_endpoints[key] += 1

    def log_answer(self, **entry: Any) -> None:
        """One ``status`` fault answer (clock time, call, path, query, body head, status, Retry-After), in order."""
        if len(self.answers) < self.ANSWERS_KEPT:
            self.answers.append(entry)

    def describe(self) -> Json:
        return {
            "total": self.endpoints.total(),
            "fault_answers": list(self.answers),
            "endpoints": dict(sorted(self.endpoints.items())),
            "faults": {"total": self.fault_kinds.total(), "by_kind": dict(sorted(self.fault_kinds.items())),
                       "by_endpoint": dict(sorted(self.fault_endpoints.items()))},
        }


class World:
    """All mutable state of one emulator; ``create_app`` hangs it on ``app.state.world``."""

    def __init__(self, settings: EmulatorSettings | None = None, *, state_file: Path | None = None,
                 faults: list[FaultRule] | None = None, clock: Clock | None = None) -> None:
        self.initial_settings = settings or EmulatorSettings()
        self.settings = self.initial_settings.model_copy(deep=True)
        self.clock = clock or Clock()
        self.faults = FaultBook(self.settings.seed, self.clock.now)
        self.faults.replace(list(faults or []))
        self.requests = RequestLog()
        self.routes = RouteTable([])  # filled in by create_app once the routers exist
        self.state_file = state_file
        self.journal: persistence.Journal | None = None
        self.dirty = False
        self._changed: dict[tuple[str, str], None] = {}  # (store, id) changed since the last save, in order
        self._everything = False  # a bare commit: the next save writes the whole world
        self.subscriptions: dict[str, Subscription] = {}
        self.tasks: dict[str, AlayaTask] = {}
        self.algorithms: dict[str, Algorithm] = {}
        self.jobs: dict[str, TrainingJob] = {}
        self.tokens: dict[str, Token] = {}
        self.storage_patches: dict[str, Json] = {}  # catalogue storage rows changed by /_admin/patch
        self.tasks_by_name: dict[str, dict[str, AlayaTask]] = {}  # Alaya list ?name=, oldest first
        self.job_index = CreationIndex()  # ModelArts job search: order, names
        self.algorithm_index = CreationIndex()  # ModelArts algorithm list: order, names
        self.schedule = Schedule()
        self._rescan = True
        if state_file is not None:
            loaded = persistence.load(state_file)
            self.journal = persistence.Journal(state_file, loaded.seq)
            if loaded.snapshot is not None:
                self.restore(loaded.snapshot)
            if self.journal.has_lines():  # fold the journal in now, dropping any torn last line
                self.journal.compact(self.snapshot())

    def now(self) -> float:
        return self.clock.now()

    def sync(self) -> None:
        """Move every object that is due to the clock's now."""
        now = self.now()
        if self._rescan:
            self._reschedule_all()
        while (key := self.schedule.pop_due(now)) is not None:
            self._advance(key, now)

    def _advance(self, key: Key, now: float) -> None:
        kind, ident = key
        if kind == "sub" and (sub := self.subscriptions.get(ident)) is not None:
            self._touch(sub)
            task = alaya_lifecycle.advance_sub(sub, self.tasks, self.settings, now)
            if task is not None:
                self.tasks_by_name.setdefault(task.spec["name"], {})[task.id] = task
                self._touch(task)
                self._plan(task)
            self._plan(sub)
        elif kind == "task" and (task := self.tasks.get(ident)) is not None:
            self._touch(task)
            if alaya_lifecycle.advance_task(task, self.settings, now):
                self.drop_task(task)
            else:
                self._plan(task)
        elif kind == "job" and (job := self.jobs.get(ident)) is not None:
            self._touch(job)
            if modelarts_lifecycle.advance_job(job, self.settings, now):
                self.drop_job(job)
            else:
                self._plan(job)

    def _plan(self, obj: object) -> None:
        if isinstance(obj, Subscription):
            self.schedule.set(("sub", obj.result_key), alaya_lifecycle.sub_due(obj, self.settings))
        elif isinstance(obj, AlayaTask):
            self.schedule.set(("task", obj.id), alaya_lifecycle.task_due(obj, self.settings))
        elif isinstance(obj, TrainingJob):
            self.schedule.set(("job", obj.id), modelarts_lifecycle.job_due(obj, self.settings))

    def _reschedule_all(self) -> None:
        """After a bare commit (an admin patch may even rename an object): rebuild the schedule and indexes."""
        self._rescan = False
        self.schedule.clear()
        self.tasks_by_name = {}
        for task in self.tasks.values():
            self.tasks_by_name.setdefault(task.spec["name"], {})[task.id] = task
        self.job_index, self.algorithm_index = CreationIndex(), CreationIndex()
        for job in self.jobs.values():
            self._index_job(job)
        for algorithm in self.algorithms.values():
            self._index_algorithm(algorithm)
        for obj in (*self.subscriptions.values(), *self.tasks.values(), *self.jobs.values()):
            self._plan(obj)

    def drop_task(self, task: AlayaTask) -> None:
        self.tasks.pop(task.id, None)
        same = self.tasks_by_name.get(task.spec["name"], {})
        same.pop(task.id, None)
        if not same:
            self.tasks_by_name.pop(task.spec["name"], None)

    def add_job(self, job: TrainingJob) -> None:
        self.jobs[job.id] = job
        self._index_job(job)

    def drop_job(self, job: TrainingJob) -> None:
        self.jobs.pop(job.id, None)
        self.job_index.remove(job.id)

    def _index_job(self, job: TrainingJob) -> None:
        metadata = job.document["metadata"]
        self.job_index.add(job.id, metadata["name"], metadata["create_time"])

    def add_algorithm(self, algorithm: Algorithm) -> None:
        self.algorithms[algorithm.id] = algorithm
        self._index_algorithm(algorithm)

    def drop_algorithm(self, algorithm: Algorithm) -> None:
        self.algorithms.pop(algorithm.id, None)
        self.algorithm_index.remove(algorithm.id)

    def _index_algorithm(self, algorithm: Algorithm) -> None:
        metadata = algorithm.document["metadata"]
        self.algorithm_index.add(algorithm.id, metadata["name"], metadata["create_time"])

    def commit(self, *changed: Stored) -> None:
        """Mark a mutation of ``changed`` (journaled before the request's answer goes out).

        Named objects (also ones just removed) are rescheduled and journaled; with none named, every
        object is rescheduled on the next sync and the next save rewrites the whole world.
        """
        self.dirty = True
        if not changed:
            self._rescan = True
            self._everything = True
            return
        for obj in changed:
            self._touch(obj)
            if not self._rescan:
                self._plan(obj)

    def _touch(self, obj: Stored) -> None:
        self.dirty = True
        self._changed[_store_key(obj)] = None

    def save_if_dirty(self) -> None:
        """Journal what changed (or, after a bare commit or every so many entries, write the world)."""
        if self.dirty and self.journal is not None:
            if self._everything or self.journal.due_for_compaction(self.size()):
                self.journal.compact(self.snapshot())
            else:
                self.journal.append(self.clock.offset, self._changes())
        self.dirty = False
        self._everything = False
        self._changed.clear()

    def close(self) -> None:
        """On a clean shutdown: fold the journal into the snapshot."""
        self.save_if_dirty()
        if self.journal is not None and self.journal.entries:
            self.journal.compact(self.snapshot())

    def size(self) -> int:
        return (len(self.subscriptions) + len(self.tasks) + len(self.algorithms) + len(self.jobs)
                + len(self.tokens))

    def _changes(self) -> list[tuple[str, str, Json | None]]:
        """(store, id, object as JSON or None when it is gone) for every object changed, in order."""
        stores: dict[str, dict[str, Any]] = {
            "subscriptions": self.subscriptions, "tasks": self.tasks, "algorithms": self.algorithms,
            "jobs": self.jobs, "tokens": self.tokens}
        out: list[tuple[str, str, Json | None]] = []
        for store, ident in self._changed:
            obj = stores[store].get(ident)
            out.append((store, ident, None if obj is None else obj.model_dump(mode="json")))
        return out

    def snapshot(self) -> Snapshot:
        return Snapshot(clock_offset=self.clock.offset, subscriptions=list(self.subscriptions.values()),
                        tasks=list(self.tasks.values()), algorithms=list(self.algorithms.values()),
                        jobs=list(self.jobs.values()), tokens=list(self.tokens.values()))

    def restore(self, snapshot: Snapshot) -> None:
        self.clock.offset = max(self.clock.offset, snapshot.clock_offset)
        self.subscriptions = {s.result_key: s for s in snapshot.subscriptions}
        self.tasks = {t.id: t for t in snapshot.tasks}
        self.algorithms = {a.id: a for a in snapshot.algorithms}
        self.jobs = {j.id: j for j in snapshot.jobs}
        self.tokens = {t.digest: t for t in snapshot.tokens}
        self._rescan = True

    def set_settings(self, patch: Json) -> None:
        """Merge ``patch``; objects are first brought to now under the old settings."""
        self.sync()
        merged = self.settings.merged(patch)
        if merged.seed != self.settings.seed:
            self.faults.reseed(merged.seed)
        self.settings = merged
        self._rescan = True

    def reset(self) -> None:
        """Forget everything: objects, counts, faults, clock offset; settings back to the start."""
        self.restore(Snapshot())
        self.storage_patches = {}
        self.clock.reset()
        self.settings = self.initial_settings.model_copy(deep=True)
        self.faults = FaultBook(self.settings.seed, self.clock.now)
        self.requests = RequestLog()
        self.commit()

    def storage_row(self, storage_id: str) -> Json | None:
        """A catalogue storage as the storage list shows it, with any admin patch applied."""
        row = alaya_catalog.storage(storage_id)
        return None if row is None else {**row, **self.storage_patches.get(storage_id, {})}

    def storage_rows(self) -> list[Json]:
        return [{**row, **self.storage_patches.get(row["storageId"], {})} for row in alaya_catalog.storages()]

    def find_token(self, token: str) -> Token | None:
        return self.tokens.get(token_digest(token))


def _store_key(obj: Stored) -> tuple[str, str]:
    if isinstance(obj, Subscription):
        return "subscriptions", obj.result_key
    if isinstance(obj, AlayaTask):
        return "tasks", obj.id
    if isinstance(obj, Algorithm):
        return "algorithms", obj.id
    if isinstance(obj, TrainingJob):
        return "jobs", obj.id
    return "tokens", obj.digest


def world_of(conn: HTTPConnection) -> World:
    """The world of the app serving this request."""
    world = conn.app.state.world
    assert isinstance(world, World)
    return world
