"""A replaced or destroyed run's job stays on the platform as the run's record (lifecycle/records.py).

Each case drives the handler of a training job through its runs as the engine would (a create, replaces
that a changed input forces, the destroy's delete) against the emulator over loopback HTTP, and reads
what the emulator then holds: the jobs stopped rather than deleted, marked as this resource's and, on
ModelArts, as records (their run_reason, the run that replaced them), and pruned beyond `keep_runs`.
A record never blocks the next run (ModelArts names are unique: a new run gets a name of its own) and
is never taken for a live one; `keep_runs` 0 deletes as 0.2 did.
"""

from __future__ import annotations

from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain import settings
from pulumi_mltrain.cli.abandoned import Backend, stack_record
from pulumi_mltrain.cli.history import prune, run_history
from pulumi_mltrain.modelarts.wire import contract as mc
from pulumi_mltrain.ownership import FAILED_KEY, Mark, project_and_stack
from support import inprocess
from support.platforms import PLATFORMS

# The provider's default (the shared test config sets 0 for the suite's tests of deletes).
DEFAULT_KEEP = settings.DEFAULTS["keep_runs"]
MARK = Mark(inprocess.OWNER["__mltrain_stack"], inprocess.OWNER["__mltrain_urn"])
# A field of each platform's job whose change replaces the job (a new run).
REPLACES = {"alaya": "start_command", "modelarts": "boot_file"}
RUNNING = {"alaya": "RUNNING", "modelarts": "Running"}
ENDED = {"alaya": {"STOPPED"}, "modelarts": {"Terminated"}}


def fast(emulator: EmulatorHandle) -> None:
    """Jobs that start at once and run for an hour, deletes that complete at once."""
    emulator.admin.set_settings(task_state_delay=0.0, modelarts_phase_delay=0.0, modelarts_run_seconds=3600,
                                delete_delay=0.0)


def stored(emulator: EmulatorHandle, platform: str) -> dict[str, dict[str, Any]]:
    """The platform's jobs the emulator holds (not on their way out), by ID."""
    found = PLATFORMS[platform]
    return {found.job_id(j): j for j in found.stored_jobs(emulator) if not j.get("deleting")}


def state_of(platform: str, job: dict[str, Any]) -> str:
    return str(job["status"]) if platform == "alaya" else str(job["status"]["phase"])


def tags_of(job: dict[str, Any]) -> dict[str, str]:
    return {t["key"]: t["value"] for t in job.get("tags") or []}


def sweep(emulator: EmulatorHandle, platform: str, runs: int, *, name: str | None = None,
          keep: str = str(DEFAULT_KEEP)) -> tuple[inprocess.Created, list[str]]:
    """A job whose replacing field changes `runs - 1` times (with `mltrain:keepRuns` = `keep`): the
    resource, and every run's ID in order."""
    handler = inprocess.handler(PLATFORMS[platform].training_job.kind, emulator, **{"mltrain:keepRuns": keep})
    job = inprocess.Created(handler, PLATFORMS[platform].job_args(wait_for="running"), name=name)
    ids = [job.id]
    for run in range(1, runs):
        value = f"obs://b/code/run{run}.py" if platform == "modelarts" else f"python3 run{run}.py"
        job.declared = {**job.declared, REPLACES[platform]: value}
        assert job.up().replaces, "the change replaces the job"
        ids.append(job.id)
    return job, ids


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_replaced_and_destroyed_runs_stay_as_stopped_marked_records(platform: str, emulator: EmulatorHandle) -> None:
    assert DEFAULT_KEEP == 5
    fast(emulator)
    job, ids = sweep(emulator, platform, 3)
    assert len(set(ids)) == 3
    held = stored(emulator, platform)
    assert sorted(held) == sorted(ids), "each replaced run's job is kept"
    assert {state_of(platform, held[i]) for i in ids[:2]} <= ENDED[platform], "a replaced run was stopped"
    assert state_of(platform, held[ids[2]]) == RUNNING[platform], "the current run runs on"

    job.handler.delete(job.id, job.state)  # `pulumi destroy`
    held = stored(emulator, platform)
    assert sorted(held) == sorted(ids), "the destroyed run's job is kept too"
    assert all(state_of(platform, held[i]) in ENDED[platform] for i in ids), "every record is stopped"
    records = sorted(job.handler.platform(inprocess.OWNER).records(MARK, job.state["name"]),
                     key=lambda k: k.created or 0)
    assert [r.object_id for r in records] == ids, "the platform lists the three as this resource's records"
    if platform == "modelarts":
        names = [held[i]["metadata"]["name"] for i in ids]
        assert len(set(names)) == 3, f"each run has a name of its own: {names}"
        assert names[0] == MARK.default_name() and all(MARK.is_run_name(n) for n in names[1:])
        tags = [tags_of(held[i]) for i in ids]
        assert all(t[mc.OWNER_STACK] == MARK.stack and t[mc.OWNER_URN] == MARK.urn for t in tags)
        assert all(mc.RECORD_KEPT in t for t in tags)
        assert tags[0][mc.RECORD_REPLACED_BY] == ids[1] and tags[1][mc.RECORD_REPLACED_BY] == ids[2]
        assert mc.RECORD_REPLACED_BY not in tags[2], "destroyed: no run replaced it"
        assert tags[0][mc.RECORD_REASON].startswith("first run")
        assert tags[1][mc.RECORD_REASON].startswith("new run: changing boot_file replaces")
        assert [r.reason for r in records] == [t[mc.RECORD_REASON] for t in tags]
    else:
        reasons = [r.reason or "" for r in records]
        assert reasons[0].startswith("first run") and reasons[1].startswith("new run: changing start_command")
        names = {held[i]["name"] for i in ids}
        assert names == {MARK.default_name()}, "Alaya NeW names need not be unique: every run keeps its name"


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_keep_runs_prunes_the_oldest_records(platform: str, emulator: EmulatorHandle) -> None:
    fast(emulator)
    job, ids = sweep(emulator, platform, 3, keep="1")
    assert sorted(stored(emulator, platform)) == sorted(ids[1:]), "one record beside the live run"
    job.handler.delete(job.id, job.state)
    assert sorted(stored(emulator, platform)) == [ids[2]], "keep_runs=1: only the newest record stays"


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_a_jobs_own_keep_runs_wins_and_zero_deletes_as_before(platform: str, emulator: EmulatorHandle) -> None:
    fast(emulator)
    handler = inprocess.handler(PLATFORMS[platform].training_job.kind, emulator, **{"mltrain:keepRuns": "3"})
    job = inprocess.Created(handler, PLATFORMS[platform].job_args(wait_for="running", keep_runs=0))
    first = job.id
    value = "obs://b/code/other.py" if platform == "modelarts" else "python3 other.py"
    job.declared = {**job.declared, REPLACES[platform]: value}
    assert job.up().replaces
    assert sorted(stored(emulator, platform)) == [job.id], "keep_runs=0: the replaced run's job is deleted"
    assert job.id != first
    job.handler.delete(job.id, job.state)
    assert stored(emulator, platform) == {}, "keep_runs=0: a destroy deletes the job"


def test_a_modelarts_name_the_user_chose_is_freed_by_deleting_its_record(emulator: EmulatorHandle) -> None:
    """A name the user chose is every run's, and ModelArts allows one job of a name: the record that holds
    it is deleted (said) before the next run, rather than blocking it."""
    fast(emulator)
    _, ids = sweep(emulator, "modelarts", 2, name="chosen")
    assert sorted(stored(emulator, "modelarts")) == [ids[1]]
    assert stored(emulator, "modelarts")[ids[1]]["metadata"]["name"] == "chosen"


def test_a_record_is_never_taken_for_the_live_run(emulator: EmulatorHandle) -> None:
    """After a destroy that kept its run, a new create of the same resource starts a run of its own (an
    Alaya NeW record has the same name and the same mark)."""
    fast(emulator)
    job, ids = sweep(emulator, "alaya", 1)
    job.handler.delete(job.id, job.state)
    again = inprocess.Created(job.handler, PLATFORMS["alaya"].job_args(wait_for="running"), name=None)
    assert again.id != ids[0]
    held = stored(emulator, "alaya")
    assert sorted(held) == sorted([ids[0], again.id]), "the record stays beside the new run"
    assert state_of("alaya", held[again.id]) == "RUNNING"


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_history_lists_the_runs_and_prune_keeps_the_newest(platform: str, emulator: EmulatorHandle) -> None:
    """`mltrain-runs history` and `prune` against a backend whose one stack records the current run (read
    from its export, as the command reads it; no CLI here)."""
    fast(emulator)
    job, ids = sweep(emulator, platform, 3)
    project, stack = project_and_stack(MARK.urn)
    exported = {"deployment": {"resources": [{"urn": MARK.urn, "type": PLATFORMS[platform].training_job.token,
                                              "id": job.id, "inputs": job.inputs, "outputs": job.state}]}}
    backend = Backend([stack_record(project, stack, exported)])
    settings = inprocess.settings(platform, emulator)
    runs = run_history(settings, backend=backend, platforms=[platform])
    assert [r.job_id for r in runs] == ids
    assert [r.record for r in runs] == [True, True, False], "the current run is the state's"
    assert [r.replaced_by for r in runs] == [ids[1], ids[2], None]
    assert runs[2].run_reason == job.state["run_reason"] and runs[0].run_reason.startswith("first run")
    assert all(r.start and r.logs for r in runs) and runs[0].end
    assert run_history(settings, backend=backend, platforms=[platform], resource="other") == []
    assert not any(r.held for r in runs)
    failed = {**exported["deployment"]["resources"][0], "outputs": {**job.state, FAILED_KEY: "held"}}
    held = Backend([stack_record(project, stack, {"deployment": {"resources": [failed]}})])
    assert [r.held for r in run_history(settings, backend=held, platforms=[platform])] == [False, False, True], \
        "a held failed run shows as held"

    gone = prune(settings, runs, backend, keep=1)
    assert [r.job_id for r in gone] == [ids[0]], "the oldest record beyond keep 1"
    assert sorted(stored(emulator, platform)) == sorted(ids[1:])


def test_a_replacement_created_first_keeps_the_run_it_replaces(emulator: EmulatorHandle) -> None:
    """The plugin's replace without deleteBeforeReplace: the new run's create finds the old run's live task
    under its name with its mark, stops it and keeps it as a record instead of deleting it; the engine's
    delete of the old run then finds it kept."""
    fast(emulator)
    job, [old] = sweep(emulator, "alaya", 1)
    value = "python3 first-created.py"
    news = inprocess.checked(job.handler, {**job.declared, REPLACES["alaya"]: value}, olds=job.inputs)
    created = job.handler.create(news)  # before the engine deletes the old run
    held = stored(emulator, "alaya")
    assert sorted(held) == sorted([old, created.id])
    assert state_of("alaya", held[old]) == "STOPPED" and state_of("alaya", held[created.id]) == "RUNNING"
    job.handler.delete(old, job.state)
    assert sorted(stored(emulator, "alaya")) == sorted([old, created.id]), "the old run stays as a record"


@pytest.mark.parametrize("platform", ["alaya", "modelarts"])
def test_a_job_deleted_first_for_its_dependency_starts_a_named_new_run_and_keeps_the_record(
        platform: str, emulator: EmulatorHandle) -> None:
    """A dynamic job whose dependency (a storage mount, an algorithm) is replaced delete-first: the engine
    diffs the job against the dependency's unknown outputs, deletes it first, then checks it again without
    its stored inputs (it recreates it) and creates it. The check goes by what the diff said: a new run,
    not `first run`, named for itself where names are unique (ModelArts), and the old run stays as its
    record, replaced by the new one."""
    fast(emulator)
    job, [old] = sweep(emulator, platform, 1)
    value = "obs://b/code/dependency.py" if platform == "modelarts" else "python3 dependency.py"
    declared = {**job.declared, REPLACES[platform]: value}
    news = {**job.inputs, REPLACES[platform]: value}  # as the engine's diff of a dependent gives them
    assert job.handler.diff(job.state, news, old).replaces == (REPLACES[platform],)
    job.handler.delete(old, job.state)
    checked = inprocess.checked(job.handler, declared)  # recreated: no stored inputs
    what = "training job" if platform == "modelarts" else "training task"
    assert checked["run_reason"].startswith(f"new run: changing {REPLACES[platform]} replaces the {what}"), checked
    created = job.handler.create(checked)
    assert created.outputs["run_reason"] == checked["run_reason"]
    held = stored(emulator, platform)
    assert sorted(held) == sorted([old, created.id]), "the old run's job stays as its record"
    assert state_of(platform, held[old]) in ENDED[platform] and state_of(platform, held[created.id]) == \
        RUNNING[platform]
    if platform == "modelarts":
        assert held[old]["metadata"]["name"] == MARK.default_name() and MARK.is_run_name(checked["name"])
        assert tags_of(held[old])[mc.RECORD_REPLACED_BY] == created.id


def test_a_modelarts_replacement_created_first_under_the_same_name_deletes_the_old_run(
        emulator: EmulatorHandle) -> None:
    """The plugin's `pulumi up --replace` of a ModelArts job whose name the provider chose: the engine
    checks the replacement without the stored inputs (its first run's name again) and creates it before it
    deletes the old run, which holds that name. Kept as a record, it would make ModelArts refuse the
    create (ModelArts.2751); it is deleted, said, and the engine's delete of it then finds it gone."""
    fast(emulator)
    job, [old] = sweep(emulator, "modelarts", 1)
    news = inprocess.checked(job.handler, job.declared)  # checked without the stored inputs
    assert news["name"] == job.state["name"] == MARK.default_name()
    created = job.handler.create(news)
    assert sorted(stored(emulator, "modelarts")) == [created.id], "the old run held the name: deleted, not kept"
    job.handler.delete(old, job.state)
    assert sorted(stored(emulator, "modelarts")) == [created.id]


def test_a_state_of_0_2_keeps_its_name_until_its_next_new_run(emulator: EmulatorHandle) -> None:
    """A ModelArts state written before keep_runs existed: no change while its run is kept, and the name
    it was created with, which its next new run (a replace) leaves to a record."""
    fast(emulator)
    job, [first] = sweep(emulator, "modelarts", 1)
    job.inputs = {k: v for k, v in job.inputs.items() if k != "keep_runs"}
    job.state = {k: v for k, v in job.state.items() if k != "keep_runs"}
    news, diff = job.preview()
    assert not diff.changes and news["name"] == MARK.default_name() == job.state["name"]
    job.declared = {**job.declared, REPLACES["modelarts"]: "obs://b/code/next.py"}
    assert job.up().replaces
    held = stored(emulator, "modelarts")
    assert held[first]["metadata"]["name"] == MARK.default_name()
    assert MARK.is_run_name(held[job.id]["metadata"]["name"])
