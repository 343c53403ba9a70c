"""ModelArts training-job phases on the clock (api.md B.3), and the status/metrics/log views.

Creating → Pending → Running → Completed | Failed | Abnormal (by name regex);
terminate from Creating/Pending/Running → Terminating → Terminated. DELETE keeps the job visible,
phase unchanged, for ``delete_delay`` seconds, then it is gone.
"""

from __future__ import annotations

import hashlib
import math
import time
import uuid
import zlib
from typing import Any

from .. import defaults as d
from ..settings import EmulatorSettings, name_matches
from . import contract as mc
from .records import TrainingJob

Json = dict[str, Any]

TERMINABLE = mc.TERMINABLE
SECONDARY = {d.PHASE_PENDING: "Queuing", d.PHASE_ABNORMAL: "Unknown"}


def _next(job: TrainingJob, settings: EmulatorSettings) -> tuple[float, str, str] | None:
    step, since, name = settings.modelarts_phase_delay, job.phase_since, job.document["metadata"]["name"]
    if job.phase == d.PHASE_CREATING:
        return since + step, d.PHASE_PENDING, ""
    if job.phase == d.PHASE_PENDING:
        queued = settings.modelarts_pending_seconds
        return since + (step if queued is None else queued), d.PHASE_RUNNING, ""
    if job.phase == d.PHASE_RUNNING:
        end = since + settings.modelarts_run_seconds
        if name_matches(settings.modelarts_fail_names, name):
            return end, d.PHASE_FAILED, "emulated failure: worker-0 exited with code 1"
        if name_matches(settings.modelarts_abnormal_names, name):
            return end, d.PHASE_ABNORMAL, "emulated fault: worker-0 lost contact with the node"
        return end, d.PHASE_COMPLETED, ""
    if job.phase == d.PHASE_TERMINATING:
        return since + step, d.PHASE_TERMINATED, "terminated by user"
    return None


def enter(job: TrainingJob, phase: str, at: float, reason: str = "") -> None:
    if phase == d.PHASE_RUNNING:
        job.start_at = at
    if phase in mc.ENDED:
        job.end_at = at
    job.phase, job.phase_since, job.reason = phase, at, reason


def job_due(job: TrainingJob, settings: EmulatorSettings) -> float | None:
    """When the clock next changes this job (a phase or its removal), if ever."""
    step = _next(job, settings)
    times = [step[0]] if step is not None else []
    if job.deleting_since is not None:
        times.append(job.deleting_since + settings.delete_delay)
    return min(times, default=None)


def advance_job(job: TrainingJob, settings: EmulatorSettings, now: float) -> bool:
    """Move ``job`` to ``now``; True when its deletion has completed (the caller drops it)."""
    if job.deleting_since is not None and job.deleting_since + settings.delete_delay <= now:
        return True
    while (step := _next(job, settings)) is not None and step[0] <= now:
        enter(job, step[1], step[0], step[2])
    return False


def tasks_of(job: TrainingJob) -> list[str]:
    return [f"worker-{i}" for i in range(job.document["spec"]["resource"]["node_count"])]


def _ms(at: float | None) -> int:
    return 0 if at is None else int(at * 1000)


# What the real job detail and search leave out, though the reference documents them and a create may
# send them: Huawei's Terraform provider (huaweicloud_modelarts_training_job, "Import") tells its users to
# ignore_changes these, since the API response does not contain them (shared/api.md B.6 #8).
NOT_RETURNED = (("metadata", "annotations"), ("algorithm", "inputs"), ("spec", "output_model"),
                ("spec", "asset_model"), ("spec", "asset_id"), ("train_type",), ("ftjob_config",))


def job_view(job: TrainingJob, now: float, *, full: bool = True) -> Json:
    """A job as ModelArts answers it; `full=False` (the default of the emulator's settings, as the real
    platform answers) leaves out NOT_RETURNED."""
    tasks = tasks_of(job)
    running_until = job.end_at if job.end_at is not None else now
    exit_code = {d.PHASE_COMPLETED: 0, d.PHASE_FAILED: 1, d.PHASE_ABNORMAL: -1, d.PHASE_TERMINATED: 137}
    status: Json = {
        "phase": job.phase,
        "secondary_phase": SECONDARY.get(job.phase, job.phase),
        "duration": 0 if job.start_at is None else _ms(running_until) - _ms(job.start_at),
        "start_time": _ms(job.start_at),
        "node_count_metrics": None if job.start_at is None else [[_ms(job.start_at), len(tasks)]],
        "tasks": tasks,
        "task_statuses": [
            {"task": task, "exit_code": exit_code[job.phase], "message": job.reason}
            for task in tasks if job.phase in exit_code
        ],
        "reason": job.reason,
    }
    doc = job.document
    view: Json = {"kind": doc["kind"], "metadata": doc["metadata"], "status": status,
                  **{k: v for k, v in doc.items() if k not in ("kind", "metadata")}}
    if not full:
        for path in NOT_RETURNED:
            view = _without(view, path)
    return view


def _without(data: Json, path: tuple[str, ...]) -> Json:
    """A copy of `data` without the key at `path` (the stored document is never changed)."""
    head, *rest = path
    if head not in data:
        return data
    if not rest:
        return {k: v for k, v in data.items() if k != head}
    inner = data[head]
    return {**data, head: _without(inner, tuple(rest))} if isinstance(inner, dict) else data


def _sample(job_id: str, task: str, metric: str, minute: int, low: float, high: float) -> float:
    """A stable pseudo-random reading, so two reads of the same minute agree."""
    seed = zlib.crc32(f"{job_id}/{task}/{metric}/{minute}".encode())
    return round(low + (seed % 10_000) / 10_000 * (high - low), 3)


def metrics(job: TrainingJob, task: str, now: float, settings: EmulatorSettings) -> Json:
    """One sample per minute since creation (at most 60); -1 where there is no data yet. A job whose name
    matches a pattern of `modelarts_final_metrics` answers those values as its latest sample once it has
    started (all its tasks alike)."""
    until = job.end_at if job.end_at is not None else now
    count = min(60, max(1, math.floor((until - job.created_at) / 60) + 1))
    times = [job.created_at + 60 * i for i in range(count - 1)] + [until]
    gpu = job.document["spec"]["resource"]["flavor_detail"]["flavor_type"] == "GPU"
    ranges = {"cpuUsage": (20.0, 45.0), "memUsage": (0.5, 0.8)}
    if gpu:
        ranges |= {"gpuUtil": (60.0, 99.0), "gpuMemUsage": (0.4, 0.9)}
    name = job.document["metadata"]["name"]
    fixed = next((v for p, v in settings.modelarts_final_metrics.items() if name_matches(p, name)), {})
    result: list[Json] = []
    for metric in mc.METRICS:
        values: list[float] = []
        for minute, at in enumerate(times):
            if metric not in ranges or job.start_at is None or at < job.start_at:
                values.append(mc.METRIC_NO_DATA)
            else:
                values.append(_sample(job.id, task, metric, minute, *ranges[metric]))
        if metric in fixed and job.start_at is not None:
            values[-1] = fixed[metric]
        result.append({"metric": metric, "value": values})
    return {"metrics": result}


def _samples(job: TrainingJob, until: float) -> list[float]:
    """The times of a job's once-a-minute collection: from its start to ``until``, the last one at ``until``."""
    assert job.start_at is not None
    count = max(1, math.floor((until - job.start_at) / 60) + 1)
    return [job.start_at + 60 * i for i in range(count - 1)] + [until]


def custom_series(job: TrainingJob, metric: str, now: float, settings: EmulatorSettings) -> list[Json]:
    """The AOM series of a custom metric of ``job``, one per task, as Prometheus range data ``{metric:
    {labels}, values: [[seconds, "value"]]}``: only a job that declares ``spec.custom_metrics`` and has
    started has any, and only for the metrics ``modelarts_custom_metrics`` sets for its name (the value is the
    latest sample; earlier ones fall towards it, like a loss). The labels: ``__name__``, the job's ID under
    ``AOM_JOB_LABEL`` and the task under ``task_name`` (assumed, like the job label)."""
    if not job.document["spec"].get("custom_metrics") or job.start_at is None:
        return []
    name = job.document["metadata"]["name"]
    final = next((v for p, v in settings.modelarts_custom_metrics.items() if name_matches(p, name)), {}).get(metric)
    if final is None:
        return []
    times = _samples(job, job.end_at if job.end_at is not None else now)
    values = [final * (1 + (len(times) - 1 - i) / len(times)) for i in range(len(times))]
    return [{"metric": {"__name__": metric, mc.AOM_JOB_LABEL: job.id, "task_name": task},
             "values": [[round(at, 3), f"{value:.6g}"] for at, value in zip(times, values, strict=True)]}
            for task in tasks_of(job)]


def ft_artifacts(job: TrainingJob) -> list[Json]:
    """A fine-tune job's artifacts (ListFtArtifacts): once it has Completed, its final artifact, whose
    artifact_id is the trained model's ID and, when the job declared spec.asset_model, asset_id and asset_name
    the model asset it was published as. IDs are derived from the job's, so every read agrees. The publishing
    status values are not documented: "published" / "unpublished" are the emulator's."""
    doc = job.document
    if not doc.get("train_type") or job.phase != d.PHASE_COMPLETED:
        return []
    asset = doc["spec"].get("asset_model")
    steps = 0 if job.start_at is None or job.end_at is None else max(1, math.floor(job.end_at - job.start_at))
    return [{"artifact_type": mc.FINAL_ARTIFACT, "is_best": True,
             "artifact_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"modelarts-model/{job.id}")),
             "continue_train_nums": 0,
             "asset_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"modelarts-asset/{job.id}")) if asset else "",
             "asset_name": asset["name"] if asset else "", "status": "published" if asset else "unpublished",
             "epoch": 1, "steps": steps, "loss": _sample(job.id, "worker-0", "loss", steps, 0.1, 2.5),
             "create_time": _ms(job.end_at)}]


def log_url(job: TrainingJob, task: str, now: float) -> str:
    expires = int(now) + 3600
    signature = hashlib.sha256(f"{job.id}/{task}/{expires}".encode()).hexdigest()[:28]
    return f"https://modelarts-emulator.obs/{job.id}/{task}.log?Expires={expires}&Signature={signature}"


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def log_lines(job: TrainingJob, task: str, now: float) -> list[str]:
    """A task's log so far: one line per emulated second of running (at most 200), then how it ended.
    Each task writes its own lines, so a 2-node job shows worker-0 and worker-1 apart."""
    lines = [f"[ModelArts Service Log] {task} scheduled on node {task.rsplit('-', 1)[-1]}"]
    if job.start_at is None:
        return lines
    until = job.end_at if job.end_at is not None else now
    steps = min(200, max(1, math.floor(until - job.start_at) + 1))
    lines += [f"[{task}] step {i} loss {_sample(job.id, task, 'loss', i, 0.1, 2.5)}" for i in range(steps)]
    if job.phase == d.PHASE_COMPLETED:
        lines.append(f"[ModelArts Service Log] {task} training finished, exit with 0")
    elif job.phase in (d.PHASE_FAILED, d.PHASE_ABNORMAL):
        lines += ["Traceback (most recent call last):", f"RuntimeError: {job.reason or 'training failed'}",
                  f"[ModelArts Service Log] {task} exit with 1"]
    elif job.phase == d.PHASE_TERMINATED:
        lines.append(f"[ModelArts Service Log] {task} terminated by user, exit with 137")
    return lines


def log_preview(job: TrainingJob, task: str, now: float) -> Json:
    """The preview answer (ShowTrainingJobLogsPreview): {content, current_size, full_size}."""
    content = "\n".join(log_lines(job, task, now)) + "\n"
    size = len(content.encode())
    return {"content": content, "current_size": size, "full_size": size}


def events(job: TrainingJob) -> list[Json]:
    """The job's events, oldest first: created, running, and how it ended."""
    out = [{"time": _iso(job.created_at), "level": "Info", "source": "Job",
            "message": f"Training job {job.document['metadata']['name']} created"}]
    if job.start_at is not None:
        out.append({"time": _iso(job.start_at), "level": "Info", "source": "Job",
                    "message": f"All {len(tasks_of(job))} tasks are running"})
    if job.end_at is not None:
        bad = job.phase in (d.PHASE_FAILED, d.PHASE_ABNORMAL)
        out.append({"time": _iso(job.end_at), "level": "Error" if bad else "Info", "source": "Job",
                    "message": f"Job {job.phase}" + (f": {job.reason}" if job.reason else "")})
    return out
