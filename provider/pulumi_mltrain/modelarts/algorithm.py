"""`modelarts.Algorithm`: a ModelArts v2 algorithm (code, engine, hyperparameters, channels).

Calls are synchronous. A changed `name` (or workspace) replaces the algorithm; every other change
is a full-body PUT, which sends empty lists explicitly so that removed parameters, channels and
requirements are cleared (the API keeps what a body omits), as the Terraform provider does.
Create is idempotent like the training job's: an algorithm of this name is adopted if it matches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from .. import spec as specs
from ..errors import ApiError
from ..lifecycle import takeover
from ..lifecycle.protocol import Named, Sent
from ..ownership import Mark
from ..platform_calls import Failures, PlatformCalls, Props
from ..spec import ManagedSpec
from ..waiter import Backoff
from . import catalog
from . import tags as shared
from .catalog import catalog_failures, flavors
from .models import (
    NAME_RE,
    AlgorithmParameter,
    ChannelDeclaration,
    ObsPath,
    ResourceRequirement,
    UserTags,
    code_problems,
    duplicate_names,
    tag_problems,
)
from .tags import as_map, owner_tags
from .wire import contract
from .wire.client import ModelArtsClient

# Fields a PUT must send empty to clear (an omitted field keeps its old value), with their empty value's type.
_CLEARED: dict[str, Callable[[], object]] = {"code_dir": str, "boot_file": str, "command": str, "tags": list,
                                             "advanced_config": dict}


class AlgorithmSpec(ManagedSpec):
    """Inputs of a ModelArts algorithm: the body of POST/PUT /v2/{project_id}/algorithms."""

    name: str = specs.spec_field(
        description="Algorithm name (unique in the project); when unset, the resource name plus a suffix unique "
        "to this stack and resource, chosen at the first create and kept through renames (aliases).",
        wire="metadata.name", pattern=NAME_RE.pattern)
    description: str = specs.spec_field(
        "", description="Description (at most 256 characters).", wire="metadata.description",
        on_change="update", max_length=contract.MAX_DESCRIPTION)
    workspace_id: str | None = specs.spec_field(
        None, description="Workspace ID; ModelArts uses the default workspace \"0\" when unset.",
        wire="metadata.workspace_id")
    code_dir: ObsPath | None = specs.spec_field(
        None, description="OBS directory of the code (obs://bucket/dir/ or /bucket/dir/).",
        wire="job_config.code_dir", on_change="update")
    boot_file: ObsPath | None = specs.spec_field(
        None, description="OBS path of the boot file, inside code_dir.", wire="job_config.boot_file",
        on_change="update")
    command: str | None = specs.spec_field(
        None, description="Start command (required with a custom image_url and no code_dir).",
        wire="job_config.command", on_change="update")
    engine_id: str | None = specs.spec_field(
        None, description="Preset engine by ID (see get_engines()).", wire="job_config.engine.engine_id",
        on_change="update")
    engine_name: str | None = specs.spec_field(
        None, description="Preset engine name, e.g. PyTorch (with engine_version).",
        wire="job_config.engine.engine_name", on_change="update")
    engine_version: str | None = specs.spec_field(
        None, description="Preset engine version.", wire="job_config.engine.engine_version", on_change="update")
    image_url: str | None = specs.spec_field(
        None, description="Custom image (SWR path) instead of a preset engine.",
        wire="job_config.engine.image_url", on_change="update")
    parameters: list[AlgorithmParameter] = specs.spec_field(
        default_factory=list, description="Hyperparameters with defaults and constraints.",
        wire="job_config.parameters", on_change="update")
    parameters_customization: bool = specs.spec_field(
        True, description="Whether jobs may pass hyperparameters the algorithm does not declare.",
        wire="job_config.parameters_customization", on_change="update")
    inputs: list[ChannelDeclaration] = specs.spec_field(
        default_factory=list, description="Input channels jobs bind to data, e.g. [{name: data_url}].",
        wire="job_config.inputs", on_change="update")
    outputs: list[ChannelDeclaration] = specs.spec_field(
        default_factory=list, description="Output channels, e.g. [{name: train_url}].",
        wire="job_config.outputs", on_change="update")
    resource_requirements: list[ResourceRequirement] = specs.spec_field(
        default_factory=list, description="Constraints on job resources, e.g. [{key: flavor_type, values: [GPU]}].",
        wire="resource_requirements", on_change="update")
    tags: UserTags | None = specs.spec_field(
        None, description="User tags {key: value} (at most 20), kept in metadata.tags beside the provider's "
        "owner mark, which never shows here; changed in place. The default tags (mltrain:defaultTags) are "
        "merged in, this resource's own winning on the same key: the checked inputs and outputs hold the "
        "merged map. Tags added on the platform under other keys are kept.", wire="metadata.tags",
        on_change="update")
    advanced_config: dict[str, Any] | None = specs.spec_field(
        None, description="Advanced configuration, e.g. {auto_search: {...}} for hyperparameter search "
        "(ModelArts' own shape); changed in place.", wire="advanced_config", on_change="update")

    def as_declared(self) -> AlgorithmSpec:
        """ModelArts reports a preset engine by ID, name and version: keep name and version."""
        if self.engine_id and self.engine_name and self.engine_version:
            return self.model_copy(update={"engine_id": None})
        return self

    def cross_check(self) -> list[tuple[str, str]]:
        out = code_problems(self)
        for field in ("parameters", "inputs", "outputs"):
            out += duplicate_names({field: getattr(self, field)})
        out += duplicate_names({"resource_requirements": self.resource_requirements}, key="key")
        out += tag_problems(self.tags)
        extra = sorted(set(self.advanced_config or {}) - {"auto_search"})
        if extra:
            out.append(("advanced_config", f"does not accept {', '.join(extra)}: ModelArts takes auto_search only"))
        return out

    def put_body(self, previous: AlgorithmSpec | None = None, owner: Mark | None = None,
                 foreign: list[dict[str, str]] | None = None) -> dict[str, Any]:
        """The full body, with the owner mark; fields the previous version set and this one drops are
        sent empty. `foreign`: tags the platform holds that this resource did not set (added in the
        console, say), kept as they are."""
        body = self.wire()
        for name, empty in _CLEARED.items():
            if getattr(self, name) is None and previous is not None and getattr(previous, name, None):
                specs.put(body, specs.wire_path(type(self), name), empty())
        user = body.get("metadata", {}).get("tags") or []  # wire form
        tags = [*user, *(owner_tags(owner) if owner is not None else []), *(foreign or [])]
        if tags:
            specs.put(body, "metadata.tags", tags)
        return body


class AlgorithmOutputs(specs.Output):
    algorithm_id: str | None = specs.output_field(description="The algorithm ID ModelArts assigned (the resource ID).",
                                                  is_id=True)
    resolved_engine: dict[str, Any] | None = specs.output_field(
        description="The engine ModelArts resolved: engine_id, engine_name, engine_version, image.")
    create_time: int | None = specs.output_field(description="Creation time, epoch milliseconds.")
    update_time: int | None = specs.output_field(description="Last update time, epoch milliseconds (0: never).")




class AlgorithmCalls(PlatformCalls[AlgorithmSpec, AlgorithmOutputs, dict[str, Any]]):
    """An algorithm as the lifecycles run it: nothing to stop, a DELETE, then reads until ModelArts
    answers its own not-found (2755). Its owner mark travels in the create's body (metadata.tags)."""

    kind: ClassVar[str] = "Algorithm"
    noun: ClassVar[str] = "algorithm"
    platform: ClassVar[str] = shared.PLATFORM
    credential_keys: ClassVar[tuple[str, ...]] = shared.CREDENTIALS
    spec_type = AlgorithmSpec
    output_type = AlgorithmOutputs
    default_timeouts: ClassVar[dict[str, float]] = {"create": 300.0, "update": 300.0, "delete": 300.0}
    poll: ClassVar[Backoff] = Backoff(first=0.5, maximum=5.0)
    configured = staticmethod(catalog.configured)

    with_defaults = shared.with_default_tags
    drift = staticmethod(shared.own_tags_drift)

    @property
    def client(self) -> ModelArtsClient:
        return shared.client(self)

    def check_remote(self, spec: AlgorithmSpec) -> Failures:
        ready = self.catalogues_ready(lambda: flavors(self.client))  # a refused IAM login fails here
        engine = (spec.engine_id, spec.engine_name, spec.engine_version)
        return catalog_failures(self.client, engine=engine, say=self.context.say) if ready is None else ready

    # ----- the algorithm -------------------------------------------------------------------------
    def get(self, object_id: str) -> dict[str, Any]:
        return self.client.algorithm(object_id)

    def delete(self, object_id: str) -> None:
        self.client.delete_algorithm(object_id)

    def listed(self, object_id: str, name: str) -> bool:
        return any(str((a.get("metadata") or {}).get("id")) == object_id for a in self.client.find_algorithms(name))

    def named(self, name: str) -> list[Named]:
        ids = [str((a.get("metadata") or {}).get("id")) for a in self.client.find_algorithms(name)]
        return [Named(algorithm_id, _mark(self.client.algorithm(algorithm_id))) for algorithm_id in ids]

    def read(self, object_id: str, spec: AlgorithmSpec) -> tuple[Props, Props | None] | None:
        algorithm = self.client.algorithm(object_id)
        return _outputs(algorithm), algorithm

    def update(self, object_id: str, old: AlgorithmSpec, new: AlgorithmSpec, changed: list[str],
               owner: Mark | None) -> Props:
        remote = [n for n in changed if specs.meta(type(new).model_fields[n], n).on_change != "local"]
        if remote:
            # The PUT replaces metadata.tags whole: keep the tags this resource never set.
            current = self.client.algorithm(object_id)
            ours = {*(old.tags or {}), *(new.tags or {}), contract.OWNER_STACK, contract.OWNER_URN}
            held = as_map((current.get("metadata") or {}).get("tags"))
            foreign = [{"key": k, "value": v} for k, v in held.items() if k not in ours]
            updated = self.client.update_algorithm(object_id, new.put_body(old, owner, foreign))
            if updated.get("metadata"):
                return _outputs(updated)
        return _outputs(self.client.algorithm(object_id))

    # ----- its create ----------------------------------------------------------------------------
    def submit(self, spec: AlgorithmSpec, owner: Mark | None) -> Sent:
        made = self.client.create_algorithm(spec.put_body(owner=owner))
        return Sent(object_id=str(made["metadata"]["id"]), outputs=_outputs(made))

    def duplicate(self, err: ApiError) -> bool:
        return err.code == contract.DUPLICATE_ALGORITHM_NAME

    def mark(self, object_id: str, spec: AlgorithmSpec, owner: Mark | None) -> None:
        """Taken over (adopt_id, import): from now on it carries this resource's mark (a create sent it)."""
        if owner is not None and _mark(self.client.algorithm(object_id)) != owner:
            self.client.update_algorithm(object_id, spec.put_body(owner=owner))

    def accept(self, object_id: str, spec: AlgorithmSpec) -> None:
        takeover.require_match(spec, self.noun, object_id, self.client.algorithm(object_id))


def _outputs(algorithm: dict[str, Any]) -> Props:
    metadata = algorithm.get("metadata") or {}
    engine = (algorithm.get("job_config") or {}).get("engine") or {}
    images = engine.get("image_info") or {}
    image = engine.get("image_url") or images.get("gpu_image_url") or images.get("cpu_image_url") or None
    return {
        "algorithm_id": str(metadata.get("id")),
        "resolved_engine": {**{k: engine.get(k) or None for k in ("engine_id", "engine_name", "engine_version")},
                            "image": image},
        "create_time": metadata.get("create_time"),
        "update_time": metadata.get("update_time"),
    }


def _mark(algorithm: dict[str, Any]) -> Mark | None:
    return shared.mark_in((algorithm.get("metadata") or {}).get("tags"))
