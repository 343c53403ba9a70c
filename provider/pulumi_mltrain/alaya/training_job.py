"""`alaya.TrainingJob`: an Alaya NeW distributed training task.

Create is asynchronous: the POST answers a resultKey, the subscription result later yields the
real task ID, and only then is the ID recorded. Nothing can be changed in place (the API has no
update call), so every change of a remote field replaces the task; fields marked `local` change
only the provider's behaviour.
"""

from __future__ import annotations

import re
import sys
import time
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, model_validator

from .. import spec as specs
from ..errors import AmbiguousOutcome, MltrainError, NotFound, RemoteFailure
from ..resource import CREATE_ATTEMPTS, ManagedSpec, MltrainResource, remaining
from ..waiter import Backoff, look_for, wait_for
from . import contract
from .base import AlayaProvider
from .catalog import catalog_failures
from .client import scrub
from .models import NasMount

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


class TrainingJobSpec(ManagedSpec):
    """Inputs of an Alaya NeW distributed training task (the fields of the create call)."""

    name: str = specs.spec_field(description="Task name; defaults to the resource name plus a stable suffix.",
                                 min_length=1, max_length=64)
    product_code: str = specs.spec_field(
        description="Resource configuration (node spec) from the product list, e.g. PRD-TRAIN-1.",
        wire="productCode", min_length=1)
    worker_count: int = specs.spec_field(description="Number of nodes; 1 for a single machine.",
                                         wire="workerCount", ge=1, le=512)
    image: str = specs.spec_field(
        description="Container image, e.g. harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu.", min_length=1)
    create_type: Literal["DIRECT", "COPY", "TEMPLATE"] = specs.spec_field(
        "DIRECT", description="How the task is created; DIRECT for a normal create.", wire="createType")
    description: str | None = specs.spec_field(None, description="Task description.", wire="desc", max_length=1024)
    priority: int = specs.spec_field(3, description="1 (highest) to 3 (lowest, the default).", ge=1, le=3)
    training_type: Annotated[Literal["PRE_TRAINING", "HPC"], BeforeValidator(_upper)] | None = specs.spec_field(
        None, description="PRE_TRAINING or HPC (any case).", wire="trainingType")
    image_type: Literal["general", "application", "private"] | None = specs.spec_field(
        None, description="general, application or private; must match the image.", wire="imageType")
    training_framework: Annotated[
        Literal["pytorch", "deepspeed", "mpi", "tensorflow"], BeforeValidator(_lower)
    ] | None = specs.spec_field(
        None, description="pytorch, deepspeed, mpi or tensorflow (any case).",
        wire="trainingFramwork", also=("trainingFramework",))
    storage_mounts: list[NasMount] = specs.spec_field(
        default_factory=list, description="NAS directories to mount (e.g. StorageMount.mount outputs).",
        wire="storageConfigs")
    env: dict[str, str] = specs.spec_field(
        default_factory=dict, description="Environment variables; wrap values in pulumi.Output.secret() "
        "to keep them encrypted in the state.")
    enable_auto_retry: bool = specs.spec_field(
        False, description="Retry a failed task automatically; implied by max_retry_count.", wire="enableAutoRetry")
    max_retry_count: int | None = specs.spec_field(
        None, description="Retries when enable_auto_retry is on.", wire="maxRetryCount", ge=0, le=100)
    enable_timeout_cancel: bool = specs.spec_field(
        False, description="Cancel the task after timeout_hours; implied by timeout_hours.",
        wire="enableTimeoutCancel")
    timeout_hours: int | None = specs.spec_field(
        None, description="Hours before the task is cancelled when enable_timeout_cancel is on.",
        wire="timeoutHours", ge=1, le=24 * 90)
    start_command: str | None = specs.spec_field(
        None, description="Entry command; may be a multi-line shell script.", wire="startCommand")
    wait_for: Literal["created", "running"] = specs.spec_field(
        "created", description="What create waits for: the task ID (created) or the RUNNING state.",
        on_change="local")

    @model_validator(mode="before")
    @classmethod
    def _implied_switches(cls, data: Any) -> Any:
        """`max_retry_count`/`timeout_hours` alone switch their feature on, as users expect."""
        if isinstance(data, dict):
            data = dict(data)
            for switch, value, wire in (("enable_auto_retry", "max_retry_count", "maxRetryCount"),
                                        ("enable_timeout_cancel", "timeout_hours", "timeoutHours")):
                given = data.get(value, data.get(wire))
                if given is not None and switch not in data and _camel(switch) not in data:
                    data[switch] = True
        return data

    def cross_check(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self.max_retry_count is not None and not self.enable_auto_retry:
            out.append(("max_retry_count", "applies only when enable_auto_retry is true"))
        if self.timeout_hours is not None and not self.enable_timeout_cancel:
            out.append(("timeout_hours", "applies only when enable_timeout_cancel is true"))
        if self.enable_timeout_cancel and self.timeout_hours is None:
            out.append(("timeout_hours", "is required when enable_timeout_cancel is true"))
        seen: dict[str, int] = {}
        for i, mount in enumerate(self.storage_mounts):
            path = mount.normalized_path()
            if path in seen:
                out.append((f"storage_mounts[{i}].mount_path",
                            f"{mount.mount_path} is already used by storage_mounts[{seen[path]}]"))
            seen.setdefault(path, i)
        for key in self.env:
            if not _ENV_NAME.match(key):
                out.append((f"env.{key}", "is not a valid environment variable name"))
        return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


class TrainingJobOutputs(specs.Output):
    training_task_id: str | None = specs.output_field(description="The training task ID the platform assigned.")
    status: str | None = specs.output_field(description="Task status at the last create/refresh.")
    result_key: str | None = specs.output_field(description="Subscription result key of the create call.")
    created_time: str | None = specs.output_field(description="When the platform created the task.")
    start_time: str | None = specs.output_field(description="When the task started running.")
    end_time: str | None = specs.output_field(description="When the task ended.")
    reason: str | None = specs.output_field(description="The platform's reason for the status, if any.")


class TrainingJobProvider(AlayaProvider):
    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "training task"
    spec_type: ClassVar[type[ManagedSpec]] = TrainingJobSpec
    output_type: ClassVar[type[specs.Output]] = TrainingJobOutputs
    result_backoff: ClassVar[Backoff] = Backoff(first=0.5, maximum=5.0)

    def _check_remote(self, spec: Any) -> list[tuple[str, str]]:
        if not self.settings.alaya_api_key:
            return []
        return catalog_failures(self.api(), spec.product_code, spec.storage_mounts)

    # ----- create --------------------------------------------------------------------------------
    def _create(self, spec: Any, deadline: float) -> tuple[str, dict[str, Any]]:
        api = self.api()
        existing = self._existing(spec)
        if existing is not None:
            return existing
        result_key, resent, adopted = self._submit(spec, deadline)
        if adopted is not None:
            return adopted
        try:
            result = wait_for(
                lambda: api.result(result_key),
                lambda r: str(r.get("status", "")).upper() != contract.SUB_PROCESSING,
                timeout=remaining(deadline),
                what=f"subscription {result_key} of task {spec.name!r}",
                state_of=lambda r: str(r.get("status", "?")),
                backoff=self.result_backoff,
            ).value
        except MltrainError as err:
            raise MltrainError(f"{err}. {self._clean_up_unrecorded(spec)}") from None
        if str(result.get("status", "")).upper() != contract.SUB_SUCCESS:
            raise RemoteFailure(
                f"Alaya NeW could not create the task: {result.get('message') or 'no reason given'} "
                f"(subscription {result_key} ended {result.get('status')}); nothing was created"
            )
        task_id = str(result.get("trainingTaskId") or result.get("resourceId") or "")
        if not task_id:
            raise RemoteFailure(f"subscription {result_key} succeeded without a trainingTaskId")
        if resent:
            self._remove_duplicates(spec, task_id, deadline)
        outs = self._after_create(spec, task_id, deadline)
        return task_id, {**outs, "result_key": result_key}

    def _submit(self, spec: Any, deadline: float) -> tuple[str, bool, tuple[str, dict[str, Any]] | None]:
        """POST the create call: (resultKey, whether it was sent more than once, the task adopted instead).

        An unanswered POST is never repeated blindly: first the task is looked for by its name for
        `ambiguityGrace` seconds; only if it does not appear is the request sent again (CREATE_ATTEMPTS in all).
        """
        grace = self.settings.ambiguity_grace
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                return self.api().create_task(spec.wire()), attempt > 1, None
            except AmbiguousOutcome as err:
                found = look_for(lambda: self._existing(spec), within=grace, deadline=deadline)
                if found is not None:
                    return "", False, found
                if attempt == CREATE_ATTEMPTS:
                    raise MltrainError(
                        f"{err}. No task named {spec.name!r} appeared within {grace:.0f}s. Run `pulumi up` "
                        "again: the provider looks the task up by name before creating, so no duplicate is made"
                    ) from None
                print(f"[mltrain] task {spec.name!r} not found {grace:.0f}s after an unanswered create; "
                      "sending it again", file=sys.stderr)
        raise AssertionError("unreachable")

    def _clean_up_unrecorded(self, spec: Any) -> str:
        """The create was accepted but its task ID cannot be recorded: remove the task if it exists,
        so that the platform and the state agree; otherwise say how the next run adopts it."""
        try:
            tasks = self.api().find_tasks(spec.name)
            for task in tasks:
                self._remove(str(task.get("id")), time.monotonic() + 120.0)
        except MltrainError as err:
            return (f"Could not check for the task it may have created ({err}); the next `pulumi up` finds a "
                    f"task named {spec.name!r} and adopts it instead of creating another")
        if tasks:
            ids = ", ".join(str(t.get("id")) for t in tasks)
            return f"The task the request had created ({ids}) was deleted, so nothing is left behind"
        return (f"No task was created yet; if one named {spec.name!r} appears later, the next `pulumi up` "
                "adopts it instead of creating another")

    def _remove_duplicates(self, spec: Any, task_id: str, deadline: float) -> None:
        """After a resend, a late first request may have made a second task: remove it."""
        for task in self.api().find_tasks(spec.name):
            other = str(task.get("id"))
            if other != task_id:
                print(f"[mltrain] removing {other}, a duplicate of {task_id} from the unanswered first request",
                      file=sys.stderr)
                self._remove(other, deadline)

    def _existing(self, spec: Any) -> tuple[str, dict[str, Any]] | None:
        """A task this stack created before an interruption: adopt it if it matches, never duplicate."""
        matches = self.api().find_tasks(spec.name)
        if not matches:
            return None
        task = matches[0]
        task_id = str(task.get("id"))
        detail = self.api().task(task_id)
        self._require_match(spec, task_id, detail, found_by_name=True)
        print(f"[mltrain] task {spec.name!r} already exists as {task_id}: adopting it", file=sys.stderr)
        return task_id, self._outputs(detail)

    def _after_create(self, spec: Any, task_id: str, deadline: float) -> dict[str, Any]:
        api = self.api()
        if spec.wait_for == "running":
            detail = wait_for(
                lambda: api.task(task_id),
                lambda d: _status(d) not in (contract.QUEUED, contract.STARTING),
                timeout=remaining(deadline),
                what=f"task {task_id}",
                state_of=_status,
            ).value
            if _status(detail) != contract.RUNNING:
                self._remove(task_id, deadline)
                raise RemoteFailure(
                    f"task {task_id} ended {_status(detail)} before running: {detail.get('reason') or 'no reason'}; "
                    "it was deleted so that nothing is left behind"
                )
            return self._outputs(detail)
        try:
            return self._outputs(api.task(task_id))
        except MltrainError:
            # The ID is what matters: record it even if the detail call keeps failing.
            return {"training_task_id": task_id, "status": "UNKNOWN"}

    # ----- adopt / read / delete -----------------------------------------------------------------
    def _adopt(self, object_id: str, spec: Any) -> dict[str, Any]:
        detail = self.api().task(object_id)
        self._require_match(spec, object_id, detail, found_by_name=False)
        return self._outputs(detail)

    def _read(self, object_id: str, spec: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        detail = self.api().task(object_id)
        if _status(detail) == contract.DELETING:
            return None
        return self._outputs(detail), {}

    def _delete(self, object_id: str, spec: Any, deadline: float) -> None:
        self._remove(object_id, deadline)

    def _remove(self, task_id: str, deadline: float) -> None:
        """Stop if live, delete, and wait until the platform no longer knows the task."""
        api = self.api()
        try:
            detail = api.task(task_id)
            if _status(detail) in contract.LIVE:
                api.stop_task(task_id)
                wait_for(lambda: api.task(task_id), lambda d: _status(d) not in contract.LIVE,
                         timeout=remaining(deadline), what=f"stopping task {task_id}", state_of=_status)
            if _status(detail) != contract.DELETING:
                api.delete_task(task_id)

            def gone() -> str:
                try:
                    return _status(api.task(task_id))
                except NotFound:
                    return "GONE"

            wait_for(gone, lambda s: s == "GONE", timeout=remaining(deadline), what=f"deleting task {task_id}")
        except NotFound:
            return

    def _outputs(self, detail: dict[str, Any]) -> dict[str, Any]:
        detail = scrub(detail)
        return {
            "training_task_id": str(detail.get("id")),
            "status": _status(detail),
            "created_time": detail.get("createdTime"),
            "start_time": detail.get("startTime"),
            "end_time": detail.get("endTime") or detail.get("finishTime"),
            "reason": detail.get("reason") or None,
        }


def _status(detail: dict[str, Any]) -> str:
    return str(detail.get("status") or "UNKNOWN").upper()


class TrainingJob(MltrainResource, module="alaya", name="TrainingJob"):
    """An Alaya NeW distributed training task.

    Arguments are the fields of TrainingJobSpec; outputs those of TrainingJobOutputs (see schema.json).
    """

    _provider_type = TrainingJobProvider
