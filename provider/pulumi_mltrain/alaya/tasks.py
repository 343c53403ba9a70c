"""An Alaya NeW training task's wire shape (its outputs, status and owner mark) and the primitives of
`training_jobs.JobAPI` as functions of the client, which `JobCalls` gives the lifecycles
(`training_job.py` names this module).

Alaya NeW refuses a stop or a delete in a status it does not apply to with its own 409 (a gateway's
409 is no refusal: `refused`). A stop refused that way means there is nothing to stop; a delete
refused that way means the task still runs or stops, and the removal waits for it to settle.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any

from ..answers import from_beijing
from ..checkpoints import ENV_RESUMED_FROM
from ..errors import ApiError
from ..lifecycle import takeover
from ..lifecycle.protocol import Busy, Kept, MarkedRun, Named, Outs, Stop
from ..ownership import Mark
from .catalog import job_costs, products
from .job_spec import TrainingJobSpec
from .wire import contract
from .wire.client import AlayaClient, scrub

Task = dict[str, Any]
PLATFORM = "Alaya NeW"
# Statuses a delete is accepted in (the emulator, like the adopted contract, refuses it while a task starts
# or runs); a status this provider does not know (a platform's STOPPING) is waited out.
DELETABLE = contract.TERMINAL | {contract.PAUSED, contract.DELETING}
# Where a task's logs are: Alaya NeW documents no log API.
NO_LOGS = "the Alaya NeW console (no log API)"


def marked(api: AlayaClient, recorded: Collection[str], keep: Callable[[str, Mark], bool],
           now: float, *, full: bool = False) -> list[MarkedRun]:
    """The account's marked tasks that `keep` accepts, with their cost so far at the listed price
    (the product list is read once, and only when a task is kept); `full`: what a run history shows too
    (all of it from the detail this reads anyway)."""
    catalogue: list[dict[str, Any]] | None = None
    out: list[MarkedRun] = []
    for row in api.list_tasks():
        task_id = str(row.get("id"))
        if task_id in recorded:
            continue
        detail = api.task(task_id)
        owner = mark(detail)
        if owner is None or not keep(task_id, owner):
            continue
        state = status(detail)
        started, ended = epoch(detail.get("startTime")), epoch(detail.get("endTime"))
        resource = detail.get("resource")
        resource = resource if isinstance(resource, dict) else {}
        product = detail.get("productCode") or resource.get("productCode")
        workers = detail.get("workerCount") or resource.get("workerCount")
        cost, gpus = None, None
        if product and isinstance(workers, int):
            if catalogue is None:
                catalogue = products(api)
            costs = job_costs(catalogue, str(product), workers)
            hourly, counted = costs.get("cost_per_hour"), costs.get("gpu_count")
            gpus = counted if isinstance(counted, int) else None
            if isinstance(hourly, int | float):
                running = 0.0 if started is None else ((ended or now) - started) / 3600
                cost = round(hourly * max(0.0, running), 4)
        env = detail.get("env")
        env = env if isinstance(env, dict) else {}
        extra: dict[str, Any] = {"reason": env.get(contract.RUN_REASON_ENV) or None, "started": started,
                                 "ended": ended, "gpus": gpus, "logs": NO_LOGS,
                                 "resumed_from": env.get(ENV_RESUMED_FROM) or None} if full else {}
        out.append(MarkedRun(task_id, detail.get("name"), owner, state, state in contract.LIVE,
                             epoch(detail.get("createdTime")), cost, record=is_record(detail), **extra))
    return out


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


state_of = status


def settled(state: str) -> bool:
    return state in DELETABLE


def get(api: AlayaClient, task_id: str) -> Task:
    return api.task(task_id)


def listing(api: AlayaClient, name: str) -> list[tuple[str, str]]:
    return [(str(row.get("id")), status(row)) for row in api.find_tasks(name)]


def accept(api: AlayaClient, task_id: str, spec: TrainingJobSpec) -> None:
    takeover.require_match(spec, "task", task_id, unmarked(api.task(task_id)))


def reason(task: Task) -> str:
    return str(task.get("reason") or "")


def ended(api: AlayaClient, spec: TrainingJobSpec, task_id: str, task: Task) -> tuple[str, str]:
    return reason(task) or "no reason", ""


def created_at(task: Task) -> float | None:
    """The end of the second `createdTime` names (it has whole seconds): never cuts the limit short."""
    created = epoch(task.get("createdTime"))
    return None if created is None else created + 1.0


def has_started(task: Task) -> bool:
    return bool(task.get("startTime"))


def mark(detail: Task) -> Mark | None:
    env = detail.get("env")
    return Mark.parse(env.get(contract.OWNER_ENV)) if isinstance(env, dict) else None


def owner_of(api: AlayaClient, task_id: str) -> Mark | None:
    return mark(api.task(task_id))


def unmarked(detail: Task) -> Task:
    """The task as its declaration would read it: the owner mark is the provider's, not the user's."""
    env = detail.get("env")
    if not isinstance(env, dict) or not any(k in env for k in contract.PROVIDER_ENV):
        return detail
    return {**detail, "env": {k: v for k, v in env.items() if k not in contract.PROVIDER_ENV}}


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


def epoch(value: Any) -> float | None:
    """Alaya NeW's Beijing wall-clock string as epoch seconds; None when absent or unreadable."""
    text = from_beijing(value)
    return datetime.fromisoformat(text).timestamp() if text else None


def refused(err: ApiError) -> bool:
    """The platform's own refusal of a call in the task's current status (not a gateway's 409)."""
    return type(err) is ApiError and err.http_status == contract.CONFLICT


def notes(api: AlayaClient, spec: TrainingJobSpec, task_id: str) -> Callable[[Task], str | None]:
    """What a wait says once, while the task is live: Alaya NeW documents no log API."""
    said: list[bool] = []

    def note(task: Task) -> str | None:
        if said or status(task) not in contract.LIVE:
            return None
        said.append(True)
        return "no log lines: Alaya NeW documents no log API (follow the task in its console)"

    return note


def stop(api: AlayaClient, task_id: str) -> Stop:
    try:
        api.stop_task(task_id)
    except ApiError as err:
        if refused(err):
            return Stop.ENDED  # ended, paused or being deleted: nothing to stop
        raise
    return Stop.ASKED


def delete(api: AlayaClient, task_id: str) -> None:
    try:
        api.delete_task(task_id)
    except ApiError as err:
        if refused(err):
            raise Busy(str(err)) from None
        raise


def named(api: AlayaClient, name: str) -> list[Named]:
    """Tasks of the name, read in detail (the listing carries no `env`, where the mark lives)."""
    details = [api.task(str(row.get("id"))) for row in api.find_tasks(name)]
    return [Named(str(d.get("id")), mark(d), record=is_record(d)) for d in details if status(d) != contract.DELETING]


def is_record(detail: Task) -> bool:
    """Whether the task is a kept run record: ended and marked. Alaya NeW has no call that changes a task
    after its create, so a record carries no mark of its own (lifecycle/records.py); an ended task is no
    live run of anyone's, and a create never takes one over."""
    return status(detail) in contract.TERMINAL and mark(detail) is not None


def records(api: AlayaClient, owner: Mark, name: str) -> list[Kept]:
    """The kept records of `owner` among the tasks of `name` (every run of a task has its name)."""
    out: list[Kept] = []
    for row in api.find_tasks(name):
        detail = api.task(str(row.get("id")))
        if mark(detail) == owner and is_record(detail):
            env = detail.get("env")
            reason = env.get(contract.RUN_REASON_ENV) if isinstance(env, dict) else None
            out.append(Kept(str(detail.get("id")), str(detail.get("name") or ""), status(detail),
                            epoch(detail.get("createdTime")), str(reason) if reason else None))
    return out
