"""Re-runs are explicit: a `replacement_trigger` change re-runs exactly the jobs whose trigger changed,
and a description change of a finished Alaya task is recorded without a new run (no create call). The
first runs are made while the subscription result is unreadable: each create finds its task by its owner
mark, and none is left unknown. Logs while you wait: beside them, the progress lines of a ModelArts wait
carry the job's newest log lines, under the resource they concern. One stack holds the dynamic (`dyn-*`)
and the plugin (`plug-*`) form."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from plugin_support import (
    both_forms,
    both_platforms_stack,
    by_name,
    by_resource,
    modelarts_job_args,
    output_of,
    python_names,
    summary,
)
from plugin_support import (
    said as said_by,
)

from pulumi_mltrain import runs
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]
CREATE = "POST /v1/subscription/training/create"
RESULT = "/v1/subscription/training/result"


def creates(emulator: Any) -> int:
    return int(emulator.admin.requests()["endpoints"].get(CREATE, 0))


def reruns(stack: Any) -> dict[str, dict[str, Any]]:
    """The Alaya jobs `a` and `b` (both forms) in the state, by resource name."""
    return {n: r for n, r in by_name(stack).items() if n.endswith(("-a", "-b"))}


def reasons(stack: Any) -> dict[str, str]:
    """resource name -> its `run_reason` in the state."""
    return {n: r["outputs"].get("run_reason") for n, r in reruns(stack).items()}


def new_runs(preview: dict[str, Any]) -> dict[str, tuple[str, list[str]]]:
    """resource name -> (the `run_reason` the preview shows, the replace reasons) of each job it replaces."""
    return {s["urn"].rsplit("::", 1)[1]: (python_names(s["newState"])["inputs"].get("run_reason"),
                                          s.get("replaceReasons"))
            for s in preview["steps"] if s["op"] in ("replace", "create-replacement")}


def test_alaya_reruns_are_explicit(emulator: Any, tmp_path: Path) -> None:
    # An unreadable subscription result: the result call answers without `status` for the whole first up,
    # and before the task is made (it is made 2 s after the create call).
    emulator.admin.set_settings(task_state_delay=0.1, succeed_after=0.5, subscription_delay=2,
                                modelarts_phase_delay=0.2, modelarts_run_seconds=4, delete_delay=0.2)
    job = stacks.alaya_job_args(wait_for="completed", description="first")
    logs = {"logs": modelarts_job_args(wait_for="completed")}  # a ModelArts job that trains for 4 s
    stack = both_forms(both_platforms_stack(emulator, tmp_path), {"alaya": {"a": job, "b": job}, "modelarts": logs},
                       triggers={"a": "trial-1", "b": "trial-1"})
    emulator.admin.set_faults([{"method": "GET", "path": RESULT, "kind": "respond",
                                "body": {"status": 200, "message": "OK", "data": {"resultKey": "k"}}}])
    result = stack.up(check=False)
    emulator.admin.clear_faults()
    output = output_of(result)
    assert result.returncode == 0, output[-4000:]
    assert emulator.admin.requests()["faults"]["total"] >= 4, "the fault met every create"
    emulator.admin.set_settings(subscription_delay=0.2)
    emulator.admin.advance(30)  # anything a create set in motion has happened by now
    first = by_resource(emulator, "alaya")
    assert sorted(first) == ["dyn-a", "dyn-b", "plug-a", "plug-b"], first
    assert {n: r["id"] for n, r in reruns(stack).items()} == first, "the platform's tasks and the state agree"
    # Logs while you wait: the ModelArts wait's progress lines carry the job's log lines.
    for name in ("dyn-logs", "plug-logs"):
        lines = re.findall(rf"\[mltrain\] TrainingJob '{name}' \(([^)]+)\): log of worker-0: (.*) after \d+s", output)
        assert lines, output[-4000:]
        job_id, text = lines[0]
        assert job_id == by_name(stack)[name]["id"] and "[worker-0] step " in text, lines
    costs = runs.costs(reruns(stack)["dyn-a"]["outputs"])
    assert costs.startswith(" (8 GPUs, ") and costs.endswith("/h)"), costs  # PRD-TRAIN-2: 4 GPUs x 2 nodes
    assert reasons(stack) == dict.fromkeys(first, "first run" + costs)

    # One preview: a new trigger value for `a` re-runs `a` in both forms; a new image for `b` would start a
    # new run of `b`, the preview says so, naming the field, with GPUs and cost.
    image = "harbor.zetyun.cn/anc-public/general/pytorch:2.4.0-gpu"
    both_forms(stack, {"alaya": {"a": job, "b": {**job, "image": image}}, "modelarts": logs},
               triggers={"a": "trial-2", "b": "trial-1"})
    forced = runs.FORCED + costs
    said = "new run: changing image replaces the training task" + costs
    shown = new_runs(stack.preview_json())
    assert {n: r for n, (r, _) in shown.items()} == {"dyn-a": forced, "plug-a": forced, "dyn-b": said,
                                                     "plug-b": said}, shown
    assert {n: sorted(w or []) for n, (_, w) in shown.items() if n.endswith("-b")} == {
        "dyn-b": ["image"], "plug-b": ["image"]}, shown

    # Without the image change, `a` runs again in both forms, `b` keeps its run.
    both_forms(stack, {"alaya": {"a": job, "b": job}, "modelarts": logs})
    stack.up()
    second = by_resource(emulator, "alaya")
    assert {n for n in second if second[n] != first.get(n)} == {"dyn-a", "plug-a"}, (first, second)
    assert {n: r["id"] for n, r in reruns(stack).items()} == second
    assert reasons(stack) == {"dyn-a": forced, "plug-a": forced,
                              "dyn-b": "first run" + costs, "plug-b": "first run" + costs}

    # One up on the finished tasks: a description change of `a` is an update, never a new run; stopped=True
    # on `b` is an update in place that leaves them as they are (nothing to stop).
    made = creates(emulator)
    both_forms(stack, {"alaya": {"a": {**job, "description": "second"}, "b": {**job, "stopped": True}},
                       "modelarts": logs})
    result = stack.up()
    assert summary(result).get("updated") == 4 and summary(result).get("replaced") is None, output_of(result)[-4000:]
    assert creates(emulator) == made, "no create call"
    # Said in both forms: a native plugin's stderr reaches the user only when it fails, so the note goes
    # through the engine's log under the resource.
    assert said_by(output_of(result), "description recorded in the state only") == {"dyn-a", "plug-a"}
    held = reruns(stack)
    assert {n: r["id"] for n, r in held.items()} == second
    assert all(held[n]["outputs"]["description"] == "second" for n in ("dyn-a", "plug-a")), held
    assert all(held[n]["outputs"]["stopped"] is True and held[n]["outputs"]["status"] == "SUCCEEDED"
               for n in ("dyn-b", "plug-b")), held

    # Refresh and drift: a refresh changes nothing but the create's subscription key. (That the program then
    # previews no change is the provider's: tests/inprocess/test_plugin_refresh.py for the plugin,
    # test_drift.py's no-change checks for the dynamic form; that an unchanged trigger re-runs nothing
    # is the engine's answer to the up above, which replaced nothing.)
    before = {n: r["outputs"] for n, r in held.items()}
    stack.refresh()
    after = {n: r["outputs"] for n, r in reruns(stack).items()}
    changed = {n: sorted(k for k in {*before[n], *after[n]} if before[n].get(k) != after[n].get(k)) for n in after}
    # result_key (the create's subscription) is known to the create only; a refresh changes nothing else.
    assert all(set(keys) <= {"result_key"} for keys in changed.values()), changed
    assert reasons(stack)["dyn-b"] == "first run" + costs
