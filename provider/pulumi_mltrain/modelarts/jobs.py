"""A ModelArts training job's primitives as functions of the project's client and its answers: those of
`training_jobs.JobAPI`, which `JobCalls` gives the lifecycles (`training_job.py` names this module), and
its outputs, its metric gate and its kept record's tags.

A job that has ended is not terminated (ModelArts.2796: not in Creating, Pending or Running); a
terminate refused because the status changed meanwhile (2878), and a DELETE refused in the job's
status (409), make the removal read the job and wait: the documents do not say whether a job may be
deleted while it terminates.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from contextlib import suppress
from typing import Any

from .. import deadline
from .. import spec as specs
from ..answers import from_epoch_ms
from ..errors import ApiError, MltrainError
from ..lifecycle.protocol import Busy, Kept, MarkedRun, Named, Outs, Stop
from ..ownership import Mark
from ..waiter import look_for
from .catalog import flavors, job_costs, metrics_summary
from .job_spec import TrainingJobSpec
from .logs import failure_tail
from .models import SuccessCriterion
from .tags import as_map, mark_in, tag_value
from .wire import contract
from .wire.client import ModelArtsClient

Job = dict[str, Any]
LOG_LINES, LOG_WIDTH, LOG_EVERY = 3, 200, 10.0
# How long a success_criteria check looks for metrics that are not ready yet (ModelArts.2777) after the job
# Completed, at most (never past the create deadline).
METRICS_GRACE = 60.0


def stop(api: ModelArtsClient, object_id: str) -> Stop:
    try:
        answer = api.terminate_job(object_id)
    except ApiError as err:
        if err.code == contract.CANNOT_TERMINATE:
            return Stop.ENDED
        if err.code == contract.STATUS_CHANGED:
            return Stop.CHANGED
        raise
    return Stop.ENDED if answer is not None and phase(answer) in contract.SETTLED else Stop.STOPPING

def delete(api: ModelArtsClient, object_id: str) -> None:
    try:
        api.delete_job(object_id)
    except ApiError as err:
        if type(err) is ApiError and err.http_status == 409:
            raise Busy(str(err)) from None
        raise


def named(api: ModelArtsClient, name: str) -> list[Named]:
    """Jobs of the name (one at most: ModelArts names are unique), with their marks (`owner_of`)."""
    return [Named(job_id, owner_of(api, job_id, tags), record=contract.RECORD_KEPT in as_map(tags))
            for job_id in map(id_of, api.find_jobs(name)) for tags in [api.job_tags(job_id)]]


def owner_of(api: ModelArtsClient, job_id: str, tags: list[dict[str, Any]] | None = None) -> Mark | None:
    """The mark of the job's tags (since 0.2), else of its annotations (0.1; only a detail that returns
    them shows it); `tags`: the job's, when already read."""
    return mark_in(api.job_tags(job_id) if tags is None else tags) or mark_in(
        (api.job(job_id).get("metadata") or {}).get("annotations"))


def get(api: ModelArtsClient, job_id: str) -> Job:
    return api.job(job_id)


def listing(api: ModelArtsClient, name: str) -> list[tuple[str, str]]:
    return [(id_of(job), phase(job)) for job in api.find_jobs(name)]


def settled(state: str) -> bool:
    return state not in contract.TERMINABLE and state != contract.TERMINATING


def records(api: ModelArtsClient, owner: Mark, name: str) -> list[Kept]:
    """The kept records of `owner` among the jobs whose names the runs of `name` have (`Mark.name_stem`)."""
    out: list[Kept] = []
    for row in api.search_jobs(owner.name_stem(name)):
        tags = api.job_tags(id_of(row))
        values = as_map(tags)
        if mark_in(tags) == owner and contract.RECORD_KEPT in values:
            reason, by = values.get(contract.RECORD_REASON) or None, values.get(contract.RECORD_REPLACED_BY) or None
            out.append(Kept(id_of(row), name_of(row), phase(row), created_at(row), reason, by))
    return out


def keep(api: ModelArtsClient, job_id: str, reason: str | None) -> None:
    """Mark an ended job as a kept record: when, and its run_reason (the owner mark stays)."""
    tags = [{"key": contract.RECORD_KEPT, "value": str(int(time.time()))}]
    if reason:
        tags.append({"key": contract.RECORD_REASON, "value": tag_value(reason)})
    api.tag_job(job_id, tags)

def marked(api: ModelArtsClient, recorded: Collection[str], keep: Callable[[str, Mark], bool],
           now: float, *, full: bool = False) -> list[MarkedRun]:
    """The project's marked jobs that `keep` accepts. ModelArts' answers carry no price: no cost. `full`:
    what a run history shows too (the job's detail and its first task's metrics: two calls a job)."""
    out: list[MarkedRun] = []
    for row in api.search_jobs():
        metadata, job_id = row.get("metadata") or {}, id_of(row)
        if job_id in recorded:
            continue
        # Tags since 0.2; 0.1.x kept the mark in the annotations.
        tags = api.job_tags(job_id)
        owner = mark_in(tags) or mark_in(metadata.get("annotations"))
        if owner is None or not keep(job_id, owner):
            continue
        values = as_map(tags)
        out.append(MarkedRun(job_id, metadata.get("name"), owner, phase(row), phase(row) in contract.TERMINABLE,
                             created_at(row), None, record=contract.RECORD_KEPT in values,
                             **(history_facts(api, job_id, values) if full else {})))
    return out


def history_facts(api: ModelArtsClient, job_id: str, tags: dict[str, str]) -> dict[str, Any]:
    """What `mltrain-runs history` shows of a job besides its listing: its run_reason and successor (the
    record tags), times, GPUs (the flavor list), final metrics (its first task's) and where its logs are;
    only the tags' part for a job that cannot be read (gone meanwhile)."""
    said = {"reason": tags.get(contract.RECORD_REASON) or None,
            "replaced_by": tags.get(contract.RECORD_REPLACED_BY) or None,
            "resumed_from": tags.get(contract.RESUMED_FROM_TAG) or None}
    try:
        job = api.job(job_id)
    except MltrainError:
        return said
    spec = job.get("spec") or {}
    started, ended = (None if ms is None else ms / 1000 for ms in _span(job))
    resource = spec.get("resource") or {}
    gpus = None
    if resource.get("flavor_id"):
        with suppress(MltrainError):
            counted = job_costs(flavors(api), str(resource["flavor_id"]), int(resource.get("node_count") or 1))
            gpus = counted["gpu_count"] if isinstance(counted.get("gpu_count"), int) else None
    final = outputs(api, job)["metrics_summary"]
    exported = spec.get("log_export_path") or {}
    path = exported.get("obs_url") if isinstance(exported, dict) else None
    logs = f"obs:/{path}" if path else f"ModelArts (modelarts.getTrainingJobLogs {job_id})"
    return {**said, "started": started, "ended": ended, "gpus": gpus, "final_metrics": final, "logs": logs}


def ended(api: ModelArtsClient, spec: TrainingJobSpec, object_id: str, remote: Job) -> tuple[str, str]:
    logs = f"; logs were exported to obs:/{spec.log_export_path}" if spec.log_export_path else ""
    return (reason(remote) or "no reason given") + logs, failure_tail(api, object_id, tasks_of(remote))

def gate(api: ModelArtsClient, spec: TrainingJobSpec, object_id: str, remote: Job,
         recorded: Outs) -> tuple[Outs, str | None]:
    """success_criteria against the final metrics: for the metrics API's, the latest sample with data of
    each metric of the first task (the read `recorded` made, else one looked for within METRICS_GRACE); for
    a custom metric, the latest sample AOM holds of the job's series (`custom_finals`)."""
    criteria: list[SuccessCriterion] = spec.success_criteria or []
    if not criteria:
        return {}, None
    tasks = tasks_of(remote)
    summary = recorded.get("metrics_summary")
    seen: dict[str, float] = dict(summary) if isinstance(summary, dict) else {}
    problem = "every sample is -1"
    if not tasks:
        problem = "the job reports no task"
    elif not seen and any(not c.custom for c in criteria):
        try:
            grace = deadline.operation().within(METRICS_GRACE)
            samples = look_for(lambda: api.metrics(object_id, tasks[0]), until=grace)
        except MltrainError as err:
            samples, problem = None, f"its metrics could not be read: {err}"
        else:
            if samples is None:
                problem = f"ModelArts had no metrics ready within {grace.seconds:.0f}s"
        seen = metrics_summary(samples)
    api_metrics = dict(seen)
    custom, custom_problem = custom_finals(api, object_id, remote, sorted({c.metric for c in criteria if c.custom}))
    seen.update(custom)
    misses = [f"{c.metric} was {seen[c.metric]:g}, the criterion is {c.words()}" if c.metric in seen else
              f"{c.metric} has no data ({custom_problem if c.custom else problem}); the criterion is {c.words()}"
              for c in criteria if c.metric not in seen or not c.holds(seen[c.metric])]
    outs: Outs = {"final_metrics": seen or None, "success_criteria_met": not misses}
    if api_metrics:
        outs["metrics_summary"] = api_metrics
    task = f" of task {tasks[0]}" if tasks and any(not c.custom for c in criteria) else ""
    why = f"Completed but missed its success_criteria (final metrics{task}): {'; '.join(misses)}"
    return outs, why if misses else None


def custom_finals(api: ModelArtsClient, object_id: str, job: Job, names: list[str]) -> tuple[dict[str, float], str]:
    """The latest AOM sample of each custom metric in `names` over the job's run (from its start, or its
    creation, to its end and a minute more), and the words for a metric that has none."""
    if not names:
        return {}, ""
    status = job.get("status") or {}
    started = _ms(status.get("start_time")) or _ms((job.get("metadata") or {}).get("create_time"))
    if started is None:
        return {}, "the job reports no start time to read AOM from"
    start, end = started / 1000, (started + (_ms(status.get("duration")) or 0)) / 1000 + contract.AOM_STEP
    out: dict[str, float] = {}
    try:
        for name in names:
            value = api.custom_metric(object_id, name, start, end)
            if value is not None:
                out[name] = value
    except MltrainError as err:
        return out, f"AOM could not be read: {err}"
    return out, "AOM holds no sample of it for this job: does its custom_metrics collection report it?"


def models(api: ModelArtsClient, job_id: str, say: Callable[[str], None] = lambda _: None) -> Outs:
    """A completed fine-tune job's model: the final artifact's ID (the trained model) and, once it was
    published, the model asset's ID. Empty when there is none yet or the artifacts cannot be read (said)."""
    try:
        rows = api.ft_artifacts(job_id)
    except MltrainError as err:
        say(f"job {job_id}: its fine-tune artifacts could not be read: {err}")
        return {}
    finals = [r for r in rows if r.get("artifact_type") == contract.FINAL_ARTIFACT]
    final = next((r for r in finals if r.get("is_best")), finals[0] if finals else None)
    if final is None or not final.get("artifact_id"):
        return {}
    return {"model_id": str(final["artifact_id"]), "model_asset_id": str(final.get("asset_id") or "") or None}


def notes(api: ModelArtsClient, spec: TrainingJobSpec, object_id: str) -> Callable[[Job], str | None]:
    """The newest log lines of the job's first task while it runs: at most LOG_LINES lines not said
    before (each cut to LOG_WIDTH characters), looked up at most every LOG_EVERY seconds (one log call),
    so a long wait shows the training's progress, not just its phase. A log that cannot be read is skipped."""
    said: list[str] = []
    next_look = [0.0]

    def note(job: Job) -> str | None:
        tasks = tasks_of(job)
        if phase(job) != contract.RUNNING or not tasks or time.monotonic() < next_look[0]:
            return None
        next_look[0] = time.monotonic() + LOG_EVERY
        try:
            text = api.log_preview(object_id, tasks[0]) or ""
        except MltrainError:
            return None
        lines = [line.strip()[:LOG_WIDTH] for line in text.splitlines() if line.strip()][-LOG_LINES:]
        new = [line for line in lines if line not in said]
        said[:] = lines
        return f"log of {tasks[0]}: " + " | ".join(new) if new else None

    return note

def outputs(api: ModelArtsClient, job: Job, *, metrics: bool = True, fine_tune: bool = False,
            say: Callable[[str], None] = lambda _: None) -> Outs:
    """The recorded outputs of `job`, with the metrics of its first task (`metrics`: once it has any) and,
    for a fine-tune job (`fine_tune`) that has Completed, its model's IDs; metrics and artifacts that cannot
    be read are said (`say`) and left out."""
    status, metadata = job.get("status") or {}, job.get("metadata") or {}
    job_id, now, tasks = id_of(job), phase(job), tasks_of(job)
    start, end = _span(job)
    out: Outs = {
        "job_id": job_id,
        "phase": now,
        "secondary_phase": status.get("secondary_phase"),
        "duration_ms": status.get("duration"),
        "start_time": from_epoch_ms(start),
        "end_time": from_epoch_ms(end),
        "task_statuses": [{"task": str(row.get("task") or ""), "exit_code": row.get("exit_code"),
                           "message": row.get("message") or None}
                          for row in status.get("task_statuses") or [] if isinstance(row, dict)] or None,
        "tasks": tasks,
        "create_time": metadata.get("create_time"),
        "reason": (reason(job) or None) if now in contract.FAILURES else None,
        "metrics_summary": None,
    }
    if metrics and tasks and now != contract.CREATING:
        # Extras: a refresh must not fail because logs or metrics are not there (yet).
        try:
            out["metrics_summary"] = metrics_summary(api.metrics(job_id, tasks[0])) or None
        except MltrainError as err:
            say(f"job {job_id}: logs/metrics not available: {err}")
    if fine_tune and now == contract.COMPLETED:
        out.update(models(api, job_id, say))
    return out


def _ms(value: Any) -> float | None:
    """A moment or a duration in ModelArts' milliseconds; None when absent or 0 (a job not started yet)."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else None


def _span(job: Job) -> tuple[float | None, float | None]:
    """When the job started and, once it has ended, stopped, in epoch milliseconds: the end is derived as
    start + duration, since ModelArts reports no end time."""
    status = job.get("status") or {}
    start, duration = _ms(status.get("start_time")), status.get("duration")
    if isinstance(duration, bool) or not isinstance(duration, int | float) or phase(job) not in contract.SETTLED:
        return start, None
    return start, None if start is None else start + duration


def has_started(job: Job) -> bool:
    return bool(from_epoch_ms((job.get("status") or {}).get("start_time")))


def created_at(job: Job) -> float | None:
    created = _ms((job.get("metadata") or {}).get("create_time"))
    return None if created is None else created / 1000


def id_of(job: Job) -> str:
    return str((job.get("metadata") or {}).get("id"))


def tasks_of(job: Job) -> list[str]:
    return [str(t) for t in (job.get("status") or {}).get("tasks") or []]


def phase(job: Job) -> str:
    return str((job.get("status") or {}).get("phase") or "Unknown")


state_of = phase


def name_of(job: Job) -> str:
    return str((job.get("metadata") or {}).get("name") or "")


def reason(job: Job) -> str:
    """The platform's words for why a job stopped: task messages, else the status reason."""
    status = job.get("status") or {}
    messages = []
    for row in status.get("task_statuses") or []:
        if isinstance(row, dict) and row.get("message"):
            code, message = row.get("exit_code"), str(row["message"])
            suffix = f" (exit code {code})" if code not in (None, 0) and f"code {code}" not in message else ""
            messages.append(f"{row.get('task', 'task')}: {message}{suffix}")
    if messages:
        return "; ".join(dict.fromkeys(messages))
    text = status.get("reason") or ""
    secondary = status.get("secondary_phase")
    if not text and secondary and secondary != status.get("phase"):
        text = f"secondary phase {secondary}"
    return str(text)


def without_checkpoint(job: Job, spec: TrainingJobSpec) -> Job:
    """The job as its declaration reads it: the checkpoint channel the create added to algorithm.outputs
    is the `checkpoint` input's, not one of the declared `outputs`."""
    algorithm = job.get("algorithm")
    if spec.checkpoint is None or not isinstance(algorithm, dict) or not isinstance(algorithm.get("outputs"), list):
        return job
    kept = [o for o in algorithm["outputs"] if not (isinstance(o, dict) and o.get("name") == spec.checkpoint.name)]
    return {**job, "algorithm": {**algorithm, "outputs": kept}}


def with_checkpoint(body: dict[str, Any], spec: TrainingJobSpec, prefetch: bool) -> dict[str, Any]:
    """The create body with the checkpoint channel among algorithm.outputs, predownloaded when `prefetch`
    (a new run that resumes; checkpoints.py)."""
    body.pop("checkpoint", None)
    if spec.checkpoint is not None:
        algorithm = body.setdefault("algorithm", {})
        algorithm["outputs"] = [*algorithm.get("outputs", []), spec.checkpoint.channel(prefetch)]
    return body


def accept(api: ModelArtsClient, job_id: str, spec: TrainingJobSpec) -> None:
    """A platform job for `spec`: a differing description is updated, anything else refused."""
    job = without_checkpoint({**api.job(job_id), "tags": api.job_tags(job_id)}, spec)
    diffs = specs.differing(spec, specs.from_wire(type(spec), job, spec))
    fixable = diffs.pop("description", None)
    diffs.pop("tags", None)  # written by `mark`
    if diffs:
        raise MltrainError(f"cannot adopt training job {job_id} ({name_of(job)!r}): it differs from the "
                           "declared inputs: " + "; ".join(diffs.values())
                           + ". Delete it, choose another name, or change the inputs to match")
    if fixable:
        api.update_job_description(job_id, spec.description or "")
