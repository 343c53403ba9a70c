"""Alaya NeW catalogues (products, NAS storages), cached briefly per provider process.

`check` uses them so that an unknown product or a missing storage is a preview error that names
the field, instead of a FAILED subscription minutes later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import cache
from ..answers import count
from ..errors import MltrainError
from .models import NasMount
from .wire import contract

if TYPE_CHECKING:
    from .wire.client import AlayaClient


def products(api: AlayaClient) -> list[dict[str, Any]]:
    return cache.rows(api, "products")


def storages(api: AlayaClient) -> list[dict[str, Any]]:
    return cache.rows(api, "storages")


def storage_problem(rows: Sequence[dict[str, Any]], storage_id: str, storage_type: str | None = None) -> str | None:
    """Why a storage cannot be mounted, or None when it can."""
    row = next((r for r in rows if r.get("storageId") == storage_id), None)
    if row is None:
        return f"storage {storage_id} does not exist in this tenant"
    if row.get("status") != contract.STORAGE_ACTIVE:
        return f"storage {storage_id} is {row.get('status')}, not {contract.STORAGE_ACTIVE}"
    if storage_type and row.get("storageType") and row["storageType"] != storage_type:
        return f"storage {storage_id} is of type {row['storageType']}, not {storage_type}"
    return None


def catalog_failures(api: AlayaClient, product_code: str, mounts: Sequence[NasMount], *,
                     say: Callable[[str], None]) -> list[tuple[str, str]]:
    """Field-named failures from the catalogues; a catalogue that cannot be read is skipped, which `say`
    (the resource's `Context.say`) tells the user."""
    out: list[tuple[str, str]] = []
    try:
        rows = products(api)
        codes = [str(r.get("productCode")) for r in rows]
        if product_code not in codes:
            out.append(("product_code", f"{product_code} is not offered here (available: {', '.join(codes)})"))
        else:
            row = rows[codes.index(product_code)]
            stock = count(row.get("remainingCount"))
            if stock is not None and stock <= 0:
                why = (row.get("ext") or {}).get("stockError") if isinstance(row.get("ext"), dict) else None
                out.append(("product_code", f"{product_code} is out of stock (remainingCount {stock}"
                                            + (f": {why}" if why else "") + "); choose another product_code"))
        if mounts:
            stores = storages(api)
            for i, mount in enumerate(mounts):
                problem = storage_problem(stores, mount.storage_id, mount.storage_type)
                if problem:
                    out.append((f"storage_mounts[{i}].storage_id", problem))
    except MltrainError as err:
        say(f"catalogue check skipped: {err}")
    return out


# `priceUnit` is a code of the platform's unit_of_measure dictionary; 1 is taken as "per node and hour"
# (the unit the console shows for training nodes). Rows with another unit get no cost estimate.
PRICE_PER_HOUR_UNIT = 1


def job_costs(rows: Sequence[dict[str, Any]], product_code: str, worker_count: int) -> dict[str, Any]:
    """GPUs per node, GPUs in all and the estimated cost per hour of a task, from its product row.

    Empty when the product is not listed: then nothing is known, and the outputs stay unset."""
    row = next((r for r in rows if r.get("productCode") == product_code), None)
    if row is None:
        return {}
    per_node = count(row.get("gpuCount"))
    try:
        price = float(str(row.get("price"))) if row.get("price") not in (None, "") else None
    except ValueError:
        price = None
    hourly = price is not None and count(row.get("priceUnit")) == PRICE_PER_HOUR_UNIT
    return {
        "gpus_per_node": per_node,
        "gpu_count": None if per_node is None else per_node * worker_count,
        "cost_per_hour": round(price * worker_count, 4) if hourly and price is not None else None,
    }
