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
        prefetch = item.get("prefetch_to_local")
        if prefetch is not None and (kind != "outputs" or not isinstance(prefetch, bool)):
            raise invalid(f"algorithm.{kind}[{i}].prefetch_to_local must be a boolean, on an output channel")
        row: Json = {"name": name, "description": descriptions.get(name, ""),
                     "local_dir": f"/home/ma-user/modelarts/{kind}/{name}_0", **item}
        if kind == "outputs":
            row.setdefault("mode", "upload_periodically")
            row.setdefault("period", 30)
            # Predownload: the channel's OBS files are copied into local_dir before the job starts (Huawei's
            # "Resumable Training" guide); off unless asked.
            row.setdefault("prefetch_to_local", False)
        rendered.append(row)
    return rendered


def _job_algorithm(spec: Json, algorithms: Callable[[str], Json | None], *, of_asset: bool = False) -> Json:
    """The job's algorithm: a stored one by ID, inline code, or (``of_asset``: a fine-tune job of a model
    asset, spec.asset_id) none at all, as Huawei's Terraform example of a fine-tune job sends it."""
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
        bare = not code_dir and not spec.get("command") and not spec.get("engine")
        if bare and of_asset:
            engine = {"engine_id": "", "engine_name": "", "engine_version": "", "image_url": ""}
        elif not code_dir and not spec.get("command"):
            raise invalid("algorithm needs an id, code_dir + boot_file + engine, or an image with a command")
        else:
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


_METRIC_EXEC, _METRIC_HTTP = "exec", "http_get"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _custom_metrics(value: Any) -> list[Json]:
    """spec.custom_metrics: each exactly one of exec {command[]} or http_get {path, port} (Huawei's SDK:
    HttpGet's path and port come together)."""
    out: list[Json] = []
    for i, item in enumerate(_list(value, "spec.custom_metrics")):
        where = f"spec.custom_metrics[{i}]"
        item = _object(item, where, required=True)
        kinds = [k for k in (_METRIC_EXEC, _METRIC_HTTP) if item.get(k) is not None]
        if len(kinds) != 1 or set(item) - {_METRIC_EXEC, _METRIC_HTTP}:
            raise invalid(f"{where} needs exactly one of exec or http_get")
        if kinds[0] == _METRIC_EXEC:
            command = _object(item[_METRIC_EXEC], f"{where}.exec", required=True).get("command")
            if not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command):
                raise invalid(f"{where}.exec.command must be a non-empty array of strings")
            out.append({_METRIC_EXEC: {"command": list(command)}})
            continue
        get = _object(item[_METRIC_HTTP], f"{where}.http_get", required=True)
        path, port = get.get("path"), get.get("port")
        if not isinstance(path, str) or not path.startswith("/"):
            raise invalid(f"{where}.http_get.path must be a URL path (starting with /), given with port")
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            raise invalid(f"{where}.http_get.port must be an integer 1-65535, given with path")
        out.append({_METRIC_HTTP: {"path": path, "port": port}})
    return out


def _text(value: Any, where: str, *, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise invalid(f"{where} must be a non-empty string")
    return value


def _output_model(value: Any) -> Json:
    """spec.output_model: {obs: {obs_path, local_path?}} (Huawei's SDK, ObsModel: "obs://example/path")."""
    obs = _object(_object(value, "spec.output_model", required=True).get("obs"), "spec.output_model.obs",
                  required=True)
    path = _text(obs.get("obs_path"), "spec.output_model.obs.obs_path", required=True)
    if not str(path).startswith(("obs://", "/")):
        raise invalid("spec.output_model.obs.obs_path must be an OBS path (obs://bucket/path)")
    local = _text(obs.get("local_path"), "spec.output_model.obs.local_path")
    if local is not None and not local.startswith("/"):
        raise invalid("spec.output_model.obs.local_path must be an absolute path")
    return {"obs": {"obs_path": path, **({"local_path": local} if local else {})}}


def _asset_model(value: Any) -> Json:
    """spec.asset_model: name, version and type are required (Huawei's Terraform provider)."""
    asset = _object(value, "spec.asset_model", required=True)
    out = {k: _text(asset.get(k), f"spec.asset_model.{k}", required=True) for k in ("name", "version", "type")}
    out |= {k: _text(asset.get(k), f"spec.asset_model.{k}") for k in ("code", "desc", "series") if asset.get(k)}
    return out


def _ftjob_config(value: Any) -> Json:
    """ftjob_config (MasJobConfig): checkpoint counts as Huawei's SDK documents them (save_checkpoints_max 0
    off, -1 no limit; skipped_steps >= 0; restore_training 0 or 1), environment variables by name."""
    config = _object(value, "ftjob_config", required=True)
    for key in ("ft_job_uuid", "ft_train_type", "model_type", "train_output_path", "checkpoint_id"):
        _text(config.get(key), f"ftjob_config.{key}")
    checkpoint = _object(config.get("checkpoint_config"), "ftjob_config.checkpoint_config")
    for key, low, high in (("save_checkpoints_max", -1, None), ("skipped_steps", 0, None),
                           ("restore_training", 0, 1)):
        number = checkpoint.get(key)
        if number is not None and (not _int(number) or number < low or (high is not None and number > high)):
            bounds = f"{low}-{high}" if high is not None else f">= {low}"
            raise invalid(f"ftjob_config.checkpoint_config.{key} must be an integer {bounds}")
    if checkpoint.get("restore_training") == 1 and not (checkpoint.get("checkpoint_id") or config.get("checkpoint_id")):
        raise invalid("ftjob_config.checkpoint_config.restore_training 1 needs a checkpoint_id to resume from")
    envs = _list(_object(config.get("task_env"), "ftjob_config.task_env").get("envs"), "ftjob_config.task_env.envs")
    names: set[str] = set()
    for i, env in enumerate(envs):
        env = _object(env, f"ftjob_config.task_env.envs[{i}]", required=True)
        name = env.get("env_name")
        if not isinstance(name, str) or not _ENV_NAME.match(name) or name in names:
            raise invalid(f"ftjob_config.task_env.envs[{i}].env_name must be a distinct environment variable name")
        names.add(name)
    return config


def _fine_tune(body: Json, spec: Json) -> tuple[Json, Json]:
    """(the job's top-level train_type and ftjob_config, its spec's output_model, asset_model and asset_id),
    checked: the fine-tune fields need train_type, and publishing a model needs its output."""
    train_type = body.get("train_type")
    if train_type is not None and train_type not in contract.TRAIN_TYPES:
        raise invalid(f"train_type must be one of {', '.join(contract.TRAIN_TYPES)}")
    top: Json = {"train_type": train_type} if train_type else {}
    extra: Json = {}
    if body.get("ftjob_config") is not None:
        top["ftjob_config"] = _ftjob_config(body["ftjob_config"])
    if spec.get("output_model") is not None:
        extra["output_model"] = _output_model(spec["output_model"])
    if spec.get("asset_model") is not None:
        extra["asset_model"] = _asset_model(spec["asset_model"])
        if "output_model" not in extra:
            raise invalid("spec.asset_model publishes the trained model: spec.output_model is required")
    if spec.get("asset_id") is not None:
        extra["asset_id"] = _text(spec["asset_id"], "spec.asset_id", required=True)
    needs = [k for k in ("ftjob_config",) if k in top] + [f"spec.{k}" for k in ("asset_model", "asset_id")
                                                          if k in extra]
    if needs and not train_type:
        raise invalid(f"{', '.join(needs)} apply to fine-tune jobs only: train_type is required")
    return top, extra


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
    spec = _object(body.get("spec"), "spec", required=True)
    fine_tune, model = _fine_tune(body, spec)
    algorithm = _job_algorithm(_object(body.get("algorithm"), "algorithm", required=True), algorithms,
                               of_asset=bool(fine_tune.get("train_type") and model.get("asset_id")))
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
    if spec.get("custom_metrics") is not None:
        job["spec"]["custom_metrics"] = _custom_metrics(spec["custom_metrics"])
    job["spec"].update(model)
    job.update(fine_tune)
    return job


def description_update(body: Any) -> str:
    """The only change a training job accepts: ``{"description": ...}``."""
    body = _object(body, "body", required=True)
    extra = set(body) - {"description"}
    if extra:
        raise invalid(f"only description can be updated, not {', '.join(sorted(extra))}")
    return _description(body)
