"""`alaya.TrainingJob`: an Alaya NeW distributed training task.

Create is asynchronous: the POST answers a resultKey, the subscription result later yields the
real task ID, and only then is the ID recorded. Nothing can be changed in place (the API has no
update call), so every change of a field that shapes the training replaces the task (a new run);
`description` is only recorded (`record`), and fields marked `local` change only the provider's
behaviour.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, SerializationInfo, field_serializer, model_validator

from .. import pending, registry, runs, transport
from .. import spec as specs
from ..answers import from_beijing
from ..errors import AmbiguousOutcome, ApiError, MltrainError, NotFound, RemoteFailure, UnexpectedAnswer
from ..handler import CREATE_ATTEMPTS, ManagedSpec
from ..ownership import Mark, claim, owns
from ..progress import Label, notice
from ..runs import RunReason
from ..transport import remaining
from ..waiter import Backoff, look_for, wait_for
from . import contract
from .base import AlayaHandler
from .catalog import catalog_failures, job_costs, products
from .client import scrub
from .models import NasMount

# The budget of a clean-up that runs after its create failed or ran out of time.
CLEANUP_SECONDS = 120.0
# Statuses a delete is accepted in (the emulator, like the adopted contract, refuses it while a task starts
# or runs); a status this provider does not know (a platform's STOPPING) is waited out.
DELETABLE = contract.TERMINAL | {contract.PAUSED, contract.DELETING}
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


class TrainingJobSpec(ManagedSpec):
    """Inputs of an Alaya NeW distributed training task (the fields of the create call)."""

    absent_inputs: ClassVar[dict[str, str]] = {
        "success_criteria": "is not available on Alaya NeW training jobs: Alaya NeW has no metrics API to "
                            "check it against (metric gates are a ModelArts training job input)"}

    name: str = specs.spec_field(
        description="Task name; when unset, the resource name plus a suffix unique to this stack and resource, "
        "chosen at the first create and kept through renames (aliases).",
        min_length=1, max_length=contract.NAME_MAX)
    product_code: str = specs.spec_field(
        description="Resource configuration (node spec) from the product list, e.g. PRD-TRAIN-1.",
        wire="productCode", min_length=1)
    worker_count: int = specs.spec_field(description="Number of nodes; 1 for a single machine.",
                                         wire="workerCount", ge=contract.WORKER_COUNT[0],
                                         le=contract.WORKER_COUNT[1])
    image: str = specs.spec_field(
        description="Container image, e.g. harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu.", min_length=1)
    create_type: Literal["DIRECT", "COPY", "TEMPLATE"] = specs.spec_field(
        "DIRECT", description="How the task is created; DIRECT for a normal create.", wire="createType")
    description: str | None = specs.spec_field(
        None, description="Task description. Alaya NeW has no update call: a change is recorded in the state "
        "and the task keeps the description it was created with (no new run).", wire="desc",
        max_length=contract.DESC_MAX, on_change="record")
    priority: int = specs.spec_field(3, description="1 (highest) to 3 (lowest, the default).",
                                     ge=contract.PRIORITY[0], le=contract.PRIORITY[1])
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
        "to keep them encrypted in the state.", redact=True)
    enable_auto_retry: bool = specs.spec_field(
        False, description="Retry a failed task automatically; implied by max_retry_count.", wire="enableAutoRetry",
        implied_by="max_retry_count")
    max_retry_count: int | None = specs.spec_field(
        None, description="Retries when enable_auto_retry is on.", wire="maxRetryCount",
        ge=contract.MAX_RETRY_COUNT[0], le=contract.MAX_RETRY_COUNT[1])
    enable_timeout_cancel: bool = specs.spec_field(
        False, description="Cancel the task after timeout_hours; implied by timeout_hours.",
        wire="enableTimeoutCancel", implied_by="timeout_hours")
    timeout_hours: int | None = specs.spec_field(
        None, description="Hours before the task is cancelled when enable_timeout_cancel is on.",
        wire="timeoutHours", ge=contract.TIMEOUT_HOURS[0], le=contract.TIMEOUT_HOURS[1])
    start_command: str | None = specs.spec_field(
        None, description="Entry command; may be a multi-line shell script.", wire="startCommand")
    replace_running: Literal["allow", "refuse"] = specs.spec_field(
        "allow", description="refuse: a preview that would replace (stop, delete and recreate) this task while it "
        "is queued, starting, running or paused fails, naming the fields that force it; allow (the default) "
        "replaces.", on_change="local")
    wait_for: Literal["created", "running", "completed"] = specs.spec_field(
        "created", description="What create waits for: the task ID (created), the RUNNING state (running), or "
        "the end of the training (completed: raise customTimeouts.create to match the training time). A task "
        "that fails or stops first is an error and is deleted.",
        on_change="local")
    stopped: bool = specs.spec_field(
        False, description="true stops the task in place (Alaya NeW's stop call) and waits until it has stopped, "
        "keeping its ID and record; a task that has ended is left as it is. A stopped task is not started again: "
        "false only records it (to run the job again, change its replacement_trigger). A create (a first or new "
        "run) needs false.", on_change="local")
    on_failure: Literal["delete", "keep"] = specs.spec_field(
        "delete", description="A task that fails or stops during the create's wait: delete (the default) rolls it "
        "back; keep leaves it on the platform and in the state with its status and reason, so it can be "
        "inspected, and `pulumi up` still fails; the next `pulumi up` replaces it.", on_change="local")
    max_pending_minutes: float | None = specs.spec_field(
        None, description=pending.description("QUEUED or STARTING"), on_change="local", gt=0,
        allow_inf_nan=False)

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

    @field_serializer("training_type")
    def _as_documented(self, value: str | None, info: SerializationInfo) -> str | None:
        """The wire (by alias) gets the seed field table's spelling; the state keeps the canonical one."""
        return contract.TRAINING_TYPES.get(value, value) if value and info.by_alias else value

    def cross_check(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self.max_retry_count is not None and not self.enable_auto_retry:
            out.append(("max_retry_count", "applies only when enable_auto_retry is true"))
        if self.timeout_hours is not None and not self.enable_timeout_cancel:
            out.append(("timeout_hours", "applies only when enable_timeout_cancel is true"))
        if self.create_type not in contract.CREATE_TYPES_SUPPORTED:
            out.append(("create_type", f"{self.create_type} cannot work: it copies a task or uses a template, "
                                       "and the create call has no field that names the source; use DIRECT"))
        if self.max_pending_minutes is not None and self.wait_for not in contract.REACHED:
            out.append(("max_pending_minutes", f"applies only while create waits for the task to run: "
                                               f"wait_for={self.wait_for!r} does not wait; set wait_for to "
                                               "'running' or 'completed', or unset max_pending_minutes"))
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
            elif key == contract.OWNER_ENV:
                out.append((f"env.{key}", "is reserved: the provider keeps the task's owner mark there"))
        return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


class TrainingJobOutputs(specs.Output):
    training_task_id: str | None = specs.output_field(
        description="The training task ID the platform assigned (the resource ID).", is_id=True)
    status: str | None = specs.output_field(description="Task status at the last create/refresh.",
                                            always=True)
    result_key: str | None = specs.output_field(description="Subscription result key of the create call.")
    created_time: str | None = specs.output_field(description="When the platform created the task.")
    start_time: str | None = specs.output_field(
        description="When the task started running, RFC 3339 in UTC (from the platform's Beijing time).")
    end_time: str | None = specs.output_field(
        description="When the task ended, RFC 3339 in UTC (from the platform's Beijing time).")
    duration_ms: int | None = specs.output_field(
        description="Running time in milliseconds: derived as end_time - start_time once both are known (Alaya "
        "NeW reports no duration).")
    reason: str | None = specs.output_field(description="The platform's reason for the status, if any.")
    gpus_per_node: int | None = specs.output_field(
        description="GPUs per node, from the product list's gpuCount; known at preview (unset without credentials).")
    gpu_count: int | None = specs.output_field(
        description="GPUs of the whole task (gpus_per_node x worker_count); known at preview.")
    cost_per_hour: float | None = specs.output_field(
        description="Estimated cost per hour: the product's price x worker_count, in the platform's currency "
        "(unset when the product's priceUnit is not per hour); known at preview.")
    run_reason: str | None = specs.output_field(description=runs.DESCRIPTION)


COST_OUTPUTS = ("gpus_per_node", "gpu_count", "cost_per_hour")


class TrainingJobHandler(RunReason, AlayaHandler):
    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "training task"
    spec_type: ClassVar[type[ManagedSpec]] = TrainingJobSpec
    output_type: ClassVar[type[specs.Output]] = TrainingJobOutputs
    result_backoff: ClassVar[Backoff] = Backoff(first=0.5, maximum=5.0)

    def _check_remote(self, spec: Any) -> list[tuple[str, str]]:
        if not self.settings.alaya_api_key:
            return []
        refused = self._probe_credentials()
        if refused is not None:
            return refused
        return catalog_failures(self.api(), spec.product_code, spec.storage_mounts)

    def _derived(self, spec: Any) -> dict[str, Any]:
        """GPUs and cost from the (cached) product list, so previews and policies know them; nothing
        without credentials or when the list cannot be read."""
        if not self.settings.alaya_api_key or not getattr(spec, "product_code", None):
            return {}
        try:
            return job_costs(products(self.api()), spec.product_code, int(spec.worker_count or 0))
        except MltrainError as err:
            print(f"[mltrain] GPU and cost outputs skipped: {err}", file=sys.stderr)
            return {}

    def _derived_at_check(self, spec: Any, olds: dict[str, Any] | None) -> dict[str, Any]:
        if olds is not None:
            return {k: olds[k] for k in COST_OUTPUTS if k in olds}
        return self._derived(spec)

    def _last_state(self, olds: dict[str, Any]) -> str | None:
        """The task's status now, looked up by its name, when it is live (a replace would stop it)."""
        name = olds.get("name")
        if not isinstance(name, str) or not name:
            return None
        for row in self.api().find_tasks(name):
            if _status(row) in contract.LIVE:
                return f"{_status(row)} ({row.get('id')})"
        return None

    # ----- create --------------------------------------------------------------------------------
    def _body(self, spec: Any, owner: Mark | None) -> dict[str, Any]:
        body: dict[str, Any] = spec.wire()
        if owner is not None:
            body["env"] = {**body.get("env", {}), contract.OWNER_ENV: owner.text()}
        return body

    def _create(self, spec: Any, owner: Mark | None, deadline: float) -> tuple[str, dict[str, Any]]:
        self._refuse_stopped_run(spec)
        existing = self._existing(spec, owner)
        if existing is not None:
            return existing, self._record_after_wait(spec, existing, deadline, owner, ours=True)
        result_key, resent, adopted = self._submit(spec, owner, deadline)
        if adopted is not None:
            return adopted, self._record_after_wait(spec, adopted, deadline, owner, ours=True)
        try:
            result = wait_for(
                lambda: self._subscription(result_key, spec, owner),
                lambda r: str(r.get("status", "")).upper() != contract.SUB_PROCESSING,
                timeout=remaining(deadline),
                what=f"subscription {result_key} of task {spec.name!r}",
                label=Label.of(self.kind, spec, owner, doing=f"subscription {result_key}"),
                state_of=lambda r: str(r.get("status", "?")),
                backoff=self.result_backoff,
            ).value
        except MltrainError as err:
            raise MltrainError(f"{err}. {self._clean_up_unrecorded(spec, owner)}") from None
        if str(result.get("status", "")).upper() != contract.SUB_SUCCESS:
            raise RemoteFailure(
                f"Alaya NeW could not create the task: {result.get('message') or 'no reason given'} "
                f"(subscription {result_key} ended {result.get('status')}); {self._clean_up_unrecorded(spec, owner)}"
            )
        task_id = str(result.get("trainingTaskId") or result.get("resourceId") or "")
        if not task_id:
            raise RemoteFailure(f"subscription {result_key} succeeded without a trainingTaskId; "
                                f"{self._clean_up_unrecorded(spec, owner)}")
        if resent:
            self._remove_duplicates(spec, owner, task_id, deadline)
        outs = self._record_after_wait(spec, task_id, deadline, owner, ours=True)
        return task_id, {**outs, "result_key": result_key}

    def _subscription(self, result_key: str, spec: Any, owner: Mark | None) -> dict[str, Any]:
        """The subscription result. One that cannot be read (no status, no data) is no proof of
        anything: the task is looked for by its owner mark instead, and recorded when it is there;
        until then the create waits on (its deadline ends the wait and removes what it made)."""
        try:
            return self.api().result(result_key)
        except UnexpectedAnswer as err:
            if owner is None:
                raise
            mine = self._ours(spec, owner)
            if len(mine) == 1:
                notice(f"{err}; task {spec.name!r} found by its owner mark: {mine[0].get('id')}", owner)
                return {"status": contract.SUB_SUCCESS, "trainingTaskId": str(mine[0].get("id"))}
            return {"status": contract.SUB_PROCESSING, "message": str(err)}

    def _submit(self, spec: Any, owner: Mark | None, deadline: float) -> tuple[str, bool, str | None]:
        """POST the create call: (resultKey, whether it was sent more than once, the task found instead).

        An unanswered POST is never repeated blindly: first the task is looked for by its name and
        mark for `ambiguityGrace` seconds; only if it does not appear is the request sent again
        (CREATE_ATTEMPTS in all).
        """
        grace = self.settings.ambiguity_grace
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                return self.api().create_task(self._body(spec, owner)), attempt > 1, None
            except AmbiguousOutcome as err:
                found = look_for(lambda: self._existing(spec, owner), within=grace, deadline=deadline)
                if found is not None:
                    return "", False, found
                if attempt == CREATE_ATTEMPTS:
                    raise MltrainError(
                        f"{err}. No task named {spec.name!r} appeared within {grace:.0f}s. Run `pulumi up` "
                        "again: the provider looks for its own task by name and owner mark before creating, "
                        "so no duplicate is made"
                    ) from None
                notice(f"task {spec.name!r} not found {grace:.0f}s after an unanswered create; "
                       "sending it again", owner)
        raise AssertionError("unreachable")

    def _ours(self, spec: Any, owner: Mark | None) -> list[dict[str, Any]]:
        """Tasks of this name that are this resource's (`ownership.owns`; never anyone else's)."""
        if owner is None:
            return []
        mine = []
        for row in self.api().find_tasks(spec.name):
            detail = self.api().task(str(row.get("id")))
            if owns(owner, _mark(detail), spec.name) and _status(detail) != contract.DELETING:
                mine.append(detail)
        return mine

    def _clean_up_unrecorded(self, spec: Any, owner: Mark | None) -> str:
        """The create was accepted but its task ID cannot be recorded: remove our task if it exists,
        so that the platform and the state agree; otherwise say how the next run adopts it."""
        cleanup = time.monotonic() + CLEANUP_SECONDS
        try:
            with transport.operation_deadline(cleanup, f"cleaning up after task {spec.name!r}", override=True):
                tasks = self._ours(spec, owner)
                for task in tasks:
                    self._remove(str(task.get("id")), cleanup)
        except MltrainError as err:
            return (f"Could not check for the task it may have created ({err}); the next `pulumi up` finds "
                    f"the task named {spec.name!r} that carries this resource's mark and adopts it instead of "
                    "creating another")
        if tasks:
            ids = ", ".join(str(t.get("id")) for t in tasks)
            return f"The task the request had created ({ids}) was deleted, so nothing is left behind"
        return (f"no task was created yet; if one named {spec.name!r} appears later, the next `pulumi up` "
                "adopts it (it carries this resource's mark) instead of creating another")

    def _remove_duplicates(self, spec: Any, owner: Mark | None, task_id: str, deadline: float) -> None:
        """After a resend, a late first request may have made a second task of ours: remove it."""
        for task in self._ours(spec, owner):
            other = str(task.get("id"))
            if other != task_id:
                notice(f"removing {other}, a duplicate of {task_id} from the unanswered first request", owner)
                self._remove(other, deadline)

    def _existing(self, spec: Any, owner: Mark | None) -> str | None:
        """The ID of this resource's own task from an interrupted or timed-out run, to take over; a
        task of the name that is not ours stops the create (see ownership.claim)."""
        rows = [r for r in self.api().find_tasks(spec.name)]
        details = [self.api().task(str(r.get("id"))) for r in rows]
        details = [d for d in details if _status(d) != contract.DELETING]
        if not details:
            return None
        mine = next((d for d in details if owns(owner, _mark(d), spec.name)), None)
        if mine is None:
            claim(self.noun, str(details[0].get("id")), spec.name, _mark(details[0]), owner)
            raise AssertionError("unreachable")
        task_id = str(mine.get("id"))
        self.refuse_take_over_in_replace(task_id)
        self._require_match(spec, task_id, _unmarked(mine))
        notice(f"task {spec.name!r} ({task_id}) from an interrupted run found ({_status(mine)}): taking it over",
               owner)
        return task_id

    # ----- record after wait (see Handler._record_after_wait) -------------------------------------
    def _goal(self, spec: Any) -> tuple[frozenset[str], frozenset[str]] | None:
        target = contract.REACHED.get(spec.wait_for)
        return None if target is None else (target, contract.NEVER)

    def _fetch(self, object_id: str) -> dict[str, Any]:
        return self.api().task(object_id)

    def _state_of(self, remote: dict[str, Any]) -> str:
        return _status(remote)

    def _what(self, spec: Any, object_id: str) -> str:
        return f"task {object_id}"

    def _recorded(self, spec: Any, remote: dict[str, Any]) -> dict[str, Any]:
        return self._outputs(remote)

    def _unread(self, object_id: str) -> dict[str, Any]:
        return {"training_task_id": object_id, "status": "UNKNOWN"}

    def _ended(self, spec: Any, object_id: str, remote: dict[str, Any]) -> tuple[str, str]:
        return str(remote.get("reason") or "no reason"), ""

    pending_states: ClassVar[frozenset[str]] = contract.BEFORE_RUNNING

    def _created_at(self, remote: dict[str, Any]) -> float | None:
        """The end of the second `createdTime` names (it has whole seconds): never cuts the limit short."""
        created = _epoch(remote.get("createdTime"))
        return None if created is None else created + 1.0

    def _has_started(self, remote: dict[str, Any]) -> bool:
        return bool(remote.get("startTime"))

    def _pending_reason(self, remote: dict[str, Any]) -> str:
        return str(remote.get("reason") or "")

    def _notes(self, spec: Any, object_id: str) -> Callable[[dict[str, Any]], str | None]:
        """Said once per wait: Alaya NeW documents no log API, so no log lines can follow."""
        said: list[bool] = []

        def note(task: dict[str, Any]) -> str | None:
            if said or _status(task) not in contract.LIVE:
                return None
            said.append(True)
            return "no log lines: Alaya NeW documents no log API (follow the task in its console)"

        return note

    def _kept(self, spec: Any, object_id: str) -> str:
        return (f"Task {object_id} was NOT deleted and is not lost: it carries this resource's owner mark, so "
                f"the next `pulumi up` finds it, takes it over and waits for it again without creating another "
                f"(or set adopt_id=\"{object_id}\" to adopt it explicitly)")

    def _roll_back(self, spec: Any, task_id: str) -> str:
        """Delete a task whose create fails, under a budget of its own; say what became of it."""
        cleanup = time.monotonic() + CLEANUP_SECONDS
        try:
            with transport.operation_deadline(cleanup, f"deleting failed task {task_id}", override=True):
                self._remove(task_id, cleanup)
        except MltrainError as err:
            return (f"Deleting it failed too ({err}); delete task {task_id} in Alaya NeW, or run `pulumi up` "
                    "again, which finds it by its owner mark and adopts it")
        return "It was deleted so that nothing is left behind"

    def _update(self, object_id: str, old: Any, new: Any, changed: list[str], owner: Mark | None,
                deadline: float) -> dict[str, Any]:
        """Only `record` and `local` fields reach an update (the rest replace): nothing to send, but
        say so, since the platform keeps its first value."""
        if "stopped" in changed and new.stopped:
            label = Label.of(self.kind, new, owner, object_id=object_id, doing="stopping")
            _unless_refused(lambda: self.api().stop_task(object_id))
            self._settle(object_id, deadline, label)
            return self._outputs(self.api().task(object_id))
        if "stopped" in changed:
            notice(f"{self.kind} {new.name!r}: stopped=false recorded; task {object_id} is not started "
                   "again (to run the job again, change its replacement_trigger)", owner)
        recorded = [n for n, m in specs.field_metas(type(new)) if n in changed and m.on_change == "record"]
        if recorded:
            notice(f"{self.kind} {new.name!r}: {', '.join(recorded)} recorded in the state only: Alaya NeW "
                   f"has no update call, so task {object_id} keeps the value it was created with (no new run; "
                   "to run it again, use the replacement_trigger resource option)", owner)
        return {}

    # ----- adopt / read / delete -----------------------------------------------------------------
    def _adopt(self, object_id: str, spec: Any, owner: Mark | None, deadline: float) -> dict[str, Any]:
        return self._matching(object_id, spec, owner, deadline, ours=False)

    def _take_over(self, object_id: str, spec: Any, owner: Mark | None, deadline: float) -> dict[str, Any]:
        return self._matching(object_id, spec, owner, deadline, ours=True)

    def _matching(self, object_id: str, spec: Any, owner: Mark | None, deadline: float, *,
                  ours: bool) -> dict[str, Any]:
        """A task checked against the declaration, then recorded after the wait."""
        self._require_match(spec, object_id, _unmarked(self.api().task(object_id)))
        return self._record_after_wait(spec, object_id, deadline, owner, ours=ours)

    def _read(self, object_id: str, spec: Any) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        detail = self.api().task(object_id)
        if _status(detail) == contract.DELETING:
            return None
        return {**self.derived(spec), **self._outputs(detail)}, _unmarked(detail)

    def _listed(self, object_id: str, spec: Any) -> bool:
        name = getattr(spec, "name", None)
        if not isinstance(name, str) or not name:
            return False
        return any(str(r.get("id")) == object_id for r in self.api().find_tasks(name))

    def _delete(self, object_id: str, spec: Any, deadline: float) -> bool:
        return self._remove(object_id, deadline, Label.of(self.kind, spec, object_id=object_id))

    def _remove(self, task_id: str, deadline: float, label: Label | None = None) -> bool:
        """Stop, delete, and wait until the platform no longer knows the task.

        Three calls for a task that stops at once or has already ended: a stop the platform refuses
        because of the task's status (it ended, is paused or is being deleted) is nothing to do. Only
        when the delete is refused in the task's status (it is still running or stopping) does the
        full path run: read the task, stop it if it is live, wait until it has settled, delete again.
        No ownership check is needed here: the ID comes from this resource's state (or its own create).

        True once the platform accepted the delete and then answered its own not-found: the delete
        proves that the ID and the endpoint address this task, so that answer needs no listing. A
        not-found before the delete was accepted returns False: the caller asks a listing first.
        """
        api = self.api()
        label = label and Label(label.kind, label.name, task_id, label.urn, "deleting")
        try:
            _unless_refused(lambda: api.stop_task(task_id))
            try:
                api.delete_task(task_id)
            except ApiError as err:
                if not _refused(err):
                    raise
                self._settle(task_id, deadline, label and Label(label.kind, label.name, task_id, label.urn,
                                                                "stopping"))
                api.delete_task(task_id)
        except NotFound:
            return False

        def gone() -> str:
            try:
                return _status(api.task(task_id))
            except NotFound:
                return "GONE"

        wait_for(gone, lambda s: s == "GONE", timeout=remaining(deadline), what=f"deleting task {task_id}",
                 label=label)
        return True

    def _settle(self, task_id: str, deadline: float, label: Label | None) -> None:
        """The full path of a delete the platform refused: stop the task if it is live, and wait until
        its status is one a delete is accepted in."""
        api = self.api()
        if _status(api.task(task_id)) in contract.LIVE - {contract.PAUSED}:
            _unless_refused(lambda: api.stop_task(task_id))
        wait_for(lambda: api.task(task_id), lambda d: _status(d) in DELETABLE, timeout=remaining(deadline),
                 what=f"stopping task {task_id}", state_of=_status, label=label)

    def _outputs(self, detail: dict[str, Any]) -> dict[str, Any]:
        detail = scrub(detail)
        return {
            "training_task_id": str(detail.get("id")),
            "status": _status(detail),
            "created_time": detail.get("createdTime"),
            "start_time": from_beijing(detail.get("startTime")),
            "end_time": from_beijing(detail.get("endTime") or detail.get("finishTime")),
            "duration_ms": _duration_ms(detail.get("startTime"), detail.get("endTime") or detail.get("finishTime")),
            "reason": detail.get("reason") or None,
        }


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


def _unless_refused(call: Any) -> None:
    """Make a call whose refusal in the task's status means there is nothing for it to do."""
    try:
        call()
    except ApiError as err:
        if not _refused(err):
            raise


def _mark(detail: dict[str, Any]) -> Mark | None:
    env = detail.get("env")
    return Mark.parse(env.get(contract.OWNER_ENV)) if isinstance(env, dict) else None


def _unmarked(detail: dict[str, Any]) -> dict[str, Any]:
    """The task as its declaration would read it: the owner mark is the provider's, not the user's."""
    env = detail.get("env")
    if not isinstance(env, dict) or contract.OWNER_ENV not in env:
        return detail
    return {**detail, "env": {k: v for k, v in env.items() if k != contract.OWNER_ENV}}


def _status(detail: dict[str, Any]) -> str:
    return str(detail.get("status") or "UNKNOWN").upper()


# `TrainingJobProvider`, the class path states written by 0.1 name: the dynamic provider, built on first use.
__getattr__ = registry.provider_aliases(__name__)
