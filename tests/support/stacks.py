"""Stacks wired to the emulator: the config a newcomer would set, done once for every suite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mltrain_emulator.testing import EmulatorAdmin

from .platforms import PLATFORMS
from .pulumi_cli import ROOT, Stack

PROGRAMS = ROOT / "tests" / "engine" / "programs"
# The settings every test stack sets besides its platforms' (short request timeouts, few retries).
# `keepRuns` 0: see support/inprocess.py's BASE_CONFIG (the run-record tests set it themselves).
TEST_SETTINGS = {"mltrain:requestTimeout": "5", "mltrain:maxRetries": "3", "mltrain:ambiguityGrace": "5",
                 "mltrain:keepRuns": "0"}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _set_all(stack: Stack, config: dict[str, Any], secrets: dict[str, Any] | None = None,
             credential: dict[str, Any] | None = None) -> Stack:
    """One `config set-all`; `secrets` win over `config`, which wins over the default `credential`."""
    secret = {k: v for k, v in (credential or {}).items() if k not in config}
    secret.update(secrets or {})
    stack.set_config_all({k: _text(v) for k, v in config.items() if k not in secret},
                         {k: _text(v) for k, v in secret.items()})
    return stack


def platforms_stack(platforms: tuple[str, ...], emulator: Any, home: Path, project: Path,
                    secrets: dict[str, Any] | None = None, *, stack_name: str = "test",
                    stack_type: type[Stack] = Stack, **config: Any) -> Stack:
    """A stack of `project` pointed at the emulator's APIs of `platforms` (`stack_type`: e.g. an S3-backed
    one): their settings (tests/support/platforms.py), their credentials as secrets, then `config`."""
    stack = stack_type.from_project(project, home, name=stack_name)
    base = {k: v for p in platforms for k, v in PLATFORMS[p].config(emulator).items()}
    credentials = {k: v for p in platforms for k, v in PLATFORMS[p].credentials(emulator).items()}
    return _set_all(stack, {**base, **TEST_SETTINGS, **config}, secrets, credentials)


def alaya_stack(emulator: Any, home: Path, project: Path = PROGRAMS / "alaya_job",
                secrets: dict[str, Any] | None = None, *, stack_name: str = "test",
                stack_type: type[Stack] = Stack, **config: Any) -> Stack:
    """A stack of `project` pointed at the emulator's Alaya NeW API (`stack_type`: e.g. an S3-backed one)."""
    return platforms_stack(("alaya",), emulator, home, project, secrets, stack_name=stack_name,
                           stack_type=stack_type, **config)


def modelarts_stack(emulator: Any, home: Path, project: Path = PROGRAMS / "modelarts_job",
                    secrets: dict[str, Any] | None = None, *, stack_name: str = "test",
                    **config: Any) -> Stack:
    """A stack of `project` pointed at the emulator's IAM and ModelArts APIs."""
    return platforms_stack(("modelarts",), emulator, home, project, secrets, stack_name=stack_name, **config)


def modelarts_aksk_stack(emulator: Any, home: Path, project: Path = PROGRAMS / "modelarts_job",
                         secrets: dict[str, Any] | None = None, *, stack_name: str = "test",
                         secret_key: str | None = None, **config: Any) -> Stack:
    """Like `modelarts_stack`, signed with the emulator's AK/SK pair: no user, password or domain, and
    only the project name (its ID comes from IAM's project list)."""
    stack = Stack.from_project(project, home, name=stack_name)
    base = {"huaweiIamEndpoint": emulator.url, "modelartsEndpoint": emulator.url,
            "huaweiProjectName": emulator.project_name, "huaweiAccessKey": emulator.access_key}
    return _set_all(stack, {**{f"mltrain:{k}": v for k, v in base.items()}, **TEST_SETTINGS, **config},
                    secrets,
                    {"mltrain:huaweiSecretKey": secret_key or emulator.secret_key})


def both_platforms_stack(emulator: Any, home: Path, project: Path, **config: Any) -> Stack:
    """A stack of `project` with the settings of every platform (one emulator serves them all)."""
    return platforms_stack(tuple(PLATFORMS), emulator, home, project, **config)


def sibling_stack(stack: Stack, name: str, **config: Any) -> Stack:
    """Another stack of the same project in the same backend (same workdir and PULUMI_HOME), with a
    copy of `stack`'s config (secrets included) and then `config` on top."""
    other = Stack(workdir=stack.workdir, home=stack.home, name=name, env_extra=dict(stack.env_extra),
                  timeout=stack.timeout)
    other.init()
    source, target = stack.files(), other.files()
    if source is not None and target is not None and source.salt() == target.salt():
        target.set_config(source.config())  # one salt for every stack: the ciphertexts stay valid
    else:
        stack.run("config", "cp", "--stack", stack.name, "--dest", name)
    return _set_all(other, config)


def alaya_job_args(**overrides: Any) -> dict[str, Any]:
    return PLATFORMS["alaya"].job_args(**overrides)


def alaya_task_ids(url: str) -> list[str]:
    """IDs of the Alaya NeW tasks the emulator at `url` holds that are not on their way out."""
    alaya = PLATFORMS["alaya"]
    with EmulatorAdmin(url) as admin:
        return sorted(alaya.job_id(t) for t in admin.state()[alaya.family][alaya.stored] if not t.get("deleting"))


def by_name(exported: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The state's resources by resource name."""
    return {r["urn"].rsplit("::", 1)[1]: r for r in exported["deployment"].get("resources", [])}


def ops_by_name(preview: dict[str, Any]) -> dict[str, set[str]]:
    """resource name -> the step operations `pulumi preview --json` plans for it, for resources that change."""
    ops: dict[str, set[str]] = {}
    for step in preview.get("steps", []):
        if step["op"] != "same":
            ops.setdefault(step["urn"].rsplit("::", 1)[1], set()).add(step["op"])
    return ops
