"""pulumi-mltrain: ML training infrastructure as code for Alaya NeW and Huawei Cloud ModelArts v2.

    from pulumi_mltrain import alaya
    job = alaya.TrainingJob("llama3-sft", product_code="PRD-TRAIN-1", worker_count=4, image="...")

    from pulumi_mltrain import modelarts
    job = modelarts.TrainingJob("train", algorithm_id="...", flavor_id="modelarts.vm.cpu.8u")

Credentials come from stack config (`pulumi config set --secret mltrain:alayaApiKey ...`) or the
environment, never from resource arguments.
"""

from . import alaya, modelarts

__version__ = "0.1.0"
__all__ = ["__version__", "alaya", "modelarts"]
