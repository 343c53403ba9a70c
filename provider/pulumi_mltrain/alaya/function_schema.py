"""Schema entries of the Alaya NeW program-time functions (declared in the registry).

The pydantic models describe the results for schema.json; the functions (program/alaya_functions.py) return
the TypedDicts of the same shape.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from .. import registry
from ..program import alaya_functions as functions
from ..spec import function_arg as _in
from ..spec import function_out as _out


class NoArgs(BaseModel):
    pass


class Product(BaseModel):
    model_config = ConfigDict(extra="allow")

    productCode: str = _out("Use as TrainingJob product_code.")
    name: str | None = _out("Display name.")
    gpuName: str | None = _out("GPU model.")
    gpuCount: str | None = _out("GPUs per node (as the API writes it).")
    cpuCores: str | None = _out("CPU cores per node.")
    memoryGB: str | None = _out("Memory per node, GB.")
    price: str | None = _out("Price per node-hour, as listed.")


class GetProductsResult(BaseModel):
    products: list[Product] = _out("The products, as the API lists them.")


class Storage(BaseModel):
    model_config = ConfigDict(extra="allow")

    storageId: str = _out("Use as StorageMount storage_id.")
    storageType: str | None = _out("nas-capacity or nas-performance.")
    name: str | None = _out("Display name.")
    status: str | None = _out("Active when it can be mounted.")


class GetStoragesResult(BaseModel):
    storages: list[Storage] = _out("The tenant's NAS storages.")


class GetTrainingJobArgs(BaseModel):
    task_id: str = _in("The training task's ID (a TrainingJob's training_task_id).", ...)


class TaskInfo(BaseModel):
    task_id: str = _out("Task ID.")
    name: str | None = _out("Task name.")
    status: str = _out("QUEUED, STARTING, RUNNING, SUCCEEDED, FAILED, STOPPED, PAUSED or DELETING.")
    reason: str | None = _out("Why it is in this status, when the platform says.")
    product_code: str | None = _out("Product code.")
    worker_count: int | None = _out("Number of nodes.")
    image: str | None = _out("Container image.")
    created_time: str | None = _out("Created at.")
    start_time: str | None = _out("Started at.")
    end_time: str | None = _out("Ended at.")


class ListTrainingJobsArgs(BaseModel):
    name_prefix: str = _in("Only tasks whose name starts with this.", "")
    status: str | None = _in("Only tasks in this status (any case).")


class TaskSummary(BaseModel):
    task_id: str = _out("Task ID.")
    name: str | None = _out("Task name.")
    status: str | None = _out("Status.")


class TaskList(BaseModel):
    jobs: list[TaskSummary] = _out("The matching tasks, newest first.")


registry.function("mltrain:alaya:getProducts", NoArgs, GetProductsResult, items="products")(functions.get_products)
registry.function("mltrain:alaya:getStorages", NoArgs, GetStoragesResult, items="storages")(functions.get_storages)
registry.function("mltrain:alaya:getTrainingJob", GetTrainingJobArgs, TaskInfo)(functions.get_training_job)
registry.function("mltrain:alaya:listTrainingJobs", ListTrainingJobsArgs, TaskList)(functions.list_training_jobs)
