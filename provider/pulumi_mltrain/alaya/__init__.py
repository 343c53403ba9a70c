"""Alaya NeW resources: distributed training tasks and NAS storage mounts."""

from .storage_mount import StorageMount
from .training_job import TrainingJob

__all__ = ["StorageMount", "TrainingJob"]
