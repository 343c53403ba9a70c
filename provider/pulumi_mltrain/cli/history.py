"""The run history of this backend's stacks: every run of their training jobs that a platform still
holds (the current runs their states record, and the records that replaces and destroys kept,
lifecycle/records.py), and the held failed runs; `prune` applies `keep_runs` by hand.

The stacks are read as `mltrain-runs abandoned` reads them (the user's `pulumi` CLI: `stack ls`, `stack
export`), the jobs by their owner marks: only jobs whose mark carries a stack identity of this backend, or
whose URN names a stack this backend holds (a destroyed dynamic stack's records carry an identity its
state no longer holds), are listed, and only those records are ever pruned. What a platform keeps of a record
(its run_reason, the run that replaced it) comes from the record itself (ModelArts tags; an Alaya NeW
task's environment, written at its create); where the platform keeps no successor, the next run of
the same resource is taken for it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, cast

from .. import deadline
from ..config import Settings
from ..errors import MltrainError, NotFound
from ..lifecycle.protocol import MarkedRun, Objects
from ..lifecycle.removal import remove
from ..ownership import Mark, project_and_stack, resource_of
from .abandoned import Backend, _platforms, read_backend, stack_settings

# The budget of one prune's deletes (each waits until its job is gone).
PRUNE_SECONDS = 1200.0


@dataclass(frozen=True)
class HistoryRun:
    """One run of a training job, as `mltrain-runs history` lists it."""

    platform: str
    stack: str  # PROJECT/STACK
    resource: str
    urn: str
    job_id: str
    name: str | None
    status: str
    run_reason: str | None
    record: bool  # a kept record (ended); else the run its stack's state records
    held: bool  # a held failed run (docs/runs.md#held-failures)
    replaced_by: str | None
    start: str | None  # ISO 8601, UTC
    end: str | None
    gpu_hours: float | None
    final_metrics: dict[str, float] | None
    logs: str | None
    created: float | None
    resumed_from: str | None = None  # the run whose checkpoint it started with (checkpoints.py)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _wanted(stack: str, resource: str, only_stack: str | None, only_resource: str | None) -> bool:
    if only_stack and only_stack not in (stack, stack.split("/", 1)[-1]):
        return False
    return not only_resource or only_resource == resource


def run_history(settings: Settings | None = None, *, stack: str | None = None, resource: str | None = None,
                platforms: Sequence[str] | None = None, env: Mapping[str, str] | None = None,
                cwd: str | None = None, backend: Backend | None = None,
                config_stack: str | None = None) -> list[HistoryRun]:
    """The runs of this backend's stacks (`stack`: PROJECT/STACK or STACK; `resource`: a resource name),
    oldest first per resource."""
    if settings is None:
        settings = stack_settings(config_stack, env, cwd)
    backend = read_backend(env, cwd) if backend is None else backend
    identities = backend.identities()
    reasons = {r.job_id: r for s in backend.stacks for r in s.runs}
    held = {h.job_id: h for s in backend.stacks for h in s.held}
    now = time.time()
    found: list[HistoryRun] = []
    for family, marked in _platforms(settings, platforms).items():
        for run in marked.marked((), lambda _id, mark: ours(mark, backend, identities), now, full=True):
            project, name = project_and_stack(run.mark.urn)
            where = f"{project}/{name}"
            if _wanted(where, resource_of(run.mark.urn), stack, resource):
                found.append(_row(family, where, run, reasons.get(run.object_id), run.object_id in held, now))
    listed = {r.job_id for r in found}
    for job_id, run_held in held.items():  # a held run whose job was deleted (on_failure="delete")
        if job_id not in listed and _wanted(run_held.stack, run_held.resource, stack, resource):
            state = reasons.get(job_id)
            found.append(HistoryRun(
                platform=run_held.kind.split(":")[0], stack=run_held.stack, resource=run_held.resource,
                urn=run_held.urn, job_id=job_id, name=None, status=run_held.status or "-",
                run_reason=state.run_reason if state is not None else None, record=False, held=True,
                replaced_by=None, start=None, end=None, gpu_hours=None, final_metrics=None,
                logs=None if run_held.job_kept else "deleted (on_failure=\"delete\")", created=None))
    return _successors(sorted(found, key=lambda r: (r.stack, r.resource, r.created or 0.0, r.job_id)))


def ours(mark: Mark, backend: Backend, identities: set[str]) -> bool:
    """A job of this backend's stacks: its mark's identity is one of theirs, or its URN names one of them
    (a destroyed dynamic stack no longer holds the identity its records carry)."""
    return mark.stack in identities or backend.stack(*project_and_stack(mark.urn)) is not None


def _row(family: str, stack: str, run: MarkedRun, state: Any, held: bool, now: float) -> HistoryRun:
    hours = None
    if run.gpus is not None and run.started is not None:
        hours = round(run.gpus * max(0.0, (run.ended or now) - run.started) / 3600, 4)
    reason = state.run_reason if state is not None and state.run_reason else run.reason
    return HistoryRun(family, stack, resource_of(run.mark.urn), run.mark.urn, run.object_id, run.name, run.state,
                      reason, run.record and state is None, held, run.replaced_by, _iso(run.started),
                      _iso(run.ended), hours, run.final_metrics, run.logs, run.created, run.resumed_from)


def _successors(runs: list[HistoryRun]) -> list[HistoryRun]:
    """Each record that names no successor is taken to be replaced by the next run of its resource."""
    out: list[HistoryRun] = []
    for i, run in enumerate(runs):
        after = runs[i + 1] if i + 1 < len(runs) else None
        if run.record and run.replaced_by is None and after is not None and after.urn == run.urn:
            run = HistoryRun(**{**run.as_dict(), "replaced_by": after.job_id})
        out.append(run)
    return out


def prune(settings: Settings, runs: Sequence[HistoryRun], backend: Backend,
          keep: int | None = None) -> list[HistoryRun]:
    """Delete the kept records of each resource in `runs` beyond the newest `keep` (default: the
    resource's `keep_runs` as its stack (in `backend`) records it, else `settings.keep_runs`); the
    records deleted."""
    recorded = [r for s in backend.stacks for r in s.runs]
    gone: list[HistoryRun] = []
    calls = _platforms(settings, sorted({r.platform for r in runs}))
    by_resource: dict[tuple[str, str], list[HistoryRun]] = {}
    for run in runs:
        if run.record:
            by_resource.setdefault((run.platform, run.urn), []).append(run)
    for (family, urn), records in by_resource.items():
        platform = calls.get(family)
        if platform is None:
            continue
        own = next((r.keep_runs for r in recorded if r.urn == urn and r.keep_runs is not None), None)
        limit = keep if keep is not None else own if own is not None else settings.keep_runs
        newest_first = sorted(records, key=lambda r: (r.created or 0.0, r.job_id), reverse=True)
        for record in newest_first[limit:]:
            budget = deadline.Deadline.after(PRUNE_SECONDS, f"deleting record {record.job_id}")
            with deadline.scope(budget):
                try:
                    remove(cast("Objects[Any]", platform), record.job_id)  # every run kind is one
                except NotFound:
                    pass
                except MltrainError as err:
                    raise MltrainError(f"could not delete record {record.job_id} of {record.resource}: {err}") \
                        from None
            gone.append(record)
    return gone
