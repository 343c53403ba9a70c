"""`alaya.StorageMount`: a NAS directory to mount into training tasks.

The platform has no mount object: a mount is part of a task's create call. This resource checks,
at create and refresh, that the storage exists and is Active, records its details, and exposes
`mount`, which plugs into `TrainingJob(storage_mounts=[...])` so the dependency shows in the
graph and a changed mount replaces the tasks that use it. Deleting it removes nothing remote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from .. import spec as specs
from ..errors import MltrainError
from ..lifecycle.protocol import Sent
from ..ownership import Mark
from ..platform_calls import Failures, PlatformCalls, Props
from ..spec import ManagedSpec
from .catalog import storage_problem, storages
from .models import NasMount
from .tasks import PLATFORM
from .training_job import CREDENTIALS
from .wire.client import AlayaClient


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


class StorageMountCalls(PlatformCalls[StorageMountSpec, StorageMountOutputs, dict[str, Any]]):
    kind: ClassVar[str] = "StorageMount"
    noun: ClassVar[str] = "storage mount"
    platform: ClassVar[str] = PLATFORM
    removes: ClassVar[bool] = False  # nothing remote: the storage belongs to the tenant, the mount to the tasks
    credential_keys: ClassVar[tuple[str, ...]] = CREDENTIALS
    spec_type = StorageMountSpec
    output_type = StorageMountOutputs
    import_id_fields: ClassVar[tuple[str, ...]] = ("storage_id", "file_directory", "mount_path")

    @property
    def client(self) -> AlayaClient:
        return self.context.client("alaya", AlayaClient)

    @classmethod
    def label(cls, fields: Mapping[str, object]) -> str:
        return f"{fields.get('storage_id') or ''}:{fields.get('mount_path') or ''}"

    def check_remote(self, spec: StorageMountSpec) -> Failures:
        if not self.settings.alaya_api_key:
            return []
        try:
            problem = storage_problem(storages(self.client), spec.storage_id, spec.storage_type)
        except MltrainError as err:
            refused = self.refused_credentials(err)
            if refused is not None:
                return refused
            self.context.say(f"catalogue check skipped: {err}")
            return []
        return [("storage_id", problem)] if problem else []

    def derived(self, spec: StorageMountSpec) -> Props:
        # Known from the inputs alone, so previews (and the tasks that use it) see it before any call.
        return {"mount": spec.as_mount().model_dump(mode="json")}

    def submit(self, spec: StorageMountSpec, owner: Mark | None) -> Sent:
        """No create call: the storage must exist and be usable; the ID is made of the inputs."""
        rows = self.client.storages()
        problem = storage_problem(rows, spec.storage_id, spec.storage_type)
        if problem:
            raise MltrainError(f"storage_id: {problem}")
        row = next(r for r in rows if r.get("storageId") == spec.storage_id)
        return Sent(object_id=f"{spec.storage_id}:{spec.file_directory}:{spec.mount_path}", outputs=_outputs(row))

    def accept(self, object_id: str, spec: StorageMountSpec) -> None:
        problem = storage_problem(self.client.storages(), spec.storage_id, spec.storage_type)
        if problem:
            raise MltrainError(f"storage_id: {problem}")

    def read(self, object_id: str, spec: StorageMountSpec) -> tuple[Props, Props | None] | None:
        row = next((r for r in self.client.storages() if r.get("storageId") == spec.storage_id), None)
        # The listing is the platform's own answer; the row is what drift is read from (its type).
        return None if row is None else (_outputs(row), row)


def _outputs(row: dict[str, Any]) -> Props:
    return {"storage_name": row.get("name"), "storage_status": row.get("status"), "capacity_gb": row.get("capacityGB")}
