"""Validation of the Alaya create body (seed 000), normalised to one canonical dict.

Errors read ``"<field>: <reason>"`` and travel as business status 400, the way the real API reports
a bad request. Both spellings of the framework field are accepted (api.md A.7 #1); enum values
match case-insensitively and are echoed as sent.
"""

from __future__ import annotations

from typing import Any

from . import contract
from .contract import CREATE_TYPES, FRAMEWORKS, IMAGE_TYPES, STORAGE_TYPES, TRAINING_TYPES
from .errors import AlayaError

Json = dict[str, Any]

MAX_NAME = contract.NAME_MAX


def _bad(field: str, reason: str) -> AlayaError:
    return AlayaError(contract.BAD_REQUEST, f"{field}: {reason}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string(body: Json, field: str, *, required: bool = False, where: str = "") -> str | None:
    value = body.get(field)
    label = f"{where}{field}"
    if value is None:
        if required:
            raise _bad(label, "is required")
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise _bad(label, "must be a non-empty string" if required else "must be a string")
    return value


def _integer(
    body: Json, field: str, low: int, high: int | None = None, *, required: bool = False
) -> int | None:
    value = body.get(field)
    if value is None:
        if required:
            raise _bad(field, "is required")
        return None
    if not _is_int(value) or value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f">= {low}"
        raise _bad(field, f"must be an integer {bounds}")
    return int(value)


def _boolean(body: Json, field: str, default: bool, where: str = "") -> bool:
    value = body.get(field, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise _bad(f"{where}{field}", "must be true or false")
    return value


def _choice(body: Json, field: str, allowed: tuple[str, ...], *, required: bool = False) -> str | None:
    value = _string(body, field, required=required)
    if value is not None and value.lower() not in (a.lower() for a in allowed):
        raise _bad(field, f"must be one of {', '.join(allowed)}")
    return value


def _framework(body: Json) -> str | None:
    typo = _choice(body, "trainingFramwork", FRAMEWORKS)
    right = _choice(body, "trainingFramework", FRAMEWORKS)
    if typo is not None and right is not None and typo.lower() != right.lower():
        raise _bad("trainingFramework", "conflicts with trainingFramwork")
    return typo if typo is not None else right


def _storage_configs(body: Json) -> list[Json]:
    raw = body.get("storageConfigs")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _bad("storageConfigs", "must be an array")
    configs: list[Json] = []
    for i, item in enumerate(raw):
        where = f"storageConfigs[{i}]."
        if not isinstance(item, dict):
            raise _bad(f"storageConfigs[{i}]", "must be an object")
        storage_type = _string(item, "storageType", where=where)
        if storage_type is not None and storage_type not in STORAGE_TYPES:
            raise _bad(f"{where}storageType", f"must be one of {', '.join(STORAGE_TYPES)}")
        mount_path = _string(item, "mountPath", required=True, where=where)
        assert mount_path is not None
        if not mount_path.startswith("/"):
            raise _bad(f"{where}mountPath", "must be an absolute path")
        if any(c["mountPath"] == mount_path for c in configs):
            raise _bad(f"{where}mountPath", f"{mount_path} is mounted twice")
        configs.append({
            "storageId": _string(item, "storageId", required=True, where=where),
            "storageType": storage_type,
            "fileDirectory": _string(item, "fileDirectory", where=where) or "",
            "mountPath": mount_path,
            "onlyRead": _boolean(item, "onlyRead", True, where=where),
        })
    return configs


def _env(body: Json) -> dict[str, str]:
    raw = body.get("env")
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _bad("env", "must be an object of strings")
    for key, value in raw.items():
        if not isinstance(value, str):
            raise _bad(f"env.{key}", "must be a string")
    return dict(raw)


def _bounded(value: str | None, field: str, limit: int) -> str | None:
    if value is not None and len(value) > limit:
        raise _bad(field, f"must be at most {limit} characters")
    return value


def normalise_create(body: Any) -> Json:
    """The canonical create request, or ``AlayaError(400, "<field>: <reason>")``."""
    if not isinstance(body, dict):
        raise _bad("body", "must be a JSON object")
    name = _string(body, "name", required=True)
    assert name is not None
    if len(name) > MAX_NAME:
        raise _bad("name", f"must be at most {MAX_NAME} characters")
    create_type = _choice(body, "createType", CREATE_TYPES, required=True)
    assert create_type is not None
    product_code = _string(body, "productCode", required=True)
    worker_count = _integer(body, "workerCount", *contract.WORKER_COUNT, required=True)
    image = _string(body, "image", required=True)
    priority = _integer(body, "priority", *contract.PRIORITY)
    enable_retry = _boolean(body, "enableAutoRetry", False)
    enable_timeout = _boolean(body, "enableTimeoutCancel", False)
    timeout_hours = _integer(body, "timeoutHours", *contract.TIMEOUT_HOURS)
    if enable_timeout and timeout_hours is None:
        raise _bad("timeoutHours", "is required when enableTimeoutCancel is true")
    return {
        "name": name,
        "createType": create_type.upper(),
        "desc": _bounded(_string(body, "desc"), "desc", contract.DESC_MAX),
        "priority": contract.DEFAULT_PRIORITY if priority is None else priority,
        "trainingType": _choice(body, "trainingType", TRAINING_TYPES),
        "imageType": _choice(body, "imageType", IMAGE_TYPES),
        "trainingFramework": _framework(body),
        "productCode": product_code,
        "workerCount": worker_count,
        "image": image,
        "storageConfigs": _storage_configs(body),
        "env": _env(body),
        "enableAutoRetry": enable_retry,
        "maxRetryCount": _integer(body, "maxRetryCount", *contract.MAX_RETRY_COUNT),
        "enableTimeoutCancel": enable_timeout,
        "timeoutHours": timeout_hours,
        "startCommand": _string(body, "startCommand"),
    }
