"""Each platform as the shared test helpers drive it against the emulator: the settings that point it there
(its secrets apart), a small training job it accepts, and where the emulator's state keeps its jobs.

The one place the helpers name the platforms: the in-process handlers and settings (inprocess.py), the
stacks (stacks.py), the fault and malformed-answer matrices and the emulator's records read it, and
take what they read of a job (its type, its environment input) from the registry's facts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mltrain_emulator import defaults as d
from pulumi_mltrain import registry

Json = dict[str, Any]


@dataclass(frozen=True)
class Platform:
    family: str  # the registry's family: `alaya`, `modelarts`
    config: Callable[[Any], dict[str, str]]  # `mltrain:*` settings pointing at an emulator handle, but secrets
    credentials: Callable[[Any], dict[str, str]]  # its secret settings, from an emulator handle
    stored: str  # the emulator state's list of its training jobs (`state[family][stored]`)
    stored_id: tuple[str, ...]  # the path of a stored job's ID in it
    job: Json = field(default_factory=dict)  # the arguments of a small training job it accepts

    @property
    def training_job(self) -> registry.Resource:
        """The registry's training job of this platform."""
        return next(r for r in registry.TRAINING_JOBS if r.family == self.family)

    def settings(self, emulator: Any) -> dict[str, str]:
        """Every setting it needs against `emulator`, secrets included."""
        return {**self.config(emulator), **self.credentials(emulator)}

    def job_args(self, **overrides: Any) -> Json:
        return {**self.job, **overrides}

    def stored_jobs(self, emulator: Any) -> list[Json]:
        """The training jobs the emulator holds for it, as its admin state shows them."""
        return list(emulator.admin.state()[self.family][self.stored])

    def job_id(self, stored: Json) -> str:
        value: Any = stored
        for key in self.stored_id:
            value = value[key]
        return str(value)


def _alaya(emulator: Any) -> dict[str, str]:
    return {"mltrain:alayaEndpoint": emulator.url}


def _huawei(emulator: Any) -> dict[str, str]:
    return {"mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
            "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiProjectId": emulator.project_id,
            "mltrain:huaweiUser": emulator.iam_user, "mltrain:huaweiDomain": emulator.iam_domain}


PLATFORMS: dict[str, Platform] = {
    "alaya": Platform(
        "alaya", _alaya, lambda emulator: {"mltrain:alayaApiKey": emulator.alaya_api_key}, "tasks", ("id",),
        {"product_code": "PRD-TRAIN-2", "worker_count": 2,
         "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu", "training_framework": "pytorch",
         "start_command": "python3 train.py", "timeout_hours": 12}),
    "modelarts": Platform(
        "modelarts", _huawei, lambda emulator: {"mltrain:huaweiPassword": emulator.iam_password}, "jobs",
        ("metadata", "id"),
        {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
         "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}),
}


def job_ids(emulator: Any, platform: str) -> list[str]:
    """The IDs of the training jobs the emulator holds for `platform`, sorted."""
    found = PLATFORMS[platform]
    return sorted(found.job_id(job) for job in found.stored_jobs(emulator))


def with_env(platform: str, args: Json, env: dict[str, str]) -> Json:
    """`args` of a training job of `platform` with `env` added to its environment input."""
    name = PLATFORMS[platform].training_job.env
    assert name is not None, platform
    return {**args, name: {**(args.get(name) or {}), **env}}
