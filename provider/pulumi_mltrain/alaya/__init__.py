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

__all__ = ["StorageMount", "TrainingJob"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}._resources"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
