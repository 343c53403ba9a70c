"""Schema entries of the program-time catalogue functions (declared in the registry).

Kept apart from `catalog` so that importing the package does not import the generator.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .. import registry
from .. import spec as specs
from ..program import modelarts_functions as functions
from ..spec import function_arg as _in
from ..spec import function_out as _out


# ----- the catalogues (program/modelarts_functions.py returns their rows as plain dicts) -------------
class GetFlavorsArgs(BaseModel):
    flavor_type: Literal["CPU", "GPU", "Ascend"] | None = specs.spec_field(
        None, description="Only flavors of this type: CPU, GPU or Ascend.", on_change="local")


class Flavor(BaseModel):
    model_config = ConfigDict(extra="allow")

    flavor_id: str = _out("ID to use as TrainingJob flavor_id.")
    flavor_name: str | None = _out("Display name.")
    flavor_type: str | None = _out("CPU, GPU or Ascend.")
    max_num: int | None = _out("Largest node_count allowed.")
    billing: dict[str, Any] | None = _out("Billing code and unit count.")
    flavor_info: dict[str, Any] | None = _out("cpu, gpu, npu, memory and disk.")


class GetFlavorsResult(BaseModel):
    flavors: list[Flavor] = _out("The flavors, as the API lists them.")


class GetEnginesArgs(BaseModel):
    pass


class Engine(BaseModel):
    model_config = ConfigDict(extra="allow")

    engine_id: str = _out("ID to use as engine_id.")
    engine_name: str | None = _out("Name, e.g. PyTorch (with engine_version).")
    engine_version: str | None = _out("Version, e.g. pytorch_1.8.0-cuda_10.2-py_3.7-...")
    image_info: dict[str, Any] | None = _out("cpu_image_url, gpu_image_url, image_version.")
    tags: list[dict[str, Any]] | None = _out("Engine tags, e.g. auto_search.")


class GetEnginesResult(BaseModel):
    engines: list[Engine] = _out("The engines, as the API lists them.")


registry.function("mltrain:modelarts:getFlavors", GetFlavorsArgs, GetFlavorsResult, items="flavors")(
    functions.get_flavors)
registry.function("mltrain:modelarts:getEngines", GetEnginesArgs, GetEnginesResult, items="engines")(
    functions.get_engines)


# ----- look-ups, logs and events (program/modelarts_functions.py returns TypedDicts of these shapes) ---
class GetTrainingJobArgs(BaseModel):
    job_id: str = _in("The training job's ID (a TrainingJob's job_id).", ...)


class TrainingJobInfo(BaseModel):
    job_id: str = _out("Job ID.")
    name: str | None = _out("Job name.")
    description: str | None = _out("Description.")
    phase: str = _out("Creating, Pending, Running, Completed, Failed, Abnormal, Terminating or Terminated.")
    secondary_phase: str | None = _out("The level-2 status.")
    tasks: list[str] = _out("Task names, e.g. worker-0, worker-1.")
    flavor_id: str | None = _out("Flavor.")
    node_count: int | None = _out("Number of nodes.")
    algorithm_id: str | None = _out("Algorithm it runs, if any.")
    create_time: int | None = _out("Created at, ms since the epoch.")
    reason: str | None = _out("Why it is in this phase, when the platform says.")


class GetAlgorithmArgs(BaseModel):
    algorithm_id: str = _in("The algorithm's ID.", ...)


class AlgorithmInfo(BaseModel):
    algorithm_id: str = _out("Algorithm ID.")
    name: str | None = _out("Name.")
    description: str | None = _out("Description.")
    code_dir: str | None = _out("OBS code directory.")
    boot_file: str | None = _out("OBS boot file.")
    engine: dict[str, Any] | None = _out("Engine: engine_id, engine_name, engine_version or image_url.")
    tags: list[dict[str, Any]] = _out("Algorithm tags.")


class ListTrainingJobsArgs(BaseModel):
    name_prefix: str = _in("Only jobs whose name starts with this.", "")
    phase: str | None = _in("Only jobs in this phase, e.g. Running.")


class JobSummary(BaseModel):
    job_id: str = _out("Job ID.")
    name: str | None = _out("Job name.")
    phase: str | None = _out("Phase.")
    create_time: int | None = _out("Created at, ms since the epoch.")


class TrainingJobList(BaseModel):
    jobs: list[JobSummary] = _out("The matching jobs, newest first.")


class GetTrainingJobLogsArgs(BaseModel):
    job_id: str = _in("The training job's ID.", ...)
    lines: int = _in("At most this many lines per task, newest kept.", 100)


class TaskLog(BaseModel):
    task: str = _out("Task name, e.g. worker-1.")
    lines: list[str] = _out("Its latest log lines, oldest first.")


class JobEvent(BaseModel):
    time: str | None = _out("When.")
    level: str | None = _out("Info, Warning or Error.")
    source: str | None = _out("K8S, Job or Task.")
    message: str | None = _out("What happened.")


class TrainingJobLogs(BaseModel):
    job_id: str = _out("Job ID.")
    phase: str = _out("Phase when read.")
    tasks: list[TaskLog] = _out("Every task's latest lines.")
    events: list[JobEvent] = _out("The job's latest events, oldest first.")


registry.function("mltrain:modelarts:getTrainingJob", GetTrainingJobArgs, TrainingJobInfo)(functions.get_training_job)
registry.function("mltrain:modelarts:getAlgorithm", GetAlgorithmArgs, AlgorithmInfo)(functions.get_algorithm)
registry.function("mltrain:modelarts:listTrainingJobs", ListTrainingJobsArgs,
                TrainingJobList)(functions.list_training_jobs)
registry.function("mltrain:modelarts:getTrainingJobLogs", GetTrainingJobLogsArgs,
                TrainingJobLogs)(functions.get_training_job_logs)
