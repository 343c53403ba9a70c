"""Abandoned runs: training jobs that carry the owner mark of a stack of this backend, yet no stack records.

A job is left behind when its stack forgets it: `pulumi stack rm --force` on a stack that still had
jobs, `pulumi state delete`, or a create whose answer never reached the state (an `up` killed after
the platform accepted the job). It keeps running, and costing, with nobody to stop it.

`abandoned_runs` is a plain function (no Pulumi invoke: it needs no engine and runs anywhere the
`pulumi` CLI does); `mltrain-runs abandoned` prints its result and, with `--stop`, stops the jobs.

What the backend holds is read with the user's own `pulumi` CLI and environment (login,
PULUMI_BACKEND_URL, PULUMI_CONFIG_PASSPHRASE...): `pulumi stack ls --all --json`, then
`pulumi stack export` of each stack. From the exports come the stack identities (the dynamic form's
`mltrain-stack-identity` resource and every `__mltrain_stack` in a state; the plugin form's identity of
each stack's project and name) and every ID any stack records (resources, outputs and pending
operations alike).

A job with an owner mark (stack identity S, URN `urn:pulumi:STACK::PROJECT::...`) that no stack
records is abandoned when either

1. S is the identity of a stack this backend holds (that stack does not record it: an interrupted
   create, a `pulumi state delete`); or
2. only when asked for (`removed_stacks=True`, `--include-removed-stacks`): S is no identity this
   backend holds, PROJECT is a project of this backend, and this backend has no stack STACK of
   PROJECT: the stack was removed (a removed stack can no longer be read, so its identity is unknown
   and its URN is what is left).

Anything else is never listed: a job without a mark (made by hand, by another tool), a job any stack
records, a kept run record (an ended run a replace or destroy kept: `mltrain-runs history` lists
those), a job whose URN names a project this backend does not hold (another backend's), and one
whose URN names a stack this backend holds under an identity that is not that stack's (a stack of
the same project and name in another backend; or a stack removed and made again, whose old jobs
are then left alone). Rule 2 cannot tell a removed stack from a stack of the same project under a
name this backend never had in another backend on the same account, which is why it is not the
default: review its list before `--stop`.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import registry
from ..config import Settings
from ..errors import MltrainError
from ..lifecycle.protocol import Marked
from ..ownership import (
    ATTEMPT_KEY,
    REMOVED_KEY,
    STACK_KEY,
    Mark,
    derived_stack_identity,
    held_failure,
    project_and_stack,
    resource_of,
)
from ..platform_calls import Context

STACK_IDENTITY_TYPE = "pulumi-python:dynamic/mltrain:StackIdentity"


class BackendError(MltrainError):
    """The `pulumi` CLI could not list or export the backend's stacks."""


@dataclass(frozen=True)
class HeldRun:
    """A held failed run, as its stack's state records it (`mltrain-runs held`): no platform call."""

    stack: str  # PROJECT/STACK
    resource: str
    urn: str
    kind: str  # `alaya:TrainingJob`
    job_id: str
    status: str | None
    attempt: int
    job_kept: bool  # on_failure="keep": the job stays on the platform as the run's record
    failure: str  # what failed, and how to run it again

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class StateRun:
    """The run a stack's state records for one training job: what the run history reads of it."""

    job_id: str
    urn: str
    run_reason: str | None
    keep_runs: int | None  # the resource's own keep_runs, if it sets one


@dataclass(frozen=True)
class StackRecord:
    """What one stack of the backend says: its project and name, identities, the IDs it records, the
    held failed runs among them, and its training jobs' current runs."""

    project: str
    name: str
    identities: frozenset[str]
    recorded: frozenset[str]
    held: tuple[HeldRun, ...] = ()
    runs: tuple[StateRun, ...] = ()


@dataclass
class Backend:
    """The stacks of one backend, as `pulumi stack export` gives them."""

    stacks: list[StackRecord] = field(default_factory=list)

    @property
    def projects(self) -> set[str]:
        return {s.project for s in self.stacks}

    def identities(self) -> set[str]:
        return {i for s in self.stacks for i in s.identities}

    def recorded(self) -> set[str]:
        return {r for s in self.stacks for r in s.recorded}

    def stack(self, project: str, name: str) -> StackRecord | None:
        return next((s for s in self.stacks if s.project == project and s.name == name), None)


@dataclass(frozen=True)
class AbandonedRun:
    platform: str  # the family (`registry.FAMILIES`): "alaya", "modelarts"
    job_id: str
    name: str | None
    stack: str  # PROJECT/STACK, from the mark's URN
    resource: str  # the resource name at the end of the URN
    urn: str
    stack_identity: str
    why: str  # "stack removed" or "not recorded by its stack"
    status: str
    live: bool  # still running or queued: what --stop stops
    age_hours: float | None
    cost_so_far: float | None  # None: not known (ModelArts gives no price; Alaya without a listed hourly price)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def stack_record(project: str, name: str, exported: Mapping[str, Any]) -> StackRecord:
    """Identities and recorded IDs of one `pulumi stack export`."""
    deployment = exported.get("deployment") or {}
    identities = {derived_stack_identity(f"urn:pulumi:{name}::{project}::x::x")}
    recorded: set[str] = set()
    for res in [*(deployment.get("resources") or []),
                *((op.get("resource") or {}) for op in deployment.get("pending_operations") or [])]:
        if res.get("type") == STACK_IDENTITY_TYPE and res.get("id"):
            identities.add(str(res["id"]))
        if res.get("type") == "pulumi:providers:mltrain":
            configured = (res.get("inputs") or {}).get("stackIdentity")
            if isinstance(configured, str) and configured:
                identities.add(derived_stack_identity("", configured))
        for props in (res.get("inputs"), res.get("outputs")):
            if isinstance(props, Mapping):
                if isinstance(props.get(STACK_KEY), str) and props[STACK_KEY]:
                    identities.add(props[STACK_KEY])
                recorded.update(_strings(props))
        if res.get("id"):
            recorded.add(str(res["id"]))
    held = tuple(h for res in deployment.get("resources") or [] if (h := held_run(project, name, res)) is not None)
    runs = tuple(r for res in deployment.get("resources") or [] if (r := state_run(res)) is not None)
    return StackRecord(project, name, frozenset(identities), frozenset(recorded), held, runs)


def state_run(res: Mapping[str, Any]) -> StateRun | None:
    """The current run a state's training job records (either form: the plugin's names are camelCase)."""
    entry = registry.resource(str(res.get("type", "")))
    outputs = res.get("outputs")
    if entry is None or entry.run is None or not isinstance(outputs, Mapping) or not res.get("id"):
        return None
    reason = outputs.get("run_reason", outputs.get("runReason"))
    keep = outputs.get("keep_runs", outputs.get("keepRuns"))
    return StateRun(str(res["id"]), str(res.get("urn")), reason if isinstance(reason, str) else None,
                    int(keep) if isinstance(keep, int | float) and not isinstance(keep, bool) else None)


def held_run(project: str, name: str, res: Mapping[str, Any]) -> HeldRun | None:
    """The held failed run a state's resource records (FAILED_KEY in its outputs), in either form."""
    outputs = res.get("outputs")
    entry = registry.resource(str(res.get("type", "")))
    if not isinstance(outputs, Mapping) or entry is None:
        return None
    failure = held_failure(outputs)
    if failure is None:
        return None
    status = outputs.get(entry.run.state) if entry.run is not None else None
    attempt = outputs.get(ATTEMPT_KEY)
    return HeldRun(stack=f"{project}/{name}", resource=resource_of(str(res.get("urn", ""))), urn=str(res.get("urn")),
                   kind=entry.kind, job_id=str(res.get("id")), status=str(status) if status is not None else None,
                   attempt=int(attempt) if isinstance(attempt, int | float) else 1,
                   job_kept=not outputs.get(REMOVED_KEY), failure=failure)


def _strings(value: Any) -> Iterable[str]:
    """Every string in a state's properties (IDs are recorded in outputs such as `training_task_id`)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _pulumi(args: Sequence[str], env: Mapping[str, str] | None, cwd: str | None) -> str:
    argv = [os.environ.get("MLTRAIN_PULUMI", "pulumi"), *args, "--non-interactive"]
    try:
        done = subprocess.run(argv, env=dict(env) if env is not None else None, cwd=cwd, capture_output=True,
                              text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BackendError(f"`pulumi {' '.join(args)}` could not run: {err}") from None
    if done.returncode != 0:
        raise BackendError(f"`pulumi {' '.join(args)}` exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return done.stdout


def read_backend(env: Mapping[str, str] | None = None, cwd: str | None = None) -> Backend:
    """Every stack of the current backend (`pulumi stack ls --all`), exported."""
    backend = Backend()
    for row in json.loads(_pulumi(["stack", "ls", "--all", "--json"], env, cwd) or "[]"):
        full = str(row["name"])
        parts = full.split("/")
        project = parts[-2] if len(parts) >= 2 else _project_of(env, cwd)
        exported = json.loads(_pulumi(["stack", "export", "--stack", full], env, cwd))
        backend.stacks.append(stack_record(project, parts[-1], exported))
    return backend


def _project_of(env: Mapping[str, str] | None, cwd: str | None) -> str:
    """The project of the folder the CLI runs in (a stack name without a project is one of it)."""
    import yaml

    folder = cwd or os.getcwd()
    for name in ("Pulumi.yaml", "Pulumi.yml"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                return str(yaml.safe_load(f)["name"])
    raise BackendError("`pulumi stack ls` named a stack without its project, and no Pulumi.yaml is here")


def stack_settings(stack: str | None = None, env: Mapping[str, str] | None = None,
                   cwd: str | None = None) -> Settings:
    """The `mltrain:*` settings of a stack's config (`stack`, else the selected one), then the environment."""
    args = ["config", "--json", "--show-secrets", *(["--stack", stack] if stack else [])]
    values = {k: v.get("value") for k, v in json.loads(_pulumi(args, env, cwd) or "{}").items()
              if isinstance(v, dict)}
    return Settings.load({k: v for k, v in values.items() if v is not None}, env)


def verdict(mark: Mark | None, job_id: str, backend: Backend, identities: set[str],
            recorded: set[str], removed_stacks: bool) -> str | None:
    """Why a job is abandoned (rules 1 and 2 of the module's doc), or None when it is not."""
    if mark is None or job_id in recorded:
        return None
    if mark.stack in identities:
        return "not recorded by its stack"
    if not removed_stacks:
        return None
    project, name = project_and_stack(mark.urn)
    if project in backend.projects and backend.stack(project, name) is None:
        return "stack removed"
    return None


def _hours(seconds: float | None) -> float | None:
    return None if seconds is None else round(max(0.0, seconds) / 3600, 3)


def _platforms(settings: Settings, chosen: Sequence[str] | None) -> dict[str, Marked]:
    """Family -> the runs of each platform asked for (default: each one `settings` configure)."""
    found: dict[str, Marked] = {}
    for entry in registry.RESOURCES:
        calls = entry.calls()
        wanted = calls.configured(settings) if chosen is None else entry.family in chosen
        if not calls.runs or not wanted:
            continue
        found[entry.family] = calls(Context(settings))
    return found


def platform_runs(family: str, runs: Marked, backend: Backend, now: float | None = None, *,
                  removed_stacks: bool = False) -> list[AbandonedRun]:
    """The abandoned runs among one platform's marked jobs."""
    now = time.time() if now is None else now
    identities, recorded = backend.identities(), backend.recorded()

    reasons: dict[str, str] = {}  # job ID -> why it is abandoned, judged once per job

    def keep(job_id: str, mark: Mark) -> bool:
        why = verdict(mark, job_id, backend, identities, recorded, removed_stacks)
        if why is not None:
            reasons[job_id] = why
        return why is not None

    out: list[AbandonedRun] = []
    for run in runs.marked(recorded, keep, now):
        if run.record:
            continue  # a kept run record (lifecycle/records.py): `mltrain-runs history` lists it
        project, stack = project_and_stack(run.mark.urn)
        out.append(AbandonedRun(
            platform=family, job_id=run.object_id, name=run.name, stack=f"{project}/{stack}",
            resource=resource_of(run.mark.urn), urn=run.mark.urn, stack_identity=run.mark.stack,
            why=reasons[run.object_id], status=run.state, live=run.live,
            age_hours=_hours(None if run.created is None else now - run.created), cost_so_far=run.cost_so_far))
    return out


def abandoned_runs(settings: Settings | None = None, *, config_stack: str | None = None,
                   platforms: Sequence[str] | None = None, env: Mapping[str, str] | None = None,
                   cwd: str | None = None, backend: Backend | None = None,
                   removed_stacks: bool = False) -> list[AbandonedRun]:
    """The abandoned runs on every platform `settings` can reach (rules in the module's doc; rule 2
    only with `removed_stacks`).

    `settings`: the platforms' credentials; by default the config of `config_stack` (else the
    selected stack) and then the environment, as `stack_settings` reads them. `platforms`: "alaya",
    "modelarts" (default: each one the settings configure). `backend`: the stacks, read with the
    `pulumi` CLI in `cwd` with `env` unless given.
    """
    if settings is None:
        settings = stack_settings(config_stack, env, cwd)
    if backend is None:
        backend = read_backend(env, cwd)
    runs: list[AbandonedRun] = []
    for family, marked in _platforms(settings, platforms).items():
        runs += platform_runs(family, marked, backend, removed_stacks=removed_stacks)
    return runs


def held_runs(env: Mapping[str, str] | None = None, cwd: str | None = None,
              backend: Backend | None = None) -> list[HeldRun]:
    """The held failed runs every stack of the backend records (read with the `pulumi` CLI unless given)."""
    backend = read_backend(env, cwd) if backend is None else backend
    return [h for stack in backend.stacks for h in stack.held]


def stop(settings: Settings, run: AbandonedRun) -> None:
    """Stop one abandoned run with its platform's stop call (Alaya's stop, ModelArts' terminate); only
    a run that is still live, and without waiting for it to end."""
    if not run.live:
        return
    found = _platforms(settings, [run.platform]).get(run.platform)
    if found is None:
        raise MltrainError(f"no platform {run.platform!r} to stop {run.job_id} on")
    found.stop(run.job_id)
