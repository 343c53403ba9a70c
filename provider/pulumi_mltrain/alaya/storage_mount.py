"""`alaya.StorageMount`: a NAS directory to mount into training tasks.

The platform has no mount object: a mount is part of a task's create call. This resource checks,
at create and refresh, that the storage exists and is Active, records its details, and exposes
`mount`, which plugs into `TrainingJob(storage_mounts=[...])` so the dependency shows in the
graph and a changed mount replaces the tasks that use it. Deleting it removes nothing remote.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar, Literal

from .. import registry
from .. import spec as specs
from ..errors import MltrainError
from ..ownership import Mark
from ..spec import ManagedSpec
from .base import AlayaCalls
from .catalog import storage_problem, storages
from .models import NasMount


class StorageMountSpec(ManagedSpec):
    storage_id: str = specs.spec_field(description="NAS storage ID, e.g. 72a2a885-e45e-4c79-aaf3-e1fa05abdb92.",
                                       wire="storageId", min_length=1)
    storage_type: Literal["nas-capacity", "nas-performance"] = specs.spec_field(
        description="nas-capacity or nas-performance.", wire="storageType")
    file_directory: str = specs.spec_field(description="Source directory inside the storage.",
                                           wire="fileDirectory", min_length=1)
    mount_path: str = specs.spec_field(description="Absolute mount path inside the container.", wire="mountPath")
    read_only: bool = specs.spec_field(True, description="Mount read-only (the default).", wire="onlyRead")

    def cross_check(self) -> list[tuple[str, str]]:
        _, failures = specs.validate_model(NasMount, self._mount_fields())
        return failures

    def _mount_fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in NasMount.model_fields}

    def as_mount(self) -> NasMount:
        return NasMount.model_validate(self._mount_fields())


class StorageMountOutputs(specs.Output):
    # Not optional: derived from the inputs at check, so it is always set (typed so on the program side).
    mount: NasMount = specs.output_field(
        description="The mount, ready for TrainingJob(storage_mounts=[...]).")
    storage_name: str | None = specs.output_field(description="The storage's display name.")
    storage_status: str | None = specs.output_field(description="The storage's status at the last create/refresh.")
    capacity_gb: float | None = specs.output_field(description="The storage's capacity in GB.")


class StorageMountCalls(AlayaCalls[StorageMountSpec, StorageMountOutputs]):
    kind: ClassVar[str] = "StorageMount"
    spec_type = StorageMountSpec
    output_type = StorageMountOutputs
    import_id_fields: ClassVar[tuple[str, ...]] = ("storage_id", "file_directory", "mount_path")

    @classmethod
    def label(cls, spec: Any) -> str:
        return f"{getattr(spec, 'storage_id', '')}:{getattr(spec, 'mount_path', '')}"

    def check_remote(self, spec: Any) -> list[tuple[str, str]]:
        if not self.settings.alaya_api_key:
            return []
        refused = self.probe_credentials()
        if refused is not None:
            return refused
        try:
            problem = storage_problem(storages(self.api()), spec.storage_id, spec.storage_type)
        except MltrainError as err:
            print(f"[mltrain] catalogue check skipped: {err}", file=sys.stderr)
            return []
        return [("storage_id", problem)] if problem else []

    def _lookup(self, spec: Any) -> dict[str, Any] | None:
        rows = self.api().storages()
        return next((r for r in rows if r.get("storageId") == spec.storage_id), None)

    def derived(self, spec: Any) -> dict[str, Any]:
        # Known from the inputs alone, so previews (and the tasks that use it) see it before any call.
        return {"mount": spec.as_mount().model_dump(mode="json")}

    def _outputs(self, spec: Any, row: dict[str, Any]) -> dict[str, Any]:
        return {
            "storage_name": row.get("name"),
            "storage_status": row.get("status"),
            "capacity_gb": row.get("capacityGB"),
        }

    def create(self, spec: Any, owner: Mark | None) -> tuple[str, dict[str, Any]]:
        rows = self.api().storages()
        problem = storage_problem(rows, spec.storage_id, spec.storage_type)
        if problem:
            raise MltrainError(f"storage_id: {problem}")
        row = next(r for r in rows if r.get("storageId") == spec.storage_id)
        return f"{spec.storage_id}:{spec.file_directory}:{spec.mount_path}", self._outputs(spec, row)

    def adopt(self, object_id: str, spec: Any, owner: Mark | None) -> dict[str, Any]:
        return self.create(spec, owner)[1]

    def read(self, object_id: str, spec: Any) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        row = self._lookup(spec)
        # The listing is the platform's own answer; the row is what drift is read from (its type).
        return None if row is None else (self._outputs(spec, row), row)

    def delete(self, object_id: str, spec: Any) -> bool:
        """Nothing remote: the storage belongs to the tenant, the mount to the tasks."""
        return True


# `StorageMountProvider`, the class path states written by 0.1 name: the dynamic provider, built on first use.
__getattr__ = registry.provider_aliases(__name__)
