"""Response models of the Alaya NeW answers the client reads (shared/api.md A.1-A.4).

Every answer is the envelope `{status, message, data}`; these models describe `data` per call.
Fields the provider reads are typed (and required where it cannot go on without them); the rest
pass through unchanged (extra="allow").
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, StrictFloat, StrictInt, StrictStr

from ...answers import Answer


def _number_as_text(value: Any) -> Any:
    """Product rows carry numbers as strings (api.md A.3); accept a plain number too."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


NumberText = Annotated[StrictStr | None, BeforeValidator(_number_as_text)]

# Keys that say a body came from a gateway or a web framework, not from the Alaya API: Spring's
# error page (error, path, timestamp), FastAPI's `detail`, Huawei-style gateways' `error_code`.
FOREIGN_KEYS = frozenset({"error", "error_code", "error_msg", "detail", "path", "timestamp"})


class SubscriptionResult(Answer):
    """GET result?resultKey=K: PROCESSING, then SUCCESS with the task ID, or FAILED with a message."""

    result_key: StrictStr | None = Field(None, alias="resultKey")
    status: StrictStr
    training_task_id: StrictStr | None = Field(None, alias="trainingTaskId")
    resource_id: StrictStr | None = Field(None, alias="resourceId")
    message: StrictStr | None = None


class TaskDetail(Answer):
    """GET instance/{id}/detail: the task with its create fields, times and reason."""

    id: StrictStr
    name: StrictStr | None = None
    status: StrictStr
    reason: StrictStr | None = None
    created_time: StrictStr | None = Field(None, alias="createdTime")
    start_time: StrictStr | None = Field(None, alias="startTime")
    end_time: StrictStr | None = Field(None, alias="endTime")
    finish_time: StrictStr | None = Field(None, alias="finishTime")


class TaskRow(Answer):
    """A row of the task list: the look-up by name reads `id` and `name`."""

    id: StrictStr
    name: StrictStr | None = None
    status: StrictStr | None = None


class TaskPage(Answer):
    records: list[TaskRow]
    total_rows: StrictInt | None = Field(None, alias="totalRows")


class ProductRow(Answer):
    """A product of list-for-training-task; numbers come as strings."""

    name: StrictStr | None = None
    product_code: StrictStr = Field(alias="productCode")
    aidc_id: StrictInt | None = Field(None, alias="aidcId")
    cpu_cores: NumberText = Field(None, alias="cpuCores")
    memory_gb: NumberText = Field(None, alias="memoryGB")
    gpu_name: StrictStr | None = Field(None, alias="gpuName")
    gpu_count: NumberText = Field(None, alias="gpuCount")
    disk_gb: NumberText = Field(None, alias="diskGB")
    price: NumberText = None


class StorageRow(Answer):
    storage_id: StrictStr = Field(alias="storageId")
    storage_type: StrictStr | None = Field(None, alias="storageType")
    name: StrictStr | None = None
    status: StrictStr | None = None
    capacity_gb: StrictInt | StrictFloat | StrictStr | None = Field(None, alias="capacityGB")


class StoragePage(Answer):
    records: list[StorageRow]
    total_rows: StrictInt = Field(alias="totalRows")
