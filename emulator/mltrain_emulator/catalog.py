"""Seeded, read-only catalogues: Alaya products and NAS storages, ModelArts flavors and engines.

Each platform keeps its own (``alaya.catalog``, ``modelarts.catalog``); this module names both for
clients and tests, which read the rows the emulator serves (``from mltrain_emulator import catalog``).
"""

from __future__ import annotations

from .alaya.catalog import product, products, storage, storages
from .modelarts.catalog import engine, engines, flavor, flavors

__all__ = ["engine", "engines", "flavor", "flavors", "product", "products", "storage", "storages"]
