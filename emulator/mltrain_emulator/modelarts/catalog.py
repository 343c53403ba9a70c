"""ModelArts' seeded, read-only catalogues: training flavors and engines.

Shapes follow seed 002. Callers get deep copies, so a handler can decorate a row without changing the
catalogue.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import defaults as d

Json = dict[str, Any]


def _flavor(flavor_id: str, name: str, kind: str, max_num: int, cores: int, mem: int, gpus: int) -> Json:
    info: Json = {"cpu": {"arch": "x86", "core_num": cores}, "memory": {"size": mem, "unit": "GB"},
                  "disk": {"size": 50 if gpus == 0 else 500, "unit": "GB"}, "max_num": max_num}
    if gpus:
        info["gpu"] = {"type": "V100", "gpu_num": gpus, "gpu_memory": "32", "unit": "GB"}
    return {"flavor_id": flavor_id, "flavor_name": name, "max_num": max_num, "flavor_type": kind,
            "billing": {"code": flavor_id, "unit_num": 1}, "flavor_info": info, "attributes": {}}


_FLAVORS: tuple[Json, ...] = (
    _flavor(d.FLAVOR_CPU_8U, "Computing CPU(8U) instance", "CPU", 4, 8, 32, 0),
    _flavor(d.FLAVOR_GPU_V100, "Computing GPU(V100) instance", "GPU", 8, 8, 64, 1),
    _flavor(d.FLAVOR_GPU_8V100, "Computing GPU(8*V100) instance", "GPU", 16, 64, 512, 8),
)


def _engine(pair: tuple[str, str], run_user: str, cpu_image: str, gpu_image: str, auto_search: bool) -> Json:
    name, version = pair
    engine: Json = {
        # Seed 002 shows engine_id equal to engine_version; we follow the seed.
        "engine_id": version, "engine_name": name, "engine_version": version, "v1_compatible": False,
        "run_user": run_user,
        "image_info": {"cpu_image_url": cpu_image, "gpu_image_url": gpu_image,
                       "image_version": f"{version}-20210912152543-1e0838d"},
    }
    if auto_search:
        engine["tags"] = [{"key": "auto_search", "value": "True"}]
    return engine


_ENGINES: tuple[Json, ...] = (
    _engine(d.ENGINE_PYTORCH, "1102", "aip/pytorch_1_8:train", "aip/pytorch_1_8:train", True),
    _engine(d.ENGINE_TENSORFLOW, "1102", "aip/tensorflow_2_1:train", "aip/tensorflow_2_1:train", True),
    _engine(d.ENGINE_MINDSPORE, "1000", "", "atelier/mindspore_1_6_0:train", False),
)


def flavors() -> list[Json]:
    return copy.deepcopy(list(_FLAVORS))


def flavor(flavor_id: str) -> Json | None:
    return next((copy.deepcopy(f) for f in _FLAVORS if f["flavor_id"] == flavor_id), None)


def engines() -> list[Json]:
    return copy.deepcopy(list(_ENGINES))


def engine(engine_id: str | None = None, name: str | None = None, version: str | None = None) -> Json | None:
    """Find an engine by ``engine_id``, or by ``engine_name`` + ``engine_version``."""
    for row in _ENGINES:
        if engine_id and row["engine_id"] == engine_id:
            return copy.deepcopy(row)
        if not engine_id and name and row["engine_name"] == name and row["engine_version"] == version:
            return copy.deepcopy(row)
    return None
