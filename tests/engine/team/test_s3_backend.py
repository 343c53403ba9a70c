"""Team state on an S3-compatible backend (moto's server on 127.0.0.1), driven by the real engine.

What docs/team-state.md promises, checked: `pulumi login s3://...` works against an S3-compatible
store, a second `pulumi up` of a stack that is being updated is refused by the backend's lock, an
up killed mid-create is recovered with `pulumi cancel`, `pulumi refresh --clear-pending-creates`
and `pulumi up` (one job, not two), and `pulumi destroy` empties the platform while the bucket
keeps the stack's history. One stack goes through all of it (one engine run per step), and the
plugins of the killed CLI exit by themselves.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import stacks
from support.interrupted import kill_up, plugins_of, start_up, wait_for_plugins_to_exit, wait_while_running
from support.pulumi_cli import BIN
from support.s3_backend import S3Server, S3Stack, history, lock_keys, login

pytestmark = [pytest.mark.engine, pytest.mark.slow]

CREATE = "POST /v1/subscription/training/create"
LOCKED = "the stack is currently locked by 1 lock(s)"
SLOW_SUBSCRIPTION = 600.0  # emulator seconds: the create waits until the test advances the clock


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with S3Server() as server:
        yield server


@pytest.fixture
def team_stack(s3: S3Server, emulator: Any, tmp_path: Path) -> tuple[S3Stack, str]:
    """An Alaya stack whose state is in a fresh bucket of the S3 server, after `pulumi login`."""
    bucket = s3.create_bucket()
    login(tmp_path, s3.backend_url(bucket))
    stack = stacks.alaya_stack(emulator, tmp_path, job=stacks.alaya_job_args(), stack_type=S3Stack)
    assert isinstance(stack, S3Stack)
    return stack, bucket


def tasks(emulator: Any) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["alaya"]["tasks"])


def test_login_up_concurrent_up_refused_killed_up_recovered_destroy_keeps_history(
        s3: S3Server, emulator: Any, team_stack: tuple[S3Stack, str], tmp_path: Path) -> None:
    """One stack through a team's day: a teammate's `up` refused while another runs, that run killed
    mid-create (a lost CI runner: no chance to release the lock), its recovery, and a destroy.

    Was three tests, whose engine runs this one shares: this file's
    test_login_up_concurrent_up_refused_destroy_keeps_history and
    test_interrupted_up_is_recovered_with_cancel_refresh_up, and
    tests/engine/faults/test_soak.py::test_interrupted_up_then_refresh_and_up_leaves_one_job (a file backend)."""
    stack, bucket = team_stack
    whoami = subprocess.run([str(BIN / "pulumi"), "whoami", "--verbose"], env=stack.env(), cwd=stack.workdir,
                            capture_output=True, text=True, timeout=60, check=True).stdout
    assert f"s3://{bucket}" in whoami, whoami
    emulator.admin.set_settings(subscription_delay=SLOW_SUBSCRIPTION)

    first = start_up(stack, tmp_path / "first-up.log")
    try:
        wait_while_running(first, tmp_path / "first-up.log",
                           lambda: emulator.admin.requests()["endpoints"].get(CREATE, 0) > 0, "the create call")
        plugins, go_hosts = plugins_of(first)
        held = lock_keys(s3, bucket)
        assert len(held) == 1 and held[0].startswith(f".pulumi/locks/organization/alaya-job/{stack.name}/"), held

        second = stack.up(check=False)  # a teammate's up while the first one runs
        output = second.stdout + second.stderr
        assert second.returncode != 0, output
        assert LOCKED in output and "pulumi cancel" in output, output
        assert f"s3://{bucket}" in output and held[0] in output, "the message names the lock file"

        preview = stack.preview(check=False)
        assert preview.returncode == 0, "a preview takes no lock: " + preview.stdout + preview.stderr
    finally:
        kill_up(first)

    wait_for_plugins_to_exit(plugins, go_hosts)
    emulator.admin.advance(SLOW_SUBSCRIPTION + 60)
    assert len(tasks(emulator)) == 1, "the platform made the task although the CLI died"
    # The dead run's lock stays, and refuses every update as it refused the teammate's above.
    assert lock_keys(s3, bucket) == held, "the dead run's lock stays in the bucket"

    stack.run("cancel", "--yes")
    assert lock_keys(s3, bucket) == [], "`pulumi cancel` deletes the stale lock"
    stack.refresh("--clear-pending-creates")
    [leftover] = tasks(emulator)
    emulator.admin.set_settings(subscription_delay=0.2)
    stack.up()
    assert lock_keys(s3, bucket) == [], "a finished up releases its lock"
    final = tasks(emulator)
    assert len(final) == 1 and final[0]["id"] != leftover["id"], \
        "the killed run's unrecorded task was deleted before the new one was made: one task"
    assert [t["id"] for t in final] == [r["id"] for r in stack.resources("dynamic/alaya:TrainingJob")]
    assert emulator.admin.requests()["endpoints"][CREATE] == 2, "the refused up created nothing"

    stack.destroy()
    assert tasks(emulator) == []
    assert lock_keys(s3, bucket) == []
    kinds = [(h["kind"], h["result"]) for h in history(s3, bucket, stack.name)]
    assert kinds == [("refresh", "succeeded"), ("update", "succeeded"), ("destroy", "succeeded")], kinds
    assert stack.run("stack", "ls", "--json").stdout.count(f'"{stack.name}"') == 1, "the stack is still listed"


def test_sdk_v2_parameter_names_reach_the_same_store(s3: S3Server, tmp_path: Path) -> None:
    """The URL form of docs/team-state.md's table without the v1 names: an http:// endpoint and use_path_style."""
    bucket = s3.create_bucket()
    login(tmp_path, f"s3://{bucket}?endpoint=http://{s3.endpoint}&use_path_style=true&region=us-east-1")
    stack = S3Stack.from_project(stacks.PROGRAMS / "alaya_job", tmp_path, name="v2-names")
    listed = stack.run("stack", "ls", "--json").stdout
    assert '"v2-names"' in listed, listed
    assert ".pulumi/stacks/alaya-job/v2-names.json" in s3.keys(bucket, ".pulumi/stacks/"), "the stack is in the bucket"
