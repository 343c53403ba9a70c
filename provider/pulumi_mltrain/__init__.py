"""pulumi-mltrain: ML training infrastructure as code for Alaya NeW and Huawei Cloud ModelArts v2.

    from pulumi_mltrain import alaya
    job = alaya.TrainingJob("llama3-sft", product_code="PRD-TRAIN-1", worker_count=4, image="...")

Credentials come from stack config (`pulumi config set --secret mltrain:alayaApiKey ...`) or the
environment, never from resource arguments.
"""

from . import alaya

__version__ = "0.1.0"
__all__ = ["__version__", "alaya"]
