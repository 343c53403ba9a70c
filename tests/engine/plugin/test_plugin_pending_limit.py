"""`max_pending_minutes` through the engine: a job that stays queued past it fails the `up` with the time
it was pending, and its run is held: its job is deleted (`on_failure="delete"`, the Alaya NeW task here) or
stopped and kept as the record (`"keep"`, the default: the ModelArts job). One stack holds an Alaya NeW task
and a ModelArts job, each in the dynamic (`dyn-*`) and the plugin (`plug-*`) form; the emulator keeps them
queued (QUEUED, Pending). The rest (reasons, take-over, the preview error, a job that
starts in time) is tests/inprocess/test_pending_limit.py.

The stack is not destroyed at the end (it was, here): the delete of a job held past the limit is
tests/inprocess/test_pending_limit.py::test_a_job_pending_past_the_limit_is_stopped_and_kept_as_the_record's
(both platforms, the platform left empty), and a destroy of both forms' held failures, the deleted ones
among them, test_plugin_held_failures.py::test_three_ups_of_a_failing_job_start_one_run_and_a_new_trigger_one_more's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plugin_support import both_forms, both_platforms_stack, by_name, live_jobs, modelarts_job_args, output_of, said

from pulumi_mltrain.ownership import FAILED_KEY, REMOVED_KEY
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]

LIMIT = 0.03  # minutes: 1.8 s
ALL = {"dyn-q", "plug-q", "dyn-mq", "plug-mq"}
PENDING = "pending (since its create), past max_pending_minutes=0.03 (2s)"


def _jobs() -> dict[str, dict[str, Any]]:
    waits = {"wait_for": "running", "max_pending_minutes": LIMIT}
    return {"alaya": {"q": stacks.alaya_job_args(**waits, on_failure="delete")},
            "modelarts": {"mq": modelarts_job_args(**waits)}}


def test_a_job_queued_past_the_limit_fails_the_up(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(subscription_delay=0.2, task_state_delay=1000, modelarts_phase_delay=0.2,
                                modelarts_pending_seconds=1000, delete_delay=0.2)
    # The create deadline is the bound of a wait that the limit does not end.
    stack = both_forms(both_platforms_stack(emulator, tmp_path), _jobs(), create_timeout="90s")

    first = stack.up("--continue-on-error", check=False)
    output = output_of(first)
    assert first.returncode != 0, output[-4000:]
    # The dynamic program ends at the first failure it raises: the plugin's jobs say it, each.
    assert said(output, "was still QUEUED after ") & said(output, PENDING) >= {"plug-q"}, output[-4000:]
    assert said(output, "was still Pending after ") & said(output, "secondary phase Queuing") >= {
        "plug-mq"}, output[-4000:]
    assert 'its job was deleted (on_failure="delete")' in output and "It was stopped. Run " in output, output[-4000:]
    held = by_name(stack)
    assert set(held) == ALL, held
    live = live_jobs(emulator)
    assert sorted(live.values()) == sorted(held[n]["id"] for n in ("dyn-mq", "plug-mq")), \
        "the ModelArts jobs are kept, as recorded; the Alaya NeW tasks deleted"
    for name, resource in held.items():
        outs = resource["outputs"]
        assert PENDING in str(outs[FAILED_KEY]), outs
        if name.endswith("-mq"):
            assert outs["phase"] == "Terminated", "stopped: it never starts, and holds no GPU"
            assert str(outs["reason"]).startswith("still Pending after "), outs
        else:
            assert str(outs["reason"]).startswith("still QUEUED after ") and outs[REMOVED_KEY], outs
