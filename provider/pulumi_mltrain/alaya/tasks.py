"""Alaya NeW training tasks as the lifecycles see them (`lifecycle.protocol.Runs`): get, status, stop,
delete, the listing by name, what a create waits for and records, why a run ended.

Alaya NeW refuses a stop or a delete in a status it does not apply to with its own 409 (a gateway's
409 is no refusal: `_refused`). A stop refused that way means there is nothing to stop; a delete
refused that way means the task still runs or stops, and the removal waits for it to settle.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any

from ..answers import from_beijing
from ..errors import ApiError
from ..lifecycle.protocol import Busy, MarkedRun, Named, Outs, Stop
from ..ownership import Mark
from ..waiter import Backoff
from . import contract
from .catalog import job_costs, products
from .client import AlayaClient, scrub
from .job_spec import TrainingJobSpec

Task = dict[str, Any]
# Statuses a delete is accepted in (the emulator, like the adopted contract, refuses it while a task starts
# or runs); a status this provider does not know (a platform's STOPPING) is waited out.
DELETABLE = contract.TERMINAL | {contract.PAUSED, contract.DELETING}


class Tasks:
    """The training tasks of one Alaya NeW account (its client)."""

    noun = "task"
    platform = "Alaya NeW"
    poll = Backoff()
    pending_states = contract.BEFORE_RUNNING

    def __init__(self, api: AlayaClient) -> None:
        self.api = api

    # ----- Objects ---------------------------------------------------------------------------------
    def get(self, object_id: str) -> Task:
        return self.api.task(object_id)

    def state_of(self, remote: Task) -> str:
        return status(remote)

    def stop(self, object_id: str) -> Stop:
        try:
            self.api.stop_task(object_id)
        except ApiError as err:
            if _refused(err):
                return Stop.ENDED  # ended, paused or being deleted: nothing to stop
            raise
        return Stop.ASKED

    def delete(self, object_id: str) -> None:
        try:
            self.api.delete_task(object_id)
        except ApiError as err:
            if _refused(err):
                raise Busy(str(err)) from None
            raise

    def live(self, state: str) -> bool:
        return state in contract.LIVE - {contract.PAUSED}

    def settled(self, state: str) -> bool:
        return state in DELETABLE

    def listed(self, object_id: str, name: str) -> bool:
        return any(str(r.get("id")) == object_id for r in self.api.find_tasks(name))

    def named(self, name: str) -> list[Named]:
        """Tasks of the name, read in detail (the listing carries no `env`, where the mark lives)."""
        details = [self.api.task(str(row.get("id"))) for row in self.api.find_tasks(name)]
        return [Named(str(d.get("id")), mark(d)) for d in details if status(d) != contract.DELETING]

    # ----- Marked ----------------------------------------------------------------------------------
    def marked(self, recorded: Collection[str], keep: Callable[[str, Mark], bool], now: float) -> list[MarkedRun]:
        """The account's marked tasks that `keep` accepts, with their cost so far at the listed price
        (the product list is read once, and only when a task is kept)."""
        catalogue: list[dict[str, Any]] | None = None
        out: list[MarkedRun] = []
        for row in self.api.list_tasks():
            task_id = str(row.get("id"))
            if task_id in recorded:
                continue
            detail = self.api.task(task_id)
            owner = mark(detail)
            if owner is None or not keep(task_id, owner):
                continue
            state = status(detail)
            started, ended = _epoch(detail.get("startTime")), _epoch(detail.get("endTime"))
            resource = detail.get("resource")
            resource = resource if isinstance(resource, dict) else {}
            product = detail.get("productCode") or resource.get("productCode")
            workers = detail.get("workerCount") or resource.get("workerCount")
            cost = None
            if product and isinstance(workers, int):
                if catalogue is None:
                    catalogue = products(self.api)
                hourly = job_costs(catalogue, str(product), workers).get("cost_per_hour")
                if isinstance(hourly, int | float):
                    running = 0.0 if started is None else ((ended or now) - started) / 3600
                    cost = round(hourly * max(0.0, running), 4)
            out.append(MarkedRun(task_id, detail.get("name"), owner, state, state in contract.LIVE,
                                 _epoch(detail.get("createdTime")), cost))
        return out

    # ----- Runs ------------------------------------------------------------------------------------
    def goal(self, spec: TrainingJobSpec) -> tuple[frozenset[str], frozenset[str]] | None:
        target = contract.REACHED.get(spec.wait_for)
        return None if target is None else (target, contract.NEVER)

    def what(self, spec: TrainingJobSpec, object_id: str) -> str:
        return f"task {object_id}"

    def recorded(self, spec: TrainingJobSpec, remote: Task) -> Outs:
        return outputs(remote)

    def unread(self, object_id: str) -> Outs:
        return {"training_task_id": object_id, "status": "UNKNOWN"}

    def ended(self, spec: TrainingJobSpec, object_id: str, remote: Task) -> tuple[str, str]:
        return str(remote.get("reason") or "no reason"), ""

    def gate(self, spec: TrainingJobSpec, object_id: str, remote: Task, recorded: Outs) -> tuple[Outs, str | None]:
        return {}, None  # no metrics API: success_criteria is refused at check

    def created_at(self, remote: Task) -> float | None:
        """The end of the second `createdTime` names (it has whole seconds): never cuts the limit short."""
        created = _epoch(remote.get("createdTime"))
        return None if created is None else created + 1.0

    def has_started(self, remote: Task) -> bool:
        return bool(remote.get("startTime"))

    def pending_reason(self, remote: Task) -> str:
        return str(remote.get("reason") or "")

    def notes(self, spec: TrainingJobSpec, object_id: str) -> Callable[[Task], str | None]:
        """Said once per wait: Alaya NeW documents no log API, so no log lines can follow."""
        said: list[bool] = []

        def note(task: Task) -> str | None:
            if said or status(task) not in contract.LIVE:
                return None
            said.append(True)
            return "no log lines: Alaya NeW documents no log API (follow the task in its console)"

        return note


def outputs(detail: Task) -> Outs:
    detail = scrub(detail)
    end = detail.get("endTime") or detail.get("finishTime")
    return {
        "training_task_id": str(detail.get("id")),
        "status": status(detail),
        "created_time": detail.get("createdTime"),
        "start_time": from_beijing(detail.get("startTime")),
        "end_time": from_beijing(end),
        "duration_ms": _duration_ms(detail.get("startTime"), end),
        "reason": detail.get("reason") or None,
    }


def status(detail: Task) -> str:
    return str(detail.get("status") or "UNKNOWN").upper()


def mark(detail: Task) -> Mark | None:
    env = detail.get("env")
    return Mark.parse(env.get(contract.OWNER_ENV)) if isinstance(env, dict) else None


def unmarked(detail: Task) -> Task:
    """The task as its declaration would read it: the owner mark is the provider's, not the user's."""
    env = detail.get("env")
    if not isinstance(env, dict) or contract.OWNER_ENV not in env:
        return detail
    return {**detail, "env": {k: v for k, v in env.items() if k != contract.OWNER_ENV}}


def _duration_ms(start: Any, end: Any) -> int | None:
    """Both times are the platform's wall-clock strings of one zone ("2024-05-01 10:00:00"), so their
    difference is the running time whatever the zone; None when either is missing or unreadable."""
    if not start or not end:
        return None
    try:
        return max(0, int((datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))).total_seconds()
                          * 1000))
    except (TypeError, ValueError):
        return None


def _epoch(value: Any) -> float | None:
    """Alaya NeW's Beijing wall-clock string as epoch seconds; None when absent or unreadable."""
    text = from_beijing(value)
    return datetime.fromisoformat(text).timestamp() if text else None


def _refused(err: ApiError) -> bool:
    """The platform's own refusal of a call in the task's current status (not a gateway's 409)."""
    return type(err) is ApiError and err.http_status == contract.CONFLICT
