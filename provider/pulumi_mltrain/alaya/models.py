"""Nested input types of Alaya NeW resources."""

from __future__ import annotations

import posixpath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .. import checkpoints
from .wire import contract


def absolute_path(value: str) -> str:
    """A path inside the container: absolute, and never climbing out of where it points (`..`)."""
    if not value.startswith("/"):
        raise ValueError("must be an absolute path (start with /)")
    if ".." in value.split("/"):
        raise ValueError("must not contain '..'")
    return value


class NasMount(BaseModel):
    """A NAS directory mounted into every node of a training task (an item of storageConfigs)."""

    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True, frozen=True)

    storage_id: str = Field(alias="storageId", min_length=1, description="NAS storage ID.")
    storage_type: Literal["nas-capacity", "nas-performance"] = Field(
        alias="storageType", description="Storage type: nas-capacity or nas-performance.")
    file_directory: str = Field(
        alias="fileDirectory", min_length=1, description="Source directory inside the storage, e.g. datasets.")
    mount_path: str = Field(alias="mountPath", description="Absolute path inside the container, e.g. /root/nas/.")
    read_only: bool = Field(True, alias="onlyRead", description="Mount read-only (the API's default).")

    _absolute = field_validator("mount_path")(absolute_path)

    @field_validator("file_directory")
    @classmethod
    def _inside(cls, value: str) -> str:
        if ".." in value.split("/"):
            raise ValueError("must not contain '..'")
        return value

    def normalized_path(self) -> str:
        return posixpath.normpath(self.mount_path)


STORAGE_TYPES = contract.STORAGE_TYPES


class NasCheckpoint(BaseModel):
    """Where a task's runs keep their checkpoints: a directory on one of its writable NAS mounts. Alaya NeW
    has no checkpoint field and no predownload: the NAS keeps the files between runs, and the provider tells
    the script where they are and whether to reload them (MLTRAIN_CHECKPOINT_DIR, MLTRAIN_RESUME,
    MLTRAIN_RESUMED_FROM)."""

    model_config = ConfigDict(extra="forbid", validate_by_name=True, validate_by_alias=True, frozen=True)

    path: str = Field(description="Absolute directory inside the container, under the mount_path of a "
                      "storage_mounts entry with read_only false, e.g. /root/nas/ckpt/llama3-sft.")
    resume: bool = Field(True, description=checkpoints.RESUME_DESCRIPTION)

    _absolute = field_validator("path")(absolute_path)

    def on(self, mounts: list[NasMount]) -> NasMount | None:
        """The mount that holds the checkpoint directory (the deepest one), if any."""
        path = posixpath.normpath(self.path)
        holding = [m for m in mounts if path == m.normalized_path()
                   or path.startswith(m.normalized_path().rstrip("/") + "/")]
        return max(holding, key=lambda m: len(m.normalized_path()), default=None)

    def env(self, resume: checkpoints.Resume) -> dict[str, str]:
        """What the task's script is told: where the checkpoints are, and whether to reload them."""
        env = {checkpoints.ENV_DIR: self.path, checkpoints.ENV_RESUME: "true" if resume.resuming else "false"}
        if resume.resuming and resume.previous:
            env[checkpoints.ENV_RESUMED_FROM] = resume.previous
        return env
