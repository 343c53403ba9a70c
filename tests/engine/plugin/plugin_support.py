"""Helpers of the plugin's engine tests: the raw and both-forms programs, PATH for the plugin,
declarations, look-ups (a module of its own name: several test folders have a conftest.py, so
`from conftest import` is ambiguous)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from mltrain_emulator import defaults as d
from support import stacks
from support.pulumi_cli import BIN, VENV, Stack

RAW = Path(__file__).parent / "programs" / "raw"
BOTH = Path(__file__).parent / "programs" / "both_forms"
PLUGIN = VENV / "bin" / "pulumi-resource-mltrain"


def on_path(stack: Stack) -> Stack:
    """The engine finds the plugin on PATH (as an installed wheel's console script)."""
    assert PLUGIN.exists(), f"{PLUGIN} is missing: run `bash scripts/bootstrap.sh` (pip install -e .)"
    stack.env_extra["PATH"] = f"{BIN}{os.pathsep}{PLUGIN.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return stack


def declare(stack: Stack, resources: list[dict[str, Any]], **config: Any) -> None:
    """The raw program's `resources` (and other JSON config such as `providers` or `invokes`)."""
    stack.set_config_all({"resources": json.dumps(resources), **{k: json.dumps(v) for k, v in config.items()}})


def alaya_job(name: str = "job", **args: Any) -> dict[str, Any]:
    return {"type": "mltrain:alaya:TrainingJob", "name": name, "args": stacks.alaya_job_args(**args),
            "outputs": ["status", "name", "training_task_id"]}


def modelarts_job_args(**args: Any) -> dict[str, Any]:
    """A ModelArts job with its own code (no algorithm) on the emulator's 8-CPU flavor."""
    return {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
            "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], **args}


def tasks(emulator: Any) -> list[dict[str, Any]]:
    """Alaya NeW tasks that are not on their way out."""
    return [t for t in emulator.admin.state()["alaya"]["tasks"] if not t.get("deleting")]


def output_of(result: Any) -> str:
    return str(result.stdout + result.stderr)


SUMMARY = re.compile(r"(\d+) (created|updated|deleted|replaced|unchanged)\b")


def summary(result: Any) -> dict[str, int]:
    """The `Resources:` summary a `pulumi up` or `destroy` prints at its end (also after a failure), e.g.
    {"replaced": 1, "unchanged": 4}: what the engine did, read from the command's own output."""
    text = output_of(result)
    if "Resources:" not in text:
        return {}
    section = text.rsplit("Resources:", 1)[1].split("Duration:", 1)[0]
    return {kind: int(n) for n, kind in SUMMARY.findall(section)}


def managed(stack: Stack, prefix: str = "mltrain:") -> list[dict[str, Any]]:
    """The stack's resources whose type starts with `prefix` (the plugin's types; not providers)."""
    return [r for r in stack.export()["deployment"].get("resources", []) if r["type"].startswith(prefix)]


# ----- the both-forms program: each job as a dynamic (`dyn-*`) and a plugin (`plug-*`) resource -----
def both_platforms_stack(emulator: Any, home: Path) -> Stack:
    """A stack of the both-forms program with the settings of both platforms."""
    return stacks.both_platforms_stack(emulator, home, BOTH)


def both_forms(stack: Stack, jobs: dict[str, dict[str, Any]], create_timeout: str | None = None,
               **config: Any) -> Stack:
    """`jobs`: platform (alaya, modelarts) -> job name -> arguments; `config`: more JSON config
    (`triggers`, `logsOf`)."""
    on_path(stack)
    stack.set_config_all({"jobs": json.dumps(jobs), **{k: json.dumps(v) for k, v in config.items()},
                          **({"createTimeout": create_timeout} if create_timeout else {})})
    return stack


# Fields whose values are maps with the user's own keys (never renamed).
MAPS = {"env", "environments", "tags", "advanced_config", "resolved_engine", "metrics_summary", "final_metrics"}


def _snake(name: str) -> str:
    return name if name.startswith("__") else re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _python_names(value: Any, key: str = "") -> Any:
    if isinstance(value, dict) and key not in MAPS and not key.startswith("__"):
        out = {}
        for k, v in value.items():
            assert k.startswith("__") or "_" not in k, f"the plugin wrote {k!r}: schema.json's names are camelCase"
            out[_snake(k)] = _python_names(v, _snake(k))
        return out
    if isinstance(value, list):
        return [_python_names(v, key) for v in value]
    return value


def python_names(resource: dict[str, Any]) -> dict[str, Any]:
    """A state resource with its inputs and outputs by their Python names, so that assertions read both
    forms alike: a plugin resource's camelCase properties renamed (nested too; a property the plugin
    wrote in the Python spelling fails), a dynamic resource's as they are."""
    if not str(resource.get("type", "")).startswith("mltrain:"):
        return resource
    return {**resource, **{part: _python_names(resource[part]) for part in ("inputs", "outputs") if part in resource}}


def by_name(stack: Stack) -> dict[str, dict[str, Any]]:
    """The stack's training jobs (both forms, both platforms) by resource name, by Python names."""
    return {r["urn"].rsplit("::", 1)[1]: python_names(r) for r in stack.resources(":TrainingJob")}


def live_jobs(emulator: Any, platform: str | None = None) -> dict[str, str]:
    """Platform name -> ID of the jobs of `platform` (else of both) that are not on their way out."""
    state = emulator.admin.state()
    alaya = {str(t["name"]): str(t["id"]) for t in state["alaya"]["tasks"] if not t["deleting"]}
    modelarts = {str(j["metadata"]["name"]): str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"]
                 if not j["deleting"]}
    return {"alaya": alaya, "modelarts": modelarts}.get(platform or "", {**alaya, **modelarts})


def resource_of_job(name: str) -> str:
    """The resource a job belongs to, from its autonamed name (`<resource>-<suffix>`)."""
    return name.rsplit("-", 1)[0]


def by_resource(emulator: Any, platform: str | None = None) -> dict[str, str]:
    """Resource name -> ID of the live jobs (`live_jobs`)."""
    return {resource_of_job(n): i for n, i in live_jobs(emulator, platform).items()}


def said(output: str, text: str) -> set[str]:
    """The resources whose error lines contain `text`."""
    return {resource_of_job(name) for line in output.splitlines() if text in line
            for name in re.findall(r"TrainingJob '([^']+)'", line)}
