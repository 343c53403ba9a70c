"""Alaya NeW's seeded, read-only catalogues: products and NAS storages.

Shapes follow api.md A.3 (numbers are strings). Callers get deep copies, so a handler can decorate a
row without changing the catalogue.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import defaults as d
from . import contract as ac

Json = dict[str, Any]


def _product(code: str, name: str, cpu: int, mem: int, gpu: str, gpus: int, price: str, stock: int) -> Json:
    return {
        "name": name,
        "aidcId": d.DEFAULT_AIDC_ID,
        "productCode": code,
        "cpuCores": str(cpu),
        "memoryGB": str(mem),
        "gpuName": gpu,
        "gpuCount": str(gpus),
        "diskGB": "500",
        "price": price,
        "priceUnit": 1,
        "remainingCount": stock,
        "ext": {"stockError": "insufficient stock"} if stock == 0 else {},
    }


_PRODUCTS: tuple[Json, ...] = (
    _product(d.PRODUCT_TRAIN_1, "A800 x8 training node", 112, 1024, "NVIDIA A800", 8, "80.00", 32),
    _product(d.PRODUCT_TRAIN_2, "A800 x4 training node", 56, 512, "NVIDIA A800", 4, "40.00", 16),
    _product(d.PRODUCT_QTT, "single-GPU training node", 14, 128, "NVIDIA A800", 1, "10.00", 64),
    _product(d.PRODUCT_CPU, "CPU training node", 32, 128, "-", 0, "2.00", 100),
    _product(d.PRODUCT_SOLDOUT, "H800 x8 training node", 112, 2048, "NVIDIA H800", 8, "120.00", 0),
)

_STORAGES: tuple[Json, ...] = (
    {"storageId": d.STORAGE_CAPACITY_ID, "storageType": "nas-capacity", "name": "datasets",
     "status": ac.STORAGE_ACTIVE, "capacityGB": 1024},
    {"storageId": d.STORAGE_PERFORMANCE_ID, "storageType": "nas-performance", "name": "checkpoints",
     "status": ac.STORAGE_ACTIVE, "capacityGB": 512},
    {"storageId": d.STORAGE_PROVISIONING_ID, "storageType": "nas-capacity", "name": "new-volume",
     "status": ac.STORAGE_PROVISIONING, "capacityGB": 256},
)


def products() -> list[Json]:
    return copy.deepcopy(list(_PRODUCTS))


def product(code: str) -> Json | None:
    return next((copy.deepcopy(p) for p in _PRODUCTS if p["productCode"] == code), None)


def storages() -> list[Json]:
    return copy.deepcopy(list(_STORAGES))


def storage(storage_id: str) -> Json | None:
    return next((copy.deepcopy(s) for s in _STORAGES if s["storageId"] == storage_id), None)
