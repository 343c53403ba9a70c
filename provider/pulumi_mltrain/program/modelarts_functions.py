"""ModelArts look-ups for Pulumi programs: the flavor and engine catalogues (through the provider's
catalogue cache), a job or an algorithm by ID, jobs by name prefix and phase, and a job's recent log
lines (every task) and events.

They run in the program process (preview and up) with the stack's `mltrain:*` config, through the
same client as the provider (imported on first call). Results are plain typed dicts; logs and the
presigned log link never reach the state unless the program exports them.
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..modelarts.logs import job_logs
from ..modelarts.wire import contract
from .calls import output_form, program_call
from .modelarts_function_types import (
    AlgorithmInfo,
    JobEvent,
    JobSummary,
    TaskLog,
    TrainingJobInfo,
    TrainingJobList,
    TrainingJobLogs,
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def job_info(job: dict[str, Any]) -> TrainingJobInfo:
    meta, status, spec = _dict(job.get("metadata")), _dict(job.get("status")), _dict(job.get("spec"))
    resource, algorithm = _dict(spec.get("resource")), _dict(job.get("algorithm"))
    return TrainingJobInfo(
        job_id=str(meta.get("id")), name=meta.get("name"), description=meta.get("description"),
        phase=str(status.get("phase")), secondary_phase=status.get("secondary_phase"),
        tasks=[str(t) for t in status.get("tasks") or []], flavor_id=resource.get("flavor_id"),
        node_count=resource.get("node_count"), algorithm_id=algorithm.get("id"),
        create_time=meta.get("create_time"), reason=status.get("reason"))


def get_training_job(job_id: str) -> TrainingJobInfo:
    """One ModelArts training job by ID (`GET /v2/{project_id}/training-jobs/{id}`): name, phase,
    tasks, flavor, node count, algorithm. Environment values are not returned (they may be secrets)."""
    return job_info(program_call("modelarts", "job", job_id))


def get_training_job_output(job_id: pulumi.Input[str]) -> pulumi.Output[TrainingJobInfo]:
    """`get_training_job` for an Input (e.g. another job's `job_id`)."""
    result: pulumi.Output[TrainingJobInfo] = output_form(get_training_job, job_id)
    return result


def get_algorithm(algorithm_id: str) -> AlgorithmInfo:
    """One ModelArts algorithm by ID (`GET /v2/{project_id}/algorithms/{id}`)."""
    algo = program_call("modelarts", "algorithm", algorithm_id)
    meta, config = _dict(algo.get("metadata")), _dict(algo.get("job_config"))
    return AlgorithmInfo(
        algorithm_id=str(meta.get("id")), name=meta.get("name"), description=meta.get("description"),
        code_dir=config.get("code_dir"), boot_file=config.get("boot_file"),
        engine=config.get("engine") if isinstance(config.get("engine"), dict) else None,
        tags=[t for t in meta.get("tags") or [] if isinstance(t, dict)])


def get_algorithm_output(algorithm_id: pulumi.Input[str]) -> pulumi.Output[AlgorithmInfo]:
    """`get_algorithm` for an Input."""
    result: pulumi.Output[AlgorithmInfo] = output_form(get_algorithm, algorithm_id)
    return result


def list_training_jobs(name_prefix: str = "", phase: str | None = None) -> TrainingJobList:
    """ModelArts training jobs whose name starts with `name_prefix`, optionally only those in
    `phase` (e.g. Running), newest first (`POST /v2/{project_id}/training-job-searches`)."""
    rows = program_call("modelarts", "search_jobs", name_prefix, phase)
    return TrainingJobList(jobs=[
        JobSummary(job_id=str(_dict(r.get("metadata")).get("id")), name=_dict(r.get("metadata")).get("name"),
                   phase=_dict(r.get("status")).get("phase"),
                   create_time=_dict(r.get("metadata")).get("create_time"))
        for r in rows])


def list_training_jobs_output(name_prefix: pulumi.Input[str] = "",
                              phase: pulumi.Input[str | None] = None) -> pulumi.Output[TrainingJobList]:
    """`list_training_jobs` for Inputs."""
    result: pulumi.Output[TrainingJobList] = output_form(list_training_jobs, name_prefix, phase)
    return result


def get_training_job_logs(job_id: str, lines: int = 100) -> TrainingJobLogs:
    """A ModelArts job's recent log lines, per task (every task: worker-0, worker-1, …), from the
    log preview (`GET …/tasks/{task}/logs/preview`), and its latest events (`GET …/events`).

    `lines` bounds each task's lines (newest kept). Tasks whose logs are not ready yet have no
    lines. Nothing here is kept in the state unless the program exports it.
    """
    job = job_info(program_call("modelarts", "job", job_id))
    logs, events = job_logs(lambda task: program_call("modelarts", "log_preview", job_id, task),
                            lambda limit: program_call("modelarts", "events", job_id, limit),
                            job["tasks"], lines, 1 << 20, contract.EVENTS_LIMIT)
    return TrainingJobLogs(job_id=job_id, phase=job["phase"],
                           tasks=[TaskLog(task=task, lines=tail) for task, tail in logs.items()],
                           events=[JobEvent(time=e.get("time"), level=e.get("level"), source=e.get("source"),
                                            message=e.get("message")) for e in events])


def get_training_job_logs_output(job_id: pulumi.Input[str],
                                 lines: pulumi.Input[int] = 100) -> pulumi.Output[TrainingJobLogs]:
    """`get_training_job_logs` for Inputs."""
    result: pulumi.Output[TrainingJobLogs] = output_form(get_training_job_logs, job_id, lines)
    return result


def get_flavors(flavor_type: str | None = None) -> list[dict[str, Any]]:
    """The training flavors ModelArts offers (`GET /v2/{project_id}/training-job-flavors`).

    Runs when the program runs (`pulumi preview` and `pulumi up`), with the stack's `mltrain:*`
    config; returns the API's rows as plain dicts: flavor_id, flavor_name, flavor_type, max_num,
    billing, flavor_info. `flavor_type` filters by CPU, GPU or Ascend.
    """
    rows: list[dict[str, Any]] = program_call("modelarts", "flavors", flavor_type, catalogue=True)
    return rows


def get_engines() -> list[dict[str, Any]]:
    """The AI engines ModelArts offers (`GET /v2/{project_id}/training-job-engines`).

    Runs when the program runs, with the stack's `mltrain:*` config; returns plain dicts:
    engine_id, engine_name, engine_version, image_info{cpu_image_url, gpu_image_url}, tags.
    """
    rows: list[dict[str, Any]] = program_call("modelarts", "engines", catalogue=True)
    return rows
