"""Alaya state machines, evaluated lazily against the clock, and the views clients see.

Subscription: PROCESSING → SUCCESS (a task appears) | FAILED (cannot be scheduled).
Task: QUEUED → STARTING → RUNNING → SUCCEEDED | FAILED | STOPPED (user stop or timeout);
FAILED → QUEUED again while auto-retries remain; DELETE shows DELETING, then the task is gone.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from .. import defaults as d
from ..settings import EmulatorSettings, name_matches
from . import catalog
from . import contract as ac
from .records import AlayaTask, Subscription

Json = dict[str, Any]

BEIJING = timezone(timedelta(hours=8))
ACTIVE = ac.STOPPABLE
TERMINAL = ac.TERMINAL


def format_time(at: float | None) -> str | None:
    """Alaya's ``YYYY-MM-DD HH:MM:SS`` in Beijing time (api.md A.0)."""
    if at is None:
        return None
    return datetime.fromtimestamp(at, UTC).astimezone(BEIJING).strftime("%Y-%m-%d %H:%M:%S")


def scheduling_failure(request: Json) -> str | None:
    """Why a create request cannot be scheduled, or ``None`` when it can."""
    code = request["productCode"]
    product = catalog.product(code)
    if product is None:
        return f"productCode {code} does not exist"
    for config in request["storageConfigs"]:
        storage = catalog.storage(config["storageId"])
        if storage is None:
            return f"storage {config['storageId']} does not exist"
        if storage["status"] != ac.STORAGE_ACTIVE:
            return f"storage {config['storageId']} is not Active ({storage['status']})"
        if config["storageType"] not in (None, storage["storageType"]):
            return f"storage {config['storageId']} is {storage['storageType']}, not {config['storageType']}"
    if int(product["remainingCount"]) <= 0:
        return f"insufficient stock for {code}"
    return None


def _resolve(sub: Subscription, at: float, tasks: dict[str, AlayaTask]) -> None:
    failure = scheduling_failure(sub.request)
    if failure is not None:
        sub.status, sub.message = d.SUB_FAILED, failure
        return
    task_id = "tt-" + secrets.token_hex(6)
    private = (sub.request["imageType"] or "").lower() == "private"
    tasks[task_id] = AlayaTask(
        id=task_id, result_key=sub.result_key, spec=sub.request, created_at=at, status_since=at,
        pull_password=secrets.token_urlsafe(18) if private else None,
    )
    sub.status, sub.task_id, sub.message = d.SUB_SUCCESS, task_id, "the training task was created"


def _next(task: AlayaTask, settings: EmulatorSettings) -> tuple[float, str, str] | None:
    """The next transition (time, status, reason) the clock will bring, if any."""
    step, since, spec = settings.task_state_delay, task.status_since, task.spec
    if task.status == d.TASK_QUEUED:
        return since + step, d.TASK_STARTING, ""
    if task.status == d.TASK_STARTING:
        return since + step, d.TASK_RUNNING, ""
    if task.status == d.TASK_RUNNING:
        options: list[tuple[float, str, str]] = []
        if spec["enableTimeoutCancel"] and spec["timeoutHours"]:
            hours = spec["timeoutHours"]
            options.append((since + hours * 3600, d.TASK_STOPPED, f"cancelled after the {hours} h timeout"))
        if name_matches(settings.fail_task_names, spec["name"]):
            options.append((since + step, d.TASK_FAILED, "emulated failure: the training process exited"))
        elif settings.succeed_after is not None:
            options.append((since + settings.succeed_after, d.TASK_SUCCEEDED, ""))
        return min(options) if options else None
    retries_left = spec["enableAutoRetry"] and task.retry_count < (spec["maxRetryCount"] or 0)
    if task.status == d.TASK_FAILED and retries_left:
        return since, d.TASK_QUEUED, task.reason
    return None


def enter(task: AlayaTask, status: str, at: float, reason: str = "") -> None:
    if status == d.TASK_QUEUED and task.status == d.TASK_FAILED:
        task.retry_count += 1
        task.end_at = None
    task.status, task.status_since, task.reason = status, at, reason
    if status == d.TASK_RUNNING:
        task.start_at = at
    if status in TERMINAL:
        task.end_at = at


def sub_due(sub: Subscription, settings: EmulatorSettings) -> float | None:
    """When this subscription resolves, or ``None`` when it never will by itself."""
    if sub.status != d.SUB_PROCESSING or sub.never_resolve:
        return None
    return sub.created_at + settings.subscription_delay


def advance_sub(sub: Subscription, tasks: dict[str, AlayaTask], settings: EmulatorSettings,
                now: float) -> AlayaTask | None:
    """Resolve ``sub`` if it is due; the task it made, if any."""
    due = sub_due(sub, settings)
    if due is None or due > now:
        return None
    _resolve(sub, due, tasks)
    return None if sub.task_id is None else tasks[sub.task_id]


def task_due(task: AlayaTask, settings: EmulatorSettings) -> float | None:
    """When the clock next changes this task (a transition or its removal), if ever."""
    if task.deleting_since is not None:
        return task.deleting_since + settings.delete_delay
    step = _next(task, settings)
    return None if step is None else step[0]


def advance_task(task: AlayaTask, settings: EmulatorSettings, now: float) -> bool:
    """Move ``task`` to ``now``; True when its deletion has completed (the caller drops it)."""
    if task.deleting_since is not None:
        return task.deleting_since + settings.delete_delay <= now
    while (step := _next(task, settings)) is not None and step[0] <= now:
        enter(task, step[1], step[0], step[2])
    return False


def subscription_view(sub: Subscription, *, pending: bool = False) -> Json:
    """``pending`` reports PROCESSING whatever the truth (the ``never_resolve`` fault on a read)."""
    if pending:
        return {"resultKey": sub.result_key, "status": d.SUB_PROCESSING, "trainingTaskId": None,
                "message": "the request is being processed"}
    return {"resultKey": sub.result_key, "status": sub.status, "trainingTaskId": sub.task_id,
            "message": sub.message}


def task_view(task: AlayaTask, *, with_secret: bool = True, with_env: bool = True) -> Json:
    """A task as the detail and list answer it. `with_env=False` answers without the task's `env`: the
    detail is not public, and that is the other answer a client must survive (settings.alaya_detail_env)."""
    spec = task.spec if with_env else {k: v for k, v in task.spec.items() if k != "env"}
    product = catalog.product(spec["productCode"]) or {}
    view: Json = {
        "id": task.id,
        "name": spec["name"],
        "status": d.TASK_DELETING if task.deleting_since is not None else task.status,
        **{k: v for k, v in spec.items() if k != "name"},
        # The seed spells the field both ways; answer under both so either client reading works.
        "trainingFramwork": spec["trainingFramework"],
        "aidcId": product.get("aidcId", d.DEFAULT_AIDC_ID),
        "resource": {
            "type": "worker", "productCode": spec["productCode"], "workerCount": spec["workerCount"],
            "gpuName": product.get("gpuName"), "gpuCount": int(product.get("gpuCount", 0)),
            "cpuCores": product.get("cpuCores"), "memoryGB": product.get("memoryGB"),
        },
        "retryCount": task.retry_count,
        "createdTime": format_time(task.created_at),
        "startTime": format_time(task.start_at),
        "endTime": format_time(task.end_at),
        "reason": task.reason,
    }
    if with_secret and task.pull_password is not None:
        # Deliberately returned, as a private-registry API would: the provider must scrub it.
        view["imagePullSecret"] = {"username": "robot$mltrain-emulator", "password": task.pull_password}
    return view
