"""The inputs that control a training job's runs, declared once for both platforms' jobs.

A training job is a run: these say what a preview may replace (`replace_running`), whether the run is
stopped in place (`stopped`), what becomes of a run that fails during the create's wait (`on_failure`:
its job is kept as the run's record, or deleted; either way the failure is held, see
lifecycle/record.py and handler.py), and how many runs of one declaration `pulumi up` may start on its
own (`max_attempts`), and how many ended runs stay on the platform as records (`keep_runs`, see
lifecycle/records.py). Each platform's job spec subclasses `RunControl` and adds its own `wait_for`
(the targets differ) and `max_pending_minutes` (its words for pending).
"""

from __future__ import annotations

from typing import Literal

from . import spec as specs
from .spec import ManagedSpec

OnFailure = Literal["delete", "keep"]
# A run of unchanged inputs is started again by `pulumi up` at most this many times in all.
MAX_ATTEMPTS = 10
# The most records of one training job `keep_runs` may keep.
MAX_KEPT = 100


class RunControl(ManagedSpec):
    """The run-control inputs every training job has."""

    replace_running: Literal["allow", "refuse"] = specs.spec_field(
        "allow", description="refuse: a preview that would replace (stop, delete and recreate) this job while it "
        "is queued, starting or running fails, naming the fields that force it; allow (the default) replaces.",
        on_change="local")
    stopped: bool = specs.spec_field(
        False, description="true stops the job in place (the platform's stop call) and waits until it has "
        "stopped, keeping its ID, record and logs; a job that has ended is left as it is. A stopped job is not "
        "started again: false only records it (to run the job again, change its replacement_trigger). A create "
        "(a first or new run) needs false.", on_change="local")
    on_failure: OnFailure = specs.spec_field(
        "keep", description="What becomes of the job of a run that fails during the create's wait (it fails or "
        "stops, stays pending past max_pending_minutes, or misses its success_criteria): keep (the default) "
        "keeps it on the platform as the run's record, ended, with its logs; delete deletes it. Either way the "
        "failure is held: that `pulumi up` fails, and so does every later one, naming the run, without "
        "starting it again, until its inputs or replacement_trigger change, `mltrain:rerunFailed` names the "
        "failed run, or `pulumi up --replace` asks for a new run (max_attempts allows automatic ones). A "
        "state of 0.1 keeps the value it recorded until the program sets one.", on_change="local")
    max_attempts: int = specs.spec_field(
        1, description="How many runs of the same declaration `pulumi up` may start by itself: while a held "
        "failure has attempts left, the next `pulumi up` (a CI re-run, an operator's retry) replaces it with a "
        "new run. 1 (the default) never starts a failed run again unasked. A change of inputs or "
        "replacement_trigger, or an explicit re-run, counts from 1 again. (A platform's own retries, such as "
        "Alaya NeW's max_retry_count, happen inside one run.)", on_change="local", ge=1, le=MAX_ATTEMPTS)
    keep_runs: int | None = specs.spec_field(
        None, description="How many ended runs of this job stay on the platform as records: a replace or "
        "`pulumi destroy` stops the run's job if it is still running and keeps it, marked with its stack, "
        "resource and run reason (and, on ModelArts, the run that replaced it), instead of deleting it; the "
        "oldest records beyond this number are deleted at the job's next create or delete (and by "
        "`mltrain-runs prune`). 0 deletes a replaced or destroyed run's job, as 0.2 did. Unset: the "
        "provider's `mltrain:keepRuns` (default 5).", on_change="local", ge=0, le=MAX_KEPT)
