"""A ModelArts stack signed with AK/SK through the real engine: up and a refused secret key; the jobs'
signed deletes run in-process (the provider's own calls, as a destroy makes them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.config import Settings
from support import inprocess, stacks

pytestmark = pytest.mark.engine

JOB_ARGS = {"flavor_id": d.FLAVOR_CPU_8U, "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
            "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
            "outputs": [{"name": "train_url", "obs_url": "obs://b/out/"}], "log_export_path": "obs://b/logs/"}


def live_jobs(emulator: EmulatorHandle) -> list[dict[str, Any]]:
    return list(emulator.admin.state()["modelarts"]["jobs"])


def aksk_settings(emulator: EmulatorHandle) -> Settings:
    """The settings `stacks.modelarts_aksk_stack` gives its stack, as a provider process loads them."""
    return Settings.load({"mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
                          "mltrain:huaweiProjectName": emulator.project_name,
                          "mltrain:huaweiAccessKey": emulator.access_key,
                          "mltrain:huaweiSecretKey": emulator.secret_key,
                          **inprocess.BASE_CONFIG}, env={})


def test_aksk_signed_stack_up_destroy_and_a_wrong_secret_key(emulator: EmulatorHandle, tmp_path: Path) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)
    stack = stacks.modelarts_aksk_stack(emulator, tmp_path, jobs={"first": JOB_ARGS, "second": JOB_ARGS})

    stack.up()
    out = stack.outputs()
    assert sorted(j["metadata"]["id"] for j in live_jobs(emulator)) == sorted([out["first_id"], out["second_id"]])
    counts = emulator.admin.requests()["endpoints"]
    assert "POST /v3/auth/tokens" not in counts, "AK/SK: no IAM token is ever fetched"
    assert counts.get("GET /v3/projects", 0) >= 1, "the project ID came from IAM's project list"
    assert counts.get("POST /v2/{project_id}/training-jobs") == 2
    # The secret key is a stack secret: encrypted wherever the engine keeps it, in no file in plaintext.
    assert emulator.secret_key not in json.dumps(stack.export())
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.stat().st_size < 5_000_000]
    assert files and not [p for p in files if emulator.secret_key.encode() in p.read_bytes()]

    # A wrong secret key fails the preview of a job to create (`third`: the jobs the state holds unchanged
    # make no call), naming the setting and never printing the key. (An update runs the same check first;
    # a refused signature's error is tests/inprocess/test_modelarts_client_signing.py's.)
    wrong = "wrong-secret-key-0123456789"
    stack.set_config_all({"jobs": json.dumps({"first": JOB_ARGS, "second": JOB_ARGS, "third": JOB_ARGS})},
                         {"mltrain:huaweiSecretKey": wrong})
    preview = stack.preview(check=False)
    text = preview.stdout + preview.stderr
    assert preview.returncode != 0
    assert "mltrain:huaweiSecretKey" in text and "APIGW.0301" in text, text[-3000:]
    assert wrong not in text
    assert sorted(j["metadata"]["id"] for j in live_jobs(emulator)) == sorted([out["first_id"], out["second_id"]]), \
        "the refused preview created nothing"

    # The jobs' deletes, signed with the stack's key pair: the calls a `pulumi destroy` makes, in-process
    # (the provider's own calls; the engine's part of a destroy is run by the other engine tests).
    inprocess.fresh_process()
    jobs = inprocess.serving("modelarts:TrainingJob", aksk_settings(emulator))
    for resource in stack.resources("dynamic/modelarts:TrainingJob"):
        jobs.delete(str(resource["id"]), {**resource["inputs"], **resource["outputs"]})
    emulator.admin.advance(5)
    assert live_jobs(emulator) == []
    deletes = emulator.admin.requests()["endpoints"].get("DELETE /v2/{project_id}/training-jobs/{training_job_id}")
    assert deletes == 2 and "POST /v3/auth/tokens" not in emulator.admin.requests()["endpoints"]
