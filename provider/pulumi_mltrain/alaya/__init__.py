"""Alaya NeW resources: distributed training tasks and NAS storage mounts.

The classes are generated (`_resources.py`) and import neither pydantic nor the platform clients:
those load in the provider process. They are imported on first use, so a provider process that
loads `alaya.training_job` never loads the program side (and the generator runs without it).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._resources import StorageMount, TrainingJob
    from .lookups import (
        get_products,
        get_storages,
        get_training_job,
        get_training_job_output,
        list_training_jobs,
        list_training_jobs_output,
    )

_FUNCTIONS = ("get_products", "get_storages", "get_training_job", "get_training_job_output",
              "list_training_jobs", "list_training_jobs_output")
__all__ = ["StorageMount", "TrainingJob", "get_products", "get_storages", "get_training_job",
           "get_training_job_output", "list_training_jobs", "list_training_jobs_output"]


def __getattr__(name: str) -> Any:
    """Generated classes on first use; the functions load the client (pydantic, httpx) only when a
    program uses them."""
    if name in _FUNCTIONS:
        return getattr(importlib.import_module(f"{__name__}.lookups"), name)
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}._resources"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
