"""Nested input types of Alaya NeW resources."""

from __future__ import annotations

import posixpath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import contract


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

    @field_validator("mount_path")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not value.startswith("/"):
            raise ValueError("must be an absolute path (start with /)")
        if ".." in value.split("/"):
            raise ValueError("must not contain '..'")
        return value

    @field_validator("file_directory")
    @classmethod
    def _inside(cls, value: str) -> str:
        if ".." in value.split("/"):
            raise ValueError("must not contain '..'")
        return value

    def normalized_path(self) -> str:
        return posixpath.normpath(self.mount_path)


STORAGE_TYPES = contract.STORAGE_TYPES
