"""Test program: resources of the native `mltrain` plugin as raw `pulumi.CustomResource`s.

Config (JSON): `providers` (name -> settings, the schema's provider inputs; credentials sent as
secrets), `resources` (a list of {type, name, args, provider?, customTimeouts?, outputs?}; an
argument "${other.attr}" is another resource's output), `invokes` (export name -> [token, args]).
Exports `<name>_id` and `<name>_<output>` for each resource.

Arguments and outputs are given by their Python names (`worker_count`, as the dynamic resources and
the tests spell them) and sent under schema.json's camelCase names (`workerCount`), nested objects too,
as every SDK of the plugin sends them; the keys of user maps (`env`, `tags`, ...) are left alone.
"""

import json
import re
from typing import Any

import pulumi

SECRETS = {"alayaApiKey", "huaweiPassword", "huaweiSecretKey", "huaweiSecurityToken"}
REF = re.compile(r"^\$\{([^.}]+)\.([^}]+)\}$")

config = pulumi.Config()
providers = {
    name: pulumi.ProviderResource("mltrain", name, {
        k: (pulumi.Output.secret(v) if k in SECRETS else v) for k, v in settings.items()})
    for name, settings in json.loads(config.get("providers") or "{}").items()
}
made: dict[str, pulumi.CustomResource] = {}
# Fields whose values are maps with the user's own keys.
MAPS = {"env", "environments", "tags", "advanced_config", "resolved_engine", "metrics_summary"}


def camel(name: str) -> str:
    if name.startswith("__"):
        return name
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def schema_names(value: Any, key: str = "") -> Any:
    if isinstance(value, dict) and key not in MAPS:
        return {camel(k): schema_names(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [schema_names(v, key) for v in value]
    return value


def resolve(value: Any) -> Any:
    if isinstance(value, str) and (m := REF.match(value)):
        return getattr(made[m.group(1)], camel(m.group(2)))
    if isinstance(value, list):
        return [resolve(v) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v) for k, v in value.items()}
    return value


for r in json.loads(config.get("resources") or "[]"):
    outputs = r.get("outputs", [])
    timeouts = r.get("customTimeouts")
    opts = pulumi.ResourceOptions(
        provider=providers.get(r.get("provider", "")),
        custom_timeouts=pulumi.CustomTimeouts(**timeouts) if timeouts else None,
        import_=r.get("import"),
    )
    args = {camel(k): resolve(schema_names(v, k)) for k, v in r.get("args", {}).items()}
    if "secretEnv" in r:
        args["env"] = {**args.get("env", {}), **{k: pulumi.Output.secret(v) for k, v in r["secretEnv"].items()}}
    res = pulumi.CustomResource(r["type"], r["name"], {**dict.fromkeys(map(camel, outputs)), **args}, opts)
    made[r["name"]] = res
    pulumi.export(f"{r['name']}_id", res.id)
    for out in outputs:
        pulumi.export(f"{r['name']}_{out}", getattr(res, camel(out)))

for export, (token, args) in json.loads(config.get("invokes") or "{}").items():
    pulumi.export(export, pulumi.runtime.invoke(token, schema_names(args)).value)
