"""How the pack reads our resources: type tokens, property access, and per-job facts.

Policies see a resource's *checked inputs* (the provider's `check` result: python field names,
defaults filled). Two cases differ and both are handled here:

* During a preview in which some input is unknown (e.g. `storage_mounts=[mount.mount]` before the
  StorageMount exists), the provider cannot validate the whole spec and returns the program's
  inputs as given: defaults are absent and implied switches (`timeout_hours` turns
  `enable_timeout_cancel` on) are not applied yet.
* Stack policies get the resources' *outputs*; during a preview of a create the engine passes the
  program's inputs instead. Numbers arrive as floats (`2.0`).

Property access goes through `get()`: a missing key is None; an unknown value raises the SDK's
`UnknownValueError`, which pulumi-policy turns into an advisory "can't run policy during preview"
note. Never iterate all props: the dynamic provider's `__provider` blob is large (the engine
drops `__`-prefixed keys before analysis today, but nothing here relies on it).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pulumi_policy.proxy import UnknownValueError

ALAYA_JOB = "pulumi-python:dynamic/alaya:TrainingJob"
ALAYA_MOUNT = "pulumi-python:dynamic/alaya:StorageMount"
MODELARTS_JOB = "pulumi-python:dynamic/modelarts:TrainingJob"
MODELARTS_ALGORITHM = "pulumi-python:dynamic/modelarts:Algorithm"
TRAINING_JOBS = (ALAYA_JOB, MODELARTS_JOB)

_PREFIX = "pulumi-python:dynamic/"


def kind(resource_type: str) -> str:
    """`alaya:TrainingJob` for `pulumi-python:dynamic/alaya:TrainingJob`."""
    return resource_type.removeprefix(_PREFIX)


def label(resource_type: str, name: str) -> str:
    return f"{kind(resource_type)} '{name}'"


def get(props: Mapping[str, Any], key: str) -> Any:
    """The value of `key`, None when absent; raises UnknownValueError when unknown at preview."""
    try:
        return props[key]
    except KeyError:
        return None


def number(value: Any) -> float | None:
    """A numeric input as int/float (RPC delivers 2.0 for 2); None for absent or non-numbers."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return int(value) if float(value).is_integer() else float(value)
    if isinstance(value, str):
        try:
            return number(float(value))
        except ValueError:
            return None
    return None


def fmt(value: float | None) -> str:
    if value is None:
        return "unset"
    return f"{value:g}" if isinstance(value, float) else str(value)


def items(value: Any) -> Iterator[tuple[int, Any]]:
    """(index, element) of a list input, skipping elements unknown at preview."""
    if value is None or isinstance(value, str | bytes) or not hasattr(value, "__len__"):
        return
    for i in range(len(value)):
        try:
            yield i, value[i]
        except UnknownValueError:
            continue


def entries(value: Any) -> Iterator[tuple[str, Any]]:
    """(key, value) of a map input, skipping values unknown at preview."""
    if not isinstance(value, Mapping):
        return
    for key in value:
        try:
            yield str(key), value[key]
        except UnknownValueError:
            continue


def truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


# ----- timeouts ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Timeout:
    """The time limit a job runs under: hours (None: unbounded) and where it comes from."""

    hours: float | None
    source: str
    detail: str = ""


def alaya_timeout(props: Mapping[str, Any]) -> Timeout:
    hours = number(get(props, "timeout_hours"))
    enabled = get(props, "enable_timeout_cancel")
    on = truthy(enabled) if enabled is not None else hours is not None  # timeout_hours alone implies it
    if not on:
        return Timeout(None, "enable_timeout_cancel", "enable_timeout_cancel is off")
    if hours is None:
        return Timeout(None, "timeout_hours", "enable_timeout_cancel is on but timeout_hours is not set")
    return Timeout(hours, "timeout_hours")


def modelarts_timeout(props: Mapping[str, Any]) -> Timeout:
    """`auto_stop_hours` (ModelArts stops the job), else a custom create timeout (`timeouts.create`
    seconds, filled from `opts.custom_timeouts` too) *with* `wait_for="completed"`: only then does the
    create wait for the training to end within that time. With the default `wait_for="accepted"` a
    custom timeout only bounds the wait for the job to be accepted, not the job, so it does not count."""
    hours = number(get(props, "auto_stop_hours"))
    if hours is not None:
        return Timeout(hours, "auto_stop_hours")
    timeouts = get(props, "timeouts")
    seconds = number(get(timeouts, "create")) if isinstance(timeouts, Mapping) else None
    if seconds is None:
        return Timeout(None, "auto_stop_hours",
                       "neither auto_stop_hours nor a custom timeout (timeouts.create) is set")
    wait_for = get(props, "wait_for") or "accepted"
    if wait_for != "completed":
        return Timeout(None, "auto_stop_hours",
                       "auto_stop_hours is not set and the custom timeout "
                       f"(timeouts.create = {fmt(number(seconds))} s) does not bound the job with "
                       f"wait_for={wait_for!r} (it needs wait_for='completed')")
    return Timeout(seconds / 3600.0, "timeouts.create")


def timeout_of(resource_type: str, props: Mapping[str, Any]) -> Timeout:
    return alaya_timeout(props) if resource_type == ALAYA_JOB else modelarts_timeout(props)


# ----- sizes and images -------------------------------------------------------------------------

def node_count(resource_type: str, props: Mapping[str, Any]) -> tuple[str, float | None]:
    """(field name, node count) of a training job; ModelArts defaults to one node."""
    if resource_type == ALAYA_JOB:
        return "worker_count", number(get(props, "worker_count"))
    count = number(get(props, "node_count"))
    return "node_count", 1 if count is None else count


def node_spec(resource_type: str, props: Mapping[str, Any]) -> tuple[str, str | None]:
    """(field name, product code or flavor) that fixes a node's GPU count."""
    if resource_type == ALAYA_JOB:
        return "product_code", _str(get(props, "product_code"))
    return "flavor_id", _str(get(props, "flavor_id"))


def image_of(resource_type: str, props: Mapping[str, Any]) -> tuple[str, str | None]:
    field = "image" if resource_type == ALAYA_JOB else "image_url"
    return field, _str(get(props, field))


def _str(value: Any) -> str | None:
    return str(value) if value is not None and value != "" else None


def obs_path(path: str) -> str:
    """An OBS location in the provider's checked form: `obs://bucket/dir` -> `/bucket/dir`."""
    text = path.strip()
    return "/" + text.removeprefix("obs://") if text.startswith("obs://") else text


def normalize_path(path: str) -> str:
    norm = posixpath.normpath(path)
    return "/" if norm in ("/", "//") else norm.rstrip("/")


def path_within(path: str, roots: list[str]) -> str | None:
    """The entry of `roots` that `path` equals or lies below (whole path segments), if any."""
    norm = normalize_path(path)
    for root in roots:
        base = normalize_path(str(root))
        if norm == base or norm.startswith(base.rstrip("/") + "/"):
            return str(root)
    return None
