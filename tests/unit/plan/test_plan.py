"""What an update spends, counted on previews recorded from real `pulumi preview --json` runs
(previews/, written by record_previews.py: both forms of three Alaya NeW trials and two ModelArts jobs)
by `mltrain-plan` (pulumi_mltrain.cli.plan) and by the policy `new-run-budget`, which share the counting."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from pulumi_policy import PolicyCustomTimeouts, PolicyResource, PolicyResourceOptions, StackValidationArgs
from pulumi_policy.proxy import unknown_checking_proxy

from mltrain_policies import secrets
from mltrain_policies import validators as v
from pulumi_mltrain import runs
from pulumi_mltrain.cli import plan

PREVIEWS = Path(__file__).parent / "previews"
TRIALS = ("t1", "t2", "t3")


def preview(name: str) -> dict[str, Any]:
    return dict(json.loads((PREVIEWS / f"{name}.json").read_text()))


def impact(name: str) -> plan.Impact:
    [found] = plan.impacts([preview(name)])
    return found


def both(*names: str) -> set[str]:
    return {f"{form}-{n}" for n in names for form in ("dyn", "plug")}


def command(*args: str, stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = plan.main(list(args), stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue()


# ----- the command -----------------------------------------------------------------------------------

def test_first_preview_counts_every_job_as_a_first_run() -> None:
    found = impact("first")
    assert found.stack == "mltrain-both-forms/test"
    assert {r.name for r in found.runs} == both(*TRIALS, "m1", "m2")
    assert all(not r.replaces and r.reason.startswith(runs.FIRST) for r in found.runs)
    by = {r.name: r for r in found.runs}
    # PRD-TRAIN-2: 4 GPUs per node x 2 nodes, 12 h, 80/h from the catalogue.
    assert (by["dyn-t1"].gpus, by["dyn-t1"].hours, by["dyn-t1"].cost_per_hour) == (8, 12, 80)
    assert (by["dyn-t1"].gpu_hours, by["dyn-t1"].max_cost) == (96, 960)
    # ModelArts: GPUs from the flavor, auto_stop_hours, and no price.
    assert (by["plug-m1"].gpus, by["plug-m1"].hours, by["plug-m1"].cost_per_hour) == (2, 6, None)
    assert by["plug-m2"].hours is None and by["plug-m2"].gpu_hours is None  # no auto_stop_hours: unbounded
    assert {r.name for r in found.unbounded} == both("m2")
    assert found.cost == 6 * 960 and found.stops == []


def test_both_forms_count_alike() -> None:
    for name in ("first", "sweep"):
        rows = {r.name: r.row()[1:] for r in impact(name).runs}
        for job in {n.split("-", 1)[1] for n in rows}:
            assert rows[f"dyn-{job}"] == rows[f"plug-{job}"], (name, job)


def test_changed_triggers_count_exactly_those_runs_and_the_running_jobs_they_replace() -> None:
    found = impact("sweep")
    assert {r.name for r in found.runs} == both("t2", "m1")
    assert all(r.replaces and r.reason.startswith(runs.FORCED) for r in found.runs)
    assert found.gpu_hours == 2 * 96 + 2 * 2 * 6
    assert found.cost == 2 * 960, "ModelArts runs cost nothing known"
    assert {r.name for r in found.unpriced} == both("m1")
    stops = {s.name: s for s in found.stops}
    assert set(stops) == both("t2", "m1")
    assert stops["dyn-t2"].state in {"QUEUED", "STARTING", "RUNNING"} and stops["dyn-t2"].how == "replaced"
    assert stops["plug-m1"].state in {"Creating", "Pending", "Running"}
    assert stops["dyn-t2"].job_id and stops["dyn-t2"].job_id.startswith("tt-")


def test_changes_in_place_start_no_run_though_they_keep_a_first_run_reason() -> None:
    steps = [s for s in preview("update")["steps"] if s["op"] == "update"]
    assert {s["urn"].rsplit("::", 1)[1] for s in steps} == both("t3", "m2")
    reasons = [plan.value(s["newState"]["inputs"], "run_reason") for s in steps]
    assert all(plan.starts_run(r) for r in reasons), "each keeps the reason of its first run"
    found = impact("update")
    assert found.runs == [] and found.stops == []


def test_a_deleted_running_job_is_a_stop_not_a_run() -> None:
    found = impact("delete")
    assert found.runs == []
    assert {(s.name, s.how) for s in found.stops} == {("dyn-t3", "deleted"), ("plug-t3", "deleted")}


def test_replaced_and_deleted_jobs_are_kept_as_records_unless_keep_runs_is_0() -> None:
    """The recorded previews' jobs set no keep_runs: the provider's setting decides (default 5)."""
    found = impact("sweep")
    kept = {k.name: k for k in found.kept}
    assert set(kept) == both("t2", "m1") and all(k.how == "replaced" and k.keep_runs == 5 for k in kept.values())
    assert kept["dyn-t2"].line().startswith("kept as a record: alaya:TrainingJob 'dyn-t2' tt-")
    assert kept["dyn-t2"].line().endswith("(replaced; keep_runs=5, older records beyond it are deleted)")
    [none] = plan.impacts([preview("delete")], keep_runs=0)
    assert {(k.name, k.how, k.keep_runs) for k in none.kept} == {("dyn-t3", "deleted", 0), ("plug-t3", "deleted", 0)}
    code, out = command("--keep-runs", "0", stdin=(PREVIEWS / "delete.json").read_text())
    assert code == 0 and "records:" in out and "    deleted: alaya:TrainingJob 'dyn-t3'" in out, out
    assert "(deleted; keep_runs=0)" in out, out
    own = plan.kept_of("alaya:TrainingJob", "x", {"keep_runs": 2.0, "training_task_id": "tt-1"}, "replaced", 0)
    assert (own.keep_runs, own.job_id) == (2, "tt-1"), "a job's own keep_runs wins"


def test_caps_decide_the_exit_status() -> None:
    text = (PREVIEWS / "sweep.json").read_text()
    code, out = command("--max-new-gpu-hours", "215", stdin=text)
    assert code == 1, out
    assert "over the cap: the new runs take up to 216 GPU-hours, above the cap of 215 (--max-new-gpu-hours)" in out
    assert command("--max-new-gpu-hours", "216", stdin=text)[0] == 0
    code, out = command("--max-new-cost", "1919", str(PREVIEWS / "sweep.json"))
    assert code == 1 and "the new runs cost up to 1920, above the cap of 1919" in out, out
    assert "not counted, price unknown: " in out
    assert command("--max-new-cost", "1920", str(PREVIEWS / "sweep.json"))[0] == 0
    code, out = command("--no-stop-running", stdin=text)
    assert code == 1 and "the update stops running jobs: alaya:TrainingJob 'plug-t2' tt-" in out, out
    assert command("--no-stop-running", "--max-new-gpu-hours", "0", str(PREVIEWS / "update.json"))[0] == 0
    code, out = command("--max-new-gpu-hours", "100000", str(PREVIEWS / "first.json"))
    assert code == 1, "a GPU run without a timeout exceeds any cap"
    assert "'dyn-m2' has no auto_stop_hours" in out


def test_report_lists_runs_with_hours_cost_and_unknown_prices() -> None:
    code, out = command(str(PREVIEWS / "sweep.json"))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "stack mltrain-both-forms/test:"
    assert lines[1].split() == ["resource", "kind", "step", "GPUs", "hours", "at", "most", "GPU-hours", "cost/h",
                                "cost", "at", "most"]
    rows = {line.split()[0]: line.split() for line in lines[2:6]}
    assert rows["dyn-t2"] == ["dyn-t2", "alaya:TrainingJob", "replace", "8", "12", "(timeout_hours)", "96",
                              "80/h", "960"]
    assert rows["dyn-m1"] == ["dyn-m1", "modelarts:TrainingJob", "replace", "2", "6", "(auto_stop_hours)", "12",
                              "price", "unknown", "price", "unknown"]
    assert "  GPU-hours at most: 216" in lines
    _, first = command(str(PREVIEWS / "first.json"))
    assert "unbounded (no auto_stop_hours)" in first and "GPU-hours at most: unbounded" in first


def test_several_previews_and_bad_input() -> None:
    text = (PREVIEWS / "sweep.json").read_text() + (PREVIEWS / "delete.json").read_text()
    code, out = command("-", stdin=text)
    assert code == 0 and out.count("stack mltrain-both-forms/test:") == 1, "one stack, its steps of both"
    [found] = plan.impacts(plan.documents(text))
    assert {s.how for s in found.stops} == {"replaced", "deleted"}
    assert command(stdin='{"not": "a preview"}')[0] == 2
    assert command(stdin="{")[0] == 2


def test_a_step_is_read_by_its_urn_when_its_states_lack_the_type() -> None:
    """The stack, kind and name come from the URN (a child's type is the last of its chain)."""
    urn = "urn:pulumi:dev::infra::pulumi:pulumi:Stack$mltrain:alaya:TrainingJob::sft"
    step = {"urn": urn, "op": "delete", "oldState": {"outputs": {"trainingTaskId": "tt-1", "status": "RUNNING"}}}
    [found] = plan.impacts([{"steps": [step]}])
    assert found.stack == "infra/dev"
    assert [(s.name, s.kind, s.job_id, s.how) for s in found.stops] == [("sft", "alaya:TrainingJob", "tt-1", "deleted")]


def test_a_run_counts_the_attempts_its_max_attempts_leaves() -> None:
    """A job that may be run again by later `up`s (max_attempts) counts each run it may start from here:
    all of them for a first run, the ones left for a held failure's next attempt."""
    props = {"runReason": f"{runs.FIRST} (8 GPUs, 80/h)", "gpuCount": 8, "costPerHour": 80, "timeoutHours": 12,
             "enableTimeoutCancel": True, "maxAttempts": 3}
    first = plan.run_of("alaya:TrainingJob", "sft", props)
    assert first is not None and (first.attempts, first.gpu_hours, first.max_cost) == (3, 3 * 96, 3 * 960)
    assert first.row()[2] == "create (up to 3 runs)"
    retry = plan.run_of("alaya:TrainingJob", "sft", {**props, "runReason": f"{runs.NEW} attempt 3 of 3 after failed "
                                                     "run tt-1", "__mltrain_attempt": 3}, replaces=True)
    assert retry is not None and (retry.attempts, retry.gpu_hours) == (1, 96) and retry.row()[2] == "replace"


# ----- the policy, on what a stack policy was given in the same previews ------------------------------

def view(name: str, config: dict[str, Any] | None = None) -> StackValidationArgs:
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], None)
    rows = json.loads((PREVIEWS / f"policy_{name}.json").read_text())
    items = [PolicyResource(row["type"], unknown_checking_proxy(secrets.deserialize_properties(row["props"])),
                            row["urn"], row["name"], opts, None, None, [], {}) for row in rows]
    return StackValidationArgs(items, config)


def violations(args: StackValidationArgs) -> list[str]:
    out: list[str] = []
    v.NEW_RUN_BUDGET.validate(args, lambda message, urn=None: out.append(message))  # type: ignore[misc,operator]
    return out


@pytest.mark.parametrize("name", ["first", "sweep"])
def test_policy_counts_the_runs_the_command_counts(name: str) -> None:
    command_runs = sorted(impact(name).runs, key=lambda r: r.name)
    policy_runs = sorted(v.new_runs(view(name)).runs, key=lambda r: r.name)
    assert [r.row() for r in policy_runs] == [r.row() for r in command_runs]


def test_policy_refuses_above_its_caps() -> None:
    assert violations(view("sweep")) == [], "no cap by default"
    [message] = violations(view("sweep", {"maxNewGpuHours": 215}))
    assert message.startswith("the new runs take up to 216 GPU-hours, above the cap of 215 (maxNewGpuHours)")
    assert "dyn-t2" in message and "dyn-t1" not in message
    assert violations(view("sweep", {"maxNewGpuHours": 216})) == []
    [message] = violations(view("sweep", {"maxNewCost": 1000}))
    assert "the new runs cost up to 1920, above the cap of 1000" in message and "(maxNewCost)" in message
    [message] = violations(view("sweep", {"noStopRunning": True}))
    assert "alaya:TrainingJob 'dyn-t2' (its status is not visible here, it may be running) is replaced" in message
    [message] = violations(view("first", {"maxNewGpuHours": 1000}))
    assert "'dyn-m2' has no auto_stop_hours" in message


def test_policy_counts_no_change_in_place() -> None:
    """A stack policy is given the checked inputs of a job changed in place, as of one created, with the
    kept `run_reason` of its first run; only a step that starts a run carries `run_starts` (runs.py), so
    neither the policy nor `mltrain-plan` counts one."""
    assert impact("update").runs == []
    assert v.new_runs(view("update")).runs == []
    assert violations(view("update", {"maxNewGpuHours": 0, "noStopRunning": True})) == []


def with_checkpoints(resume: dict[str, bool]) -> dict[str, Any]:
    """The recorded sweep preview with a checkpoint on the replaced jobs' new inputs (`resume` by resource
    name), as a preview of jobs that declare one shows it."""
    found = preview("sweep")
    for step in found["steps"]:
        name = step["urn"].rsplit("::", 1)[1]
        if name in resume:
            checkpoint = ({"path": "/root/nas/ckpt"} if "-t" in name else {"obsUrl": "/b/ckpt/"})
            step["newState"]["inputs"]["checkpoint"] = {**checkpoint, "resume": resume[name]}
    return found


def test_a_replacement_with_a_checkpoint_is_marked_as_resuming_from_the_run_it_replaces() -> None:
    sweep = preview("sweep")
    old = {s["urn"].rsplit("::", 1)[1]: s["oldState"]["outputs"] for s in sweep["steps"] if s["op"] == "replace"}
    ids = {n: o.get("trainingTaskId") or o.get("training_task_id") or o.get("jobId") or o.get("job_id")
           for n, o in old.items()}
    resume = {"dyn-t2": True, "plug-t2": True, "dyn-m1": True, "plug-m1": False}
    [found] = plan.impacts([with_checkpoints(resume)])
    assert {r.name: r.resumes_from for r in found.runs} == {
        "dyn-t2": ids["dyn-t2"], "plug-t2": ids["plug-t2"], "dyn-m1": ids["dyn-m1"], "plug-m1": None}
    code, out = command(stdin=json.dumps(with_checkpoints(resume)))
    assert code == 0
    assert f"replace, resumes from {ids['dyn-t2']}" in out and f"resumes from {ids['plug-m1']}" not in out, out
    # Without a checkpoint no run is marked.
    assert all(r.resumes_from is None for r in impact("sweep").runs)
