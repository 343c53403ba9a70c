"""Alaya NeW functions for Pulumi programs: the product and NAS storage catalogues, one task by
ID, tasks by name prefix and status.

They run in the program process with the stack's `mltrain:*` config, through the provider's client
(imported on first call). Alaya NeW documents no task log or event API (see alaya/wire/contract.py), so there
is no logs function here.
"""

from __future__ import annotations

from typing import Any

import pulumi

from .alaya_function_types import TaskInfo, TaskList, TaskSummary
from .calls import output_form, program_call


def get_products() -> list[dict[str, Any]]:
    """The products Alaya NeW offers for training (`GET /v1/product/list-for-training-task`), as the
    API lists them: productCode, name, gpuName, gpuCount, cpuCores, memoryGB, price, aidcId."""
    rows: list[dict[str, Any]] = program_call("alaya", "products", catalogue=True)
    return rows


def get_storages() -> list[dict[str, Any]]:
    """The tenant's NAS storages (`GET /v1/nasStorage/instance/tenant/page`, every page):
    storageId (for StorageMount.storage_id), storageType, name, status, capacityGB."""
    rows: list[dict[str, Any]] = program_call("alaya", "storages", catalogue=True)
    return rows


def get_training_job(task_id: str) -> TaskInfo:
    """One Alaya NeW training task by ID (`GET /v1/training/instance/{id}/detail`). Environment
    values and image-pull credentials are not returned."""
    t = program_call("alaya", "task", task_id)
    return TaskInfo(task_id=str(t.get("id")), name=t.get("name"), status=str(t.get("status")),
                    reason=t.get("reason"), product_code=t.get("productCode"), worker_count=t.get("workerCount"),
                    image=t.get("image"), created_time=t.get("createdTime"), start_time=t.get("startTime"),
                    end_time=t.get("endTime"))


def get_training_job_output(task_id: pulumi.Input[str]) -> pulumi.Output[TaskInfo]:
    """`get_training_job` for an Input (e.g. a job's `training_task_id`)."""
    result: pulumi.Output[TaskInfo] = output_form(get_training_job, task_id)
    return result


def list_training_jobs(name_prefix: str = "", status: str | None = None) -> TaskList:
    """Alaya NeW training tasks whose name starts with `name_prefix`, optionally only those in
    `status` (any case, e.g. RUNNING), newest first (`GET /v1/training/instance/list`)."""
    rows = program_call("alaya", "list_tasks", name_prefix, status)
    return TaskList(jobs=[TaskSummary(task_id=str(r.get("id")), name=r.get("name"), status=r.get("status"))
                          for r in rows])


def list_training_jobs_output(name_prefix: pulumi.Input[str] = "",
                              status: pulumi.Input[str | None] = None) -> pulumi.Output[TaskList]:
    """`list_training_jobs` for Inputs."""
    result: pulumi.Output[TaskList] = output_form(list_training_jobs, name_prefix, status)
    return result
