"""Test program: resources of the native `mltrain` plugin as raw `pulumi.CustomResource`s.

Config (JSON): `providers` (name -> settings, the schema's provider inputs; credentials sent as
secrets), `resources` (a list of {type, name, args, provider?, customTimeouts?, outputs?}; an
argument "${other.attr}" is another resource's output), `invokes` (export name -> [token, args]).
Exports `<name>_id` and `<name>_<output>` for each resource.
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


def resolve(value: Any) -> Any:
    if isinstance(value, str) and (m := REF.match(value)):
        return getattr(made[m.group(1)], m.group(2))
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
    args = {k: resolve(v) for k, v in r.get("args", {}).items()}
    if "secretEnv" in r:
        args["env"] = {**args.get("env", {}), **{k: pulumi.Output.secret(v) for k, v in r["secretEnv"].items()}}
    res = pulumi.CustomResource(r["type"], r["name"], {**dict.fromkeys(outputs), **args}, opts)
    made[r["name"]] = res
    pulumi.export(f"{r['name']}_id", res.id)
    for out in outputs:
        pulumi.export(f"{r['name']}_{out}", getattr(res, out))

for export, (token, args) in json.loads(config.get("invokes") or "{}").items():
    pulumi.export(export, pulumi.runtime.invoke(token, args).value)
