"""ModelArts request validation and response rendering (api.md B.1/B.2, seed 002).

Each ``build_*`` either raises the documented ``ModelArts.xxxx`` error or returns the full response
document, completed with the fields the service fills in (ids, times, local dirs, flavor detail).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Container
from typing import Any

from .. import defaults as d
from . import catalog, contract
from .errors import CHECK_PROJECT, ModelArtsError

Json = dict[str, Any]

NAME_RE = re.compile(contract.NAME_PATTERN)
MAX_DESCRIPTION = contract.MAX_DESCRIPTION
DEFAULT_CONSTRAINT: Json = {"type": "String", "editable": True, "required": False, "sensitive": False,
                            "valid_type": "None", "valid_range": []}


def invalid(message: str) -> ModelArtsError:
    return ModelArtsError(400, contract.INVALID_PARAMETER, message)


def algorithm_not_found(algorithm_id: str) -> ModelArtsError:
    return ModelArtsError(400, contract.ALGORITHM_NOT_FOUND, f"algorithm {algorithm_id} not found.", CHECK_PROJECT)


def job_not_found(job_id: str) -> ModelArtsError:
    return ModelArtsError(400, contract.JOB_NOT_FOUND, f"training job {job_id} not found.", CHECK_PROJECT)


def parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw or b"null")
    except ValueError as exc:
        raise ModelArtsError(400, contract.INVALID_JSON, f"invalid JSON: {exc}") from exc


def _object(value: Any, where: str, *, required: bool = False) -> Json:
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise invalid(f"{where} must be an object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise invalid(f"{where} must be an array")
    return value


def _name(metadata: Json, what: str) -> str:
    name = metadata.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise invalid(f"{what} name must be 1-64 characters of letters, digits, '_' or '-'")
    return name


def _description(metadata: Json) -> str:
    description = metadata.get("description", "")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
        raise invalid(f"description must be a string of at most {MAX_DESCRIPTION} characters")
    return description


def resolve_engine(spec: Any, where: str) -> Json:
    """The catalogue engine an ``engine`` object names, or a custom-image engine."""
    spec = _object(spec, where, required=True)
    engine_id, name, version = spec.get("engine_id"), spec.get("engine_name"), spec.get("engine_version")
    if engine_id or name:
        found = catalog.engine(engine_id=engine_id, name=name, version=version)
        if found is None:
            label = engine_id or f"{name} {version}"
            raise ModelArtsError(400, contract.ENGINE_NOT_FOUND, f"engine {label} not found.")
        return found
    if isinstance(spec.get("image_url"), str) and spec["image_url"]:
        return {"engine_id": "", "engine_name": "", "engine_version": "", "image_url": spec["image_url"]}
    raise invalid(f"{where} needs engine_id, engine_name + engine_version, or image_url")


def _code(config: Json) -> tuple[str | None, str | None]:
    code_dir, boot_file = config.get("code_dir"), config.get("boot_file")
    if bool(code_dir) != bool(boot_file):
        raise ModelArtsError(400, contract.CODE_DIR_AND_BOOT_FILE, "code_dir and boot_file must be given together.")
    if code_dir and not str(boot_file).startswith(str(code_dir)):
        raise ModelArtsError(400, contract.BOOT_FILE_OUTSIDE, "boot_file must be inside code_dir.")
    return code_dir, boot_file


def _parameters(raw: Any) -> list[Json]:
    params: list[Json] = []
    for i, item in enumerate(_list(raw, "parameters")):
        item = _object(item, f"parameters[{i}]", required=True)
        name = item.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise invalid(f"parameters[{i}].name is invalid")
        if any(p["name"] == name for p in params):
            raise ModelArtsError(400, contract.PARAMETER_REPEATED, f"parameter {name} is repeated.")
        constraint = {**DEFAULT_CONSTRAINT, **_object(item.get("constraint"), f"parameters[{i}].constraint")}
        params.append({"name": name, "description": item.get("description", ""), "i18n_description": None,
                       "value": item.get("value", ""), "constraint": constraint})
    return params


def _code_tree(code_dir: str | None, boot_file: str | None) -> Json | None:
    if not code_dir or not boot_file:
        return None
    return {"name": code_dir.rstrip("/").rsplit("/", 1)[-1] + "/",
            "children": [{"name": boot_file.rsplit("/", 1)[-1]}]}


def build_algorithm(body: Any, *, algorithm_id: str, now_ms: int, previous: Json | None = None) -> Json:
    """Validate a create (or full-body update, with ``previous``) and render the algorithm."""
    body = _object(body, "body", required=True)
    metadata = _object(body.get("metadata"), "metadata", required=True)
    if previous is not None and "name" not in metadata:
        metadata = {**metadata, "name": previous["metadata"]["name"]}
    name = _name(metadata, "algorithm")
    if previous is not None and name != previous["metadata"]["name"]:
        raise invalid("algorithm name cannot be changed; create a new algorithm instead")
    config = _object(body.get("job_config"), "job_config", required=True)
    code_dir, boot_file = _code(config)
    engine = resolve_engine(config.get("engine"), "job_config.engine")
    job_config: Json = {
        "code_dir": code_dir, "boot_file": boot_file, "command": config.get("command", ""),
        "parameters": _parameters(config.get("parameters")),
        "parameters_customization": bool(config.get("parameters_customization", False)),
        "inputs": [{"description": "", **_object(x, "inputs[]", required=True)}
                   for x in _list(config.get("inputs"), "inputs")],
        "outputs": [{"description": "", **_object(x, "outputs[]", required=True)}
                    for x in _list(config.get("outputs"), "outputs")],
        "engine": engine,
        "code_tree": _code_tree(code_dir, boot_file),
    }
    created = previous["metadata"]["create_time"] if previous else now_ms
    return {
        "metadata": {
            "id": algorithm_id, "name": name, "description": _description(metadata),
            "create_time": created, "update_time": now_ms if previous else 0,
            "workspace_id": metadata.get("workspace_id", "0"), "ai_project": "default-ai-project",
            "user_name": "", "domain_id": d.DEFAULT_DOMAIN_ID, "source": "custom", "api_version": "",
            "is_valid": True, "state": "", "size": 4790, "tags": _tags(metadata.get("tags"), "metadata.tags"),
            "attr_list": None,
            "version_num": 0,
        },
        "share_info": {},
        "job_config": job_config,
        "resource_requirements": _list(body.get("resource_requirements"), "resource_requirements"),
        "advanced_config": _advanced_config(body.get("advanced_config")),
    }


def _advanced_config(value: Any) -> Json:
    """advanced_config holds auto_search (hyperparameter search) only; other keys are refused."""
    config = _object(value, "advanced_config")
    extra = set(config) - {"auto_search"}
    if extra:
        raise invalid(f"advanced_config does not accept {', '.join(sorted(extra))} (only auto_search)")
    if "auto_search" in config:
        _object(config["auto_search"], "advanced_config.auto_search", required=True)
    return config


def _io(items: Any, kind: str, descriptions: dict[str, str]) -> list[Json]:
    rendered: list[Json] = []
    for i, item in enumerate(_list(items, f"algorithm.{kind}")):
        item = _object(item, f"algorithm.{kind}[{i}]", required=True)
        name, remote = item.get("name"), _object(item.get("remote"), f"algorithm.{kind}[{i}].remote")
        if not isinstance(name, str) or not name:
            raise invalid(f"algorithm.{kind}[{i}].name is required")
        obs = _object(remote.get("obs"), f"algorithm.{kind}[{i}].remote.obs")
        if not obs.get("obs_url") and not remote.get("dataset"):
            raise invalid(f"algorithm.{kind}[{i}].remote needs obs.obs_url or dataset")
        if remote.get("dataset") is not None:
            dataset = _object(remote["dataset"], f"algorithm.{kind}[{i}].remote.dataset")
            if kind == "outputs" or obs or not all(isinstance(dataset.get(k), str) and dataset[k]
                                                   for k in ("id", "version_id")):
                raise invalid(f"algorithm.{kind}[{i}].remote.dataset needs id and version_id (inputs only, "
                              "not with obs)")
        row: Json = {"name": name, "description": descriptions.get(name, ""),
                     "local_dir": f"/home/ma-user/modelarts/{kind}/{name}_0", **item}
        if kind == "outputs":
            row.setdefault("mode", "upload_periodically")
            row.setdefault("period", 30)
        rendered.append(row)
    return rendered


def _job_algorithm(spec: Json, algorithms: Callable[[str], Json | None]) -> Json:
    params = _list(spec.get("parameters"), "algorithm.parameters")
    overrides = {p.get("name"): p.get("value") for p in params if isinstance(p, dict)}
    if spec.get("id"):
        algorithm = algorithms(spec["id"])
        if algorithm is None:
            raise algorithm_not_found(spec["id"])
        config = algorithm["job_config"]
        base: Json = {"id": spec["id"], "name": algorithm["metadata"]["name"], "code_dir": config["code_dir"],
                      "boot_file": config["boot_file"], "command": config["command"],
                      "parameters_customization": config["parameters_customization"]}
        declared = config["parameters"]
        engine = config["engine"]
        inputs = {x["name"]: x.get("description", "") for x in config["inputs"]}
        outputs = {x["name"]: x.get("description", "") for x in config["outputs"]}
    else:
        code_dir, boot_file = _code(spec)
        if not code_dir and not spec.get("command"):
            raise invalid("algorithm needs an id, code_dir + boot_file + engine, or an image with a command")
        engine = resolve_engine(spec.get("engine"), "algorithm.engine")
        base = {"id": "", "name": "", "code_dir": code_dir, "boot_file": boot_file,
                "command": spec.get("command", ""), "parameters_customization": True}
        declared, inputs, outputs = [], {}, {}
    parameters = [{**p, "value": overrides.pop(p["name"], p["value"])} for p in declared]
    parameters += [{"name": k, "value": v} for k, v in overrides.items()]
    environments = _object(spec.get("environments"), "algorithm.environments")
    if len(environments) > contract.MAX_ENVIRONMENTS:
        raise invalid(f"algorithm.environments allows at most {contract.MAX_ENVIRONMENTS} variables")
    return {
        **base, "parameters": parameters,
        "inputs": _io(spec.get("inputs"), "inputs", inputs),
        "outputs": _io(spec.get("outputs"), "outputs", outputs),
        "engine": {**engine, "usage": "training", "support_groups": "public"},
        "environments": environments,
    }


def _resource(spec: Json) -> Json:
    resource = _object(spec.get("resource"), "spec.resource", required=True)
    flavor_id = resource.get("flavor_id")
    if not isinstance(flavor_id, str) or not flavor_id:
        raise invalid("spec.resource.flavor_id is required")
    flavor = catalog.flavor(flavor_id)
    if flavor is None:
        raise ModelArtsError(400, contract.FLAVOR_NOT_FOUND, f"flavor {flavor_id} not found.")
    nodes = resource.get("node_count", 1)
    if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1:
        raise invalid("spec.resource.node_count must be an integer >= 1")
    if nodes > flavor["max_num"]:
        raise ModelArtsError(400, contract.NODE_COUNT_ABOVE_MAX,
                             f"node_count {nodes} exceeds the maximum {flavor['max_num']} of {flavor_id}.")
    detail = {k: flavor[k] for k in ("flavor_type", "billing", "flavor_info")}
    return {"policy": "regular", "flavor_id": flavor_id, "flavor_name": flavor["flavor_name"],
            "node_count": nodes, "flavor_detail": detail, **({"pool_id": resource["pool_id"]}
                                                             if resource.get("pool_id") else {})}


def _tags(value: Any, where: str) -> list[Json] | None:
    """Tags as ModelArts stores them: [{key, value}] strings, at most 20 user keys."""
    if value is None:
        return None
    tags = _list(value, where)
    if not all(isinstance(t, dict) and isinstance(t.get("key"), str) and t["key"]
               and isinstance(t.get("value", ""), str) for t in tags):
        raise ModelArtsError(400, contract.INVALID_FIELD, f"{where} must be a list of {{key, value}} strings.")
    return [{"key": t["key"], "value": t.get("value", "")} for t in tags]


def _volumes(value: Any) -> list[Json]:
    """spec.volumes: one of nfs / obs each, absolute and distinct local paths (read_only defaults true)."""
    out: list[Json] = []
    paths: set[str] = set()
    for i, item in enumerate(_list(value, "spec.volumes")):
        item = _object(item, f"spec.volumes[{i}]", required=True)
        kinds = [k for k in ("nfs", "obs") if item.get(k) is not None]
        if len(kinds) != 1 or set(item) - {"nfs", "obs"}:
            raise invalid(f"spec.volumes[{i}] needs exactly one of nfs or obs")
        mount = _object(item[kinds[0]], f"spec.volumes[{i}].{kinds[0]}", required=True)
        source = "nfs_server_path" if kinds[0] == "nfs" else "obs_url"
        local = mount.get("local_path")
        if not isinstance(mount.get(source), str) or not mount[source]:
            raise invalid(f"spec.volumes[{i}].{kinds[0]}.{source} is required")
        if not isinstance(local, str) or not local.startswith("/"):
            raise invalid(f"spec.volumes[{i}].{kinds[0]}.local_path must be an absolute path")
        if local.rstrip("/") in paths:
            raise invalid(f"spec.volumes[{i}].{kinds[0]}.local_path {local} is mounted twice")
        paths.add(local.rstrip("/"))
        read_only = mount.get("read_only", True)
        if not isinstance(read_only, bool):
            raise invalid(f"spec.volumes[{i}].{kinds[0]}.read_only must be a boolean")
        out.append({kinds[0]: {source: mount[source], "local_path": local, "read_only": read_only}})
    return out


_AFFINITY_TYPES = ("cabinet", "hyperinstance", "networkTopology")
_AFFINITY_LEVELS = {"job_level": ("cluster", "hyperinstanceGroup"), "affinity_group_level": ("hyperinstance", "slice")}
NOTIFICATION_EVENTS = ("JobStarted", "JobCompleted", "JobFailed", "JobTerminated", "JobRestarted", "JobHanged",
                       "JobPreempted")
_TOPIC_URN = re.compile(r"^urn:smn:[a-z0-9-]+:[A-Za-z0-9]+:[A-Za-z0-9][A-Za-z0-9_-]{0,255}$")
_KEY_PAIR = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _schedule_policy(value: Any, pool_id: Any) -> Json:
    """Priority, preemption and affinity: scheduling inside a dedicated pool."""
    where = "spec.schedule_policy"
    policy = _object(value, where)
    priority = policy.get("priority")
    if priority is not None and (not _int(priority) or not 1 <= priority <= 3):
        raise invalid(f"{where}.priority must be 1, 2 or 3")
    if policy.get("preemptible") is not None and not isinstance(policy["preemptible"], bool):
        raise invalid(f"{where}.preemptible must be a boolean")
    affinity = _object(policy.get("required_affinity"), f"{where}.required_affinity")
    if affinity:
        kind = affinity.get("affinity_type")
        if kind not in _AFFINITY_TYPES:
            raise invalid(f"{where}.required_affinity.affinity_type must be one of {', '.join(_AFFINITY_TYPES)}")
        size = affinity.get("affinity_group_size")
        if (size is not None or kind != "cabinet") and not (isinstance(size, int) and _int(size) and size >= 1):
            raise invalid(f"{where}.required_affinity.affinity_group_size must be a positive integer (required "
                          "with hyperinstance and networkTopology)")
        for key, allowed in _AFFINITY_LEVELS.items():
            level = affinity.get(key)
            if level is not None and (kind != "networkTopology" or level not in allowed):
                raise invalid(f"{where}.required_affinity.{key} must be one of {', '.join(allowed)} "
                              "with affinity_type networkTopology")
    if (policy.get("preemptible") or affinity) and not pool_id:
        raise invalid(f"{where}: preemptible and required_affinity need a dedicated pool (spec.resource.pool_id)")
    return policy


def _notification(value: Any) -> Json:
    note = _object(value, "spec.notification", required=True)
    if not isinstance(note.get("topic_urn"), str) or not _TOPIC_URN.match(note["topic_urn"]):
        raise invalid("spec.notification.topic_urn must be an SMN topic URN (urn:smn:<region>:<project>:<topic>)")
    events = _list(note.get("events"), "spec.notification.events")
    unknown = [e for e in events if e not in NOTIFICATION_EVENTS]
    if not events or unknown or len(set(events)) != len(events):
        raise invalid(f"spec.notification.events must list distinct events of {', '.join(NOTIFICATION_EVENTS)}"
                      + (f" (unknown: {', '.join(map(str, unknown))})" if unknown else ""))
    return {"topic_urn": note["topic_urn"], "events": events}


def _endpoints(value: Any) -> Json:
    endpoints = _object(value, "endpoints")
    ssh = _object(endpoints.get("ssh"), "endpoints.ssh")
    names = _list(ssh.get("key_pair_names"), "endpoints.ssh.key_pair_names")
    if any(not isinstance(n, str) or not _KEY_PAIR.match(n) for n in names):
        raise invalid("endpoints.ssh.key_pair_names must be ECS key pair names")
    return endpoints


def _annotations(metadata: Json) -> Json:
    annotations = _object(metadata.get("annotations"), "metadata.annotations")
    retries = annotations.get(contract.RETRY_ANNOTATION)
    if retries is not None and (not isinstance(retries, str) or not retries.isdigit()
                                or not 1 <= int(retries) <= 128):
        raise invalid(f"metadata.annotations.{contract.RETRY_ANNOTATION} must be a string of 1-128")
    for switch in (contract.UNCONDITIONAL_RETRY_ANNOTATION, contract.HANG_RETRY_ANNOTATION):
        if annotations.get(switch) not in (None, "true", "false"):
            raise invalid(f"metadata.annotations.{switch} must be \"true\" or \"false\"")
    return {"job_template": "Template DL", "key_task": "worker", **annotations}


def build_job(body: Any, *, job_id: str, now_ms: int, algorithms: Callable[[str], Json | None],
              taken: Container[str]) -> Json:
    """Validate a create body and render the job (without ``status``, which the clock drives).

    ``algorithms`` looks up an algorithm's document by ID; ``taken`` holds the names in use."""
    body = _object(body, "body", required=True)
    if body.get("kind") != contract.JOB_KIND:
        raise invalid("kind must be 'job'")
    metadata = _object(body.get("metadata"), "metadata", required=True)
    name = _name(metadata, "training job")
    if name in taken:
        raise ModelArtsError(400, contract.DUPLICATE_JOB_NAME, f"training job name {name} already exists.")
    description = _description(metadata)
    algorithm = _job_algorithm(_object(body.get("algorithm"), "algorithm", required=True), algorithms)
    spec = _object(body.get("spec"), "spec", required=True)
    annotations = _annotations(metadata)
    extras = ("log_export_path", "auto_stop")
    job: Json = {
        "kind": contract.JOB_KIND,
        "metadata": {"id": job_id, "name": name, "description": description, "create_time": now_ms,
                     "workspace_id": metadata.get("workspace_id", "0"), "ai_project": "default-ai-project",
                     "user_name": "", "annotations": annotations},
        "algorithm": algorithm,
        "spec": {"resource": _resource(spec), "is_hosted_log": True,
                 **{k: spec[k] for k in extras if k in spec}},
    }
    if spec.get("volumes") is not None:
        job["spec"]["volumes"] = _volumes(spec["volumes"])
    if spec.get("schedule_policy") is not None:
        pool_id = job["spec"]["resource"].get("pool_id")
        job["spec"]["schedule_policy"] = _schedule_policy(spec["schedule_policy"], pool_id)
    if spec.get("notification") is not None:
        job["spec"]["notification"] = _notification(spec["notification"])
    if body.get("endpoints") is not None:
        job["endpoints"] = _endpoints(body["endpoints"])
    return job


def description_update(body: Any) -> str:
    """The only change a training job accepts: ``{"description": ...}``."""
    body = _object(body, "body", required=True)
    extra = set(body) - {"description"}
    if extra:
        raise invalid(f"only description can be updated, not {', '.join(sorted(extra))}")
    return _description(body)
