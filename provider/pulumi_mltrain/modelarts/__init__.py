"""Huawei Cloud ModelArts v2 resources: algorithms and training jobs with OBS data channels.

    from pulumi_mltrain import modelarts
    flavor = modelarts.get_flavors("CPU")[0]["flavor_id"]      # runs at program time
    algo = modelarts.Algorithm("pytorch-cpu", code_dir="obs://bucket/code/",
                               boot_file="obs://bucket/code/train.py", engine_name="PyTorch",
                               engine_version="pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64")
    job = modelarts.TrainingJob("train", algorithm_id=algo.algorithm_id, flavor_id=flavor,
                                inputs=[modelarts.ObsChannel(name="data_url", obs_url="obs://bucket/data/")])

Credentials come from stack config (`mltrain:huaweiIamEndpoint`, `mltrain:modelartsEndpoint`,
`mltrain:huaweiProjectName`/`huaweiProjectId`, `mltrain:huaweiUser`, `mltrain:huaweiDomain`,
`mltrain:huaweiPassword` as a secret) or the MLTRAIN_* environment, never from resource arguments.
"""

from .algorithm import Algorithm
from .catalog import get_engines, get_flavors
from .models import (
    AlgorithmParameter,
    ChannelDeclaration,
    JobParameter,
    ObsChannel,
    ParameterConstraint,
    ResourceRequirement,
)
from .training_job import TrainingJob

__all__ = [
    "Algorithm",
    "AlgorithmParameter",
    "ChannelDeclaration",
    "JobParameter",
    "ObsChannel",
    "ParameterConstraint",
    "ResourceRequirement",
    "TrainingJob",
    "get_engines",
    "get_flavors",
]
