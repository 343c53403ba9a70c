"""ModelArts catalogues (training flavors, AI engines): cached briefly, checked at preview, and
offered to Pulumi programs as `get_flavors()` / `get_engines()`.

In the provider, `check` uses them so that an unknown flavor, too many nodes or an unknown engine
is a preview error naming the field, instead of a 400 at `pulumi up`. The public functions run at
program time (during `pulumi preview` too): they read the same `mltrain:*` stack config (or the
MLTRAIN_* environment) as the provider, share its catalogue cache (`cache.py`) and return plain dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from .. import cache
from .. import spec as specs
from ..answers import count
from ..config import Settings
from ..errors import MltrainError, NotFound
from ..program.calls import program_call
from . import contract

if TYPE_CHECKING:
    from .client import ModelArtsClient


def flavors(api: ModelArtsClient) -> list[dict[str, Any]]:
    return cache.rows(api, "flavors")


def engines(api: ModelArtsClient) -> list[dict[str, Any]]:
    return cache.rows(api, "engines")


def max_nodes(flavor: dict[str, Any]) -> int | None:
    """A flavor's node limit: `max_num` at the top (docs) or in `flavor_info` (seed 002)."""
    info = flavor.get("flavor_info")
    return count(flavor.get("max_num", info.get("max_num") if isinstance(info, dict) else None))


def job_costs(rows: Sequence[dict[str, Any]], flavor_id: str, node_count: int) -> dict[str, Any]:
    """GPUs per node and in all, and the billing code of a job, from its flavor (`flavor_info.gpu.gpu_num`;
    no `gpu` entry: a CPU or Ascend flavor, 0 GPUs). The flavor list carries no prices, so no cost.

    Empty when the flavor is not listed: then nothing is known, and the outputs stay unset."""
    flavor = next((r for r in rows if r.get("flavor_id") == flavor_id), None)
    if flavor is None:
        return {}
    info = flavor.get("flavor_info") if isinstance(flavor.get("flavor_info"), dict) else {}
    gpu = info.get("gpu") if isinstance(info, dict) else None
    per_node = count(gpu.get("gpu_num") or 0) if isinstance(gpu, dict) else 0
    billing = flavor.get("billing") if isinstance(flavor.get("billing"), dict) else {}
    return {
        "gpus_per_node": per_node,
        "gpu_count": None if per_node is None else per_node * node_count,
        "billing_code": (billing or {}).get("code"),
    }


def engine_problems(rows: Sequence[dict[str, Any]], engine_id: str | None, engine_name: str | None,
                   engine_version: str | None) -> list[tuple[str, str]]:
    """(field, reason) when the declared preset engine is not offered; none for custom images."""
    if engine_id:
        ids = sorted({str(r.get("engine_id")) for r in rows})
        return [] if engine_id in ids else [("engine_id", f"{engine_id} is not offered here (available: "
                                                          f"{', '.join(ids)})")]
    if not engine_name or any(r.get("engine_name") == engine_name and r.get("engine_version") == engine_version
                              for r in rows):
        return []
    names = sorted({str(r.get("engine_name")) for r in rows})
    if engine_name not in names:
        return [("engine_name", f"{engine_name} is not offered here (available: {', '.join(names)})")]
    versions = sorted(str(r.get("engine_version")) for r in rows if r.get("engine_name") == engine_name)
    return [("engine_version", f"{engine_version} is not a version of {engine_name} (available: "
                               f"{', '.join(versions)})")]


def flavor_problems(rows: Sequence[dict[str, Any]], flavor_id: str, node_count: int) -> list[tuple[str, str]]:
    flavor = next((r for r in rows if r.get("flavor_id") == flavor_id), None)
    if flavor is None:
        ids = sorted(str(r.get("flavor_id")) for r in rows)
        return [("flavor_id", f"{flavor_id} is not offered here (available: {', '.join(ids)})")]
    limit = max_nodes(flavor)
    if limit is not None and node_count > limit:
        return [("node_count", f"{node_count} exceeds the maximum of {limit} nodes for {flavor_id}")]
    return []


def configured(settings: Settings) -> bool:
    """Whether ModelArts credentials are set (catalogue checks at preview need them): AK/SK (the
    project by ID, or by name through IAM) or an IAM user's password."""
    if settings.uses_aksk:
        return bool(settings.modelarts_endpoint and settings.access_key and settings.secret_key
                    and (settings.project_id or (settings.project_name and settings.iam_endpoint)))
    return bool(settings.iam_endpoint and settings.modelarts_endpoint and settings.password
                and settings.user and settings.domain and (settings.project_name or settings.project_id))


def catalog_failures(api: ModelArtsClient, *, flavor_id: str | None = None, node_count: int = 1,
                     engine: tuple[str | None, str | None, str | None] = (None, None, None),
                     algorithm_id: str | None = None, say: Callable[[str], None]) -> list[tuple[str, str]]:
    """Field-named failures from the catalogues; a catalogue that cannot be read is skipped, which `say`
    (the resource's `Context.say`) tells the user."""
    out: list[tuple[str, str]] = []
    try:
        if flavor_id:
            out += flavor_problems(flavors(api), flavor_id, node_count)
        if any(engine):
            out += engine_problems(engines(api), *engine)
        if algorithm_id:
            try:
                api.algorithm(algorithm_id)
            except NotFound:
                out.append(("algorithm_id", f"algorithm {algorithm_id} does not exist in this project"))
    except MltrainError as err:
        say(f"catalogue check skipped: {err}")
    return out


def metrics_summary(samples: Sequence[dict[str, Any]] | None) -> dict[str, float]:
    """The latest value with data (not -1) of each metric, in samples as the client checked them
    (`answers.Metric`)."""
    out: dict[str, float] = {}
    for row in samples or []:
        values = [v for v in row.get("value") or [] if v is not None and v != contract.METRIC_NO_DATA]
        if values:
            out[row["metric"]] = float(values[-1])
    return out


# ----- program-time functions --------------------------------------------------------------------
def _program_call(what: str, *args: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = program_call("modelarts", what, *args, catalogue=True)
    return rows


class GetFlavorsArgs(BaseModel):
    flavor_type: Literal["CPU", "GPU", "Ascend"] | None = specs.spec_field(
        None, description="Only flavors of this type: CPU, GPU or Ascend.", on_change="local")


class Flavor(BaseModel):
    model_config = ConfigDict(extra="allow")

    flavor_id: str = specs.output_field(description="ID to use as TrainingJob flavor_id.")
    flavor_name: str | None = specs.output_field(description="Display name.")
    flavor_type: str | None = specs.output_field(description="CPU, GPU or Ascend.")
    max_num: int | None = specs.output_field(description="Largest node_count allowed.")
    billing: dict[str, Any] | None = specs.output_field(description="Billing code and unit count.")
    flavor_info: dict[str, Any] | None = specs.output_field(description="cpu, gpu, npu, memory and disk.")


class GetFlavorsResult(BaseModel):
    flavors: list[Flavor] = specs.output_field(description="The flavors, as the API lists them.")


class GetEnginesArgs(BaseModel):
    pass


class Engine(BaseModel):
    model_config = ConfigDict(extra="allow")

    engine_id: str = specs.output_field(description="ID to use as engine_id.")
    engine_name: str | None = specs.output_field(description="Name, e.g. PyTorch (with engine_version).")
    engine_version: str | None = specs.output_field(description="Version, e.g. pytorch_1.8.0-cuda_10.2-py_3.7-...")
    image_info: dict[str, Any] | None = specs.output_field(description="cpu_image_url, gpu_image_url, image_version.")
    tags: list[dict[str, Any]] | None = specs.output_field(description="Engine tags, e.g. auto_search.")


class GetEnginesResult(BaseModel):
    engines: list[Engine] = specs.output_field(description="The engines, as the API lists them.")


def get_flavors(flavor_type: str | None = None) -> list[dict[str, Any]]:
    """The training flavors ModelArts offers (`GET /v2/{project_id}/training-job-flavors`).

    Runs when the program runs (`pulumi preview` and `pulumi up`), with the stack's `mltrain:*`
    config; returns the API's rows as plain dicts: flavor_id, flavor_name, flavor_type, max_num,
    billing, flavor_info. `flavor_type` filters by CPU, GPU or Ascend.
    """
    return _program_call("flavors", flavor_type)


def get_engines() -> list[dict[str, Any]]:
    """The AI engines ModelArts offers (`GET /v2/{project_id}/training-job-engines`).

    Runs when the program runs, with the stack's `mltrain:*` config; returns plain dicts:
    engine_id, engine_name, engine_version, image_info{cpu_image_url, gpu_image_url}, tags.
    """
    return _program_call("engines")
