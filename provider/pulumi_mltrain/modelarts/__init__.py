"""Huawei Cloud ModelArts v2 resources: algorithms and training jobs with OBS data channels.

    from pulumi_mltrain import modelarts
    flavor = modelarts.get_flavors("CPU")[0]["flavor_id"]      # runs at program time
    algo = modelarts.Algorithm("pytorch-cpu", code_dir="obs://bucket/code/",
                               boot_file="obs://bucket/code/train.py", engine_name="PyTorch",
                               engine_version="pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64")
    job = modelarts.TrainingJob("train", algorithm_id=algo.algorithm_id, flavor_id=flavor,
                                inputs=[modelarts.DataInput(name="data_url", obs_url="obs://bucket/data/")])

Credentials come from stack config (`mltrain:huaweiIamEndpoint`, `mltrain:modelartsEndpoint`,
`mltrain:huaweiProjectName`/`huaweiProjectId`, `mltrain:huaweiUser`, `mltrain:huaweiDomain`,
`mltrain:huaweiPassword` as a secret) or the MLTRAIN_* environment, never from resource arguments.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._resources import (
        Algorithm,
        AlgorithmParameter,
        ChannelDeclaration,
        DataInput,
        DatasetRef,
        JobParameter,
        NfsMount,
        Notification,
        ObsChannel,
        ObsMount,
        ParameterConstraint,
        RequiredAffinity,
        ResourceRequirement,
        TaskExit,
        TrainingJob,
        Volume,
    )
    from .catalog import get_engines, get_flavors
    from .lookups import (
        get_algorithm,
        get_algorithm_output,
        get_training_job,
        get_training_job_logs,
        get_training_job_logs_output,
        get_training_job_output,
        list_training_jobs,
        list_training_jobs_output,
    )

_LOOKUPS = ("get_algorithm", "get_algorithm_output", "get_training_job", "get_training_job_logs",
            "get_training_job_logs_output", "get_training_job_output", "list_training_jobs",
            "list_training_jobs_output")

__all__ = [
    "Algorithm",
    "AlgorithmParameter",
    "ChannelDeclaration",
    "DataInput",
    "DatasetRef",
    "JobParameter",
    "NfsMount",
    "Notification",
    "ObsChannel",
    "ObsMount",
    "ParameterConstraint",
    "RequiredAffinity",
    "ResourceRequirement",
    "TaskExit",
    "TrainingJob",
    "Volume",
    "get_algorithm",
    "get_algorithm_output",
    "get_engines",
    "get_flavors",
    "get_training_job",
    "get_training_job_logs",
    "get_training_job_logs_output",
    "get_training_job_output",
    "list_training_jobs",
    "list_training_jobs_output",
]


def __getattr__(name: str) -> Any:
    """Generated classes on first use; the catalogue functions load the client (pydantic, httpx) only
    when a program calls them."""
    if name in ("get_engines", "get_flavors"):
        return getattr(importlib.import_module(f"{__name__}.catalog"), name)
    if name in _LOOKUPS:
        return getattr(importlib.import_module(f"{__name__}.lookups"), name)
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}._resources"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
