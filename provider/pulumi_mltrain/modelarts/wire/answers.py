"""Response models of the Huawei IAM and ModelArts v2 answers the clients read (shared/api.md Part B).

Fields the provider reads are typed (required where it cannot go on without them: a job's
metadata.id and status.phase, an algorithm's metadata.id); the rest pass through (extra="allow").
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictFloat, StrictInt, StrictStr

from ...answers import Answer

Number = StrictInt | StrictFloat


class Metadata(Answer):
    id: StrictStr
    name: StrictStr | None = None
    description: StrictStr | None = None
    create_time: Number | None = None
    update_time: Number | None = None


class TaskStatus(Answer):
    task: StrictStr | None = None
    exit_code: StrictInt | None = None
    message: StrictStr | None = None


class JobStatus(Answer):
    phase: StrictStr
    secondary_phase: StrictStr | None = None
    duration: Number | None = None
    reason: StrictStr | None = None
    tasks: list[StrictStr] | None = None
    task_statuses: list[TaskStatus] | None = None


class JobRow(Answer):
    """An item of a job search: the look-up by name reads metadata.id and metadata.name."""

    metadata: Metadata


class Job(JobRow):
    """A training job (create, get)."""

    status: JobStatus


class JobPage(Answer):
    """POST training-job-searches."""

    total: StrictInt | None = None
    items: list[JobRow]


class Engine(Answer):
    engine_id: StrictStr | None = None
    engine_name: StrictStr | None = None
    engine_version: StrictStr | None = None
    image_url: StrictStr | None = None


class JobConfig(Answer):
    engine: Engine | None = None


class Algorithm(Answer):
    """An algorithm (create, get, update, and the items of the algorithm list)."""

    metadata: Metadata
    job_config: JobConfig | None = None


class AlgorithmPage(Answer):
    total: StrictInt | None = None
    items: list[Algorithm]


class Flavor(Answer):
    flavor_id: StrictStr
    flavor_name: StrictStr | None = None
    flavor_type: StrictStr | None = None
    max_num: StrictInt | StrictStr | None = None


class FlavorList(Answer):
    flavors: list[Flavor]


class EngineRow(Engine):
    engine_id: StrictStr


class EngineList(Answer):
    items: list[EngineRow]


class Metric(Answer):
    metric: StrictStr
    value: list[Number | None] = Field(default_factory=list)


class Metrics(Answer):
    metrics: list[Metric]


class FtArtifact(Answer):
    artifact_type: StrictStr | None = None
    is_best: bool | None = None
    artifact_id: StrictStr | None = None
    asset_id: StrictStr | None = None


class FtArtifacts(Answer):
    """GET …/training-jobs/{id}/ft-artifacts (ListFtArtifacts)."""

    artifact_info: list[FtArtifact] = Field(default_factory=list)


class PromSeries(Answer):
    values: list[tuple[Number, float]] = Field(default_factory=list)  # Prometheus sends "1.5", "NaN"


class PromMatrix(Answer):
    result: list[PromSeries] = Field(default_factory=list)


class PromAnswer(Answer):
    """AOM's PromQL range query: Prometheus' {status, data: {resultType: matrix, result}}."""

    status: Literal["success"]  # an error is answered with an HTTP error status
    data: PromMatrix | None = None


# ----- IAM -----------------------------------------------------------------------------------------
class Project(Answer):
    id: StrictStr | None = None


class Token(Answer):
    expires_at: StrictStr | None = None
    issued_at: StrictStr | None = None
    project: Project | None = None


class TokenAnswer(Answer):
    """POST /v3/auth/tokens (201): the token itself is in the X-Subject-Token header."""

    token: Token


class LogPreview(Answer):
    """GET …/tasks/{task}/logs/preview: the latest part of a task's log."""

    content: StrictStr | None = None


class Event(Answer):
    time: StrictStr | None = None
    level: StrictStr | None = None
    source: StrictStr | None = None
    message: StrictStr | None = None


class EventPage(Answer):
    """GET …/training-jobs/{id}/events (shape adopted in contract.JOB_EVENTS)."""

    events: list[Event]
