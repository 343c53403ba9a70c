"""ModelArts catalogues (training flavors, AI engines): cached briefly and checked at preview, so that
an unknown flavor, too many nodes or an unknown engine is a preview error naming the field, instead of a
400 at `pulumi up`. Programs read them through `get_flavors()` / `get_engines()`
(program/modelarts_functions.py), which share the catalogue cache (`cache.py`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import cache
from ..answers import count
from ..config import Settings
from ..errors import MltrainError, NotFound
from .wire import contract

if TYPE_CHECKING:
    from .wire.client import ModelArtsClient


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
