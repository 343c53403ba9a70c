"""Team state on an S3-compatible backend (moto's server on 127.0.0.1), driven by the real engine.

What docs/team-state.md promises, checked: `pulumi login s3://...` works against an S3-compatible
store, a second `pulumi up` of a stack that is being updated is refused by the backend's lock, an
up killed mid-create is recovered with `pulumi cancel`, `pulumi refresh --clear-pending-creates`
and `pulumi up` (one job, not two), and `pulumi destroy` empties the platform while the bucket
keeps the stack's history.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import stacks
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


def start_up(stack: S3Stack, log: Path) -> subprocess.Popen[bytes]:
    """`pulumi up` in its own process group (so a test can kill the CLI and its plugins at once)."""
    argv = [str(BIN / "pulumi"), "up", "--yes", "--skip-preview", "--non-interactive", "--stack", stack.name]
    with log.open("wb") as out:
        return subprocess.Popen(argv, cwd=stack.workdir, env=stack.env(), stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def wait_for_create_call(emulator: Any, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while emulator.admin.requests()["endpoints"].get(CREATE, 0) == 0:
        assert proc.poll() is None, f"pulumi up ended before the create call:\n{log.read_text()[-4000:]}"
        assert time.monotonic() < deadline, f"the create call was never made:\n{log.read_text()[-4000:]}"
        time.sleep(0.2)


def test_login_up_concurrent_up_refused_destroy_keeps_history(
        s3: S3Server, emulator: Any, team_stack: tuple[S3Stack, str], tmp_path: Path) -> None:
    stack, bucket = team_stack
    whoami = subprocess.run([str(BIN / "pulumi"), "whoami", "--verbose"], env=stack.env(), cwd=stack.workdir,
                            capture_output=True, text=True, timeout=60, check=True).stdout
    assert f"s3://{bucket}" in whoami, whoami
    emulator.admin.set_settings(subscription_delay=SLOW_SUBSCRIPTION)

    first = start_up(stack, tmp_path / "first-up.log")
    try:
        wait_for_create_call(emulator, first, tmp_path / "first-up.log")
        held = lock_keys(s3, bucket)
        assert len(held) == 1 and held[0].startswith(f".pulumi/locks/organization/alaya-job/{stack.name}/"), held

        second = stack.up(check=False)  # a teammate's up while the first one runs
        output = second.stdout + second.stderr
        assert second.returncode != 0, output
        assert LOCKED in output and "pulumi cancel" in output, output
        assert f"s3://{bucket}" in output and held[0] in output, "the message names the lock file"

        preview = stack.preview(check=False)
        assert preview.returncode == 0, "a preview takes no lock: " + preview.stdout + preview.stderr

        emulator.admin.advance(SLOW_SUBSCRIPTION + 60)  # the subscription resolves; the first up ends
        assert first.wait(timeout=300) == 0, (tmp_path / "first-up.log").read_text()[-4000:]
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()

    assert lock_keys(s3, bucket) == [], "a finished up releases its lock"
    assert len(tasks(emulator)) == 1, "the refused up created nothing"
    assert emulator.admin.requests()["endpoints"][CREATE] == 1
    assert [r["id"] for r in stack.resources("dynamic/alaya:TrainingJob")] == [t["id"] for t in tasks(emulator)]

    stack.destroy()
    assert tasks(emulator) == []
    assert lock_keys(s3, bucket) == []
    kinds = [(h["kind"], h["result"]) for h in history(s3, bucket, stack.name)]
    assert kinds == [("update", "succeeded"), ("destroy", "succeeded")], kinds
    assert stack.run("stack", "ls", "--json").stdout.count(f'"{stack.name}"') == 1, "the stack is still listed"


def test_interrupted_up_is_recovered_with_cancel_refresh_up(
        s3: S3Server, emulator: Any, team_stack: tuple[S3Stack, str], tmp_path: Path) -> None:
    stack, bucket = team_stack
    emulator.admin.set_settings(subscription_delay=SLOW_SUBSCRIPTION)
    log = tmp_path / "killed-up.log"
    proc = start_up(stack, log)
    try:
        wait_for_create_call(emulator, proc, log)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # a lost CI runner: no chance to release the lock
        proc.wait()
    emulator.admin.advance(SLOW_SUBSCRIPTION + 60)
    assert len(tasks(emulator)) == 1, "the platform made the task although the CLI died"
    assert len(lock_keys(s3, bucket)) == 1, "the dead run's lock stays in the bucket"

    refused = stack.refresh(check=False)
    assert refused.returncode != 0 and LOCKED in refused.stdout + refused.stderr, refused.stdout + refused.stderr

    stack.run("cancel", "--yes")
    assert lock_keys(s3, bucket) == [], "`pulumi cancel` deletes the stale lock"
    stack.refresh("--clear-pending-creates")
    stack.up()
    final = tasks(emulator)
    assert len(final) == 1, "the task was adopted, not created again"
    assert [t["id"] for t in final] == [r["id"] for r in stack.resources("dynamic/alaya:TrainingJob")]
    assert emulator.admin.requests()["endpoints"][CREATE] == 1

    stack.destroy()
    assert tasks(emulator) == []
    assert lock_keys(s3, bucket) == []


def test_sdk_v2_parameter_names_reach_the_same_store(s3: S3Server, tmp_path: Path) -> None:
    """The URL form of docs/team-state.md's table without the v1 names: an http:// endpoint and use_path_style."""
    bucket = s3.create_bucket()
    login(tmp_path, f"s3://{bucket}?endpoint=http://{s3.endpoint}&use_path_style=true&region=us-east-1")
    stack = S3Stack.from_project(stacks.PROGRAMS / "alaya_job", tmp_path, name="v2-names")
    listed = stack.run("stack", "ls", "--json").stdout
    assert '"v2-names"' in listed, listed
    assert ".pulumi/stacks/alaya-job/v2-names.json" in s3.keys(bucket, ".pulumi/stacks/"), "the stack is in the bucket"
