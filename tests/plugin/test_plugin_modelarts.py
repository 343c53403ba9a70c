"""The native plugin with ModelArts, one stack: an algorithm and a job that runs it through preview, up,
refresh, an in-place update (first past its customTimeouts deadline), import (under a new resource name,
which re-marks the job), a failing job's rollback and destroy."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from plugin_support import managed, output_of

from pulumi_mltrain.config import Settings
from pulumi_mltrain.emulator import defaults as d
from pulumi_mltrain.modelarts import iam
from pulumi_mltrain.modelarts.client import ModelArtsClient
from support.pulumi_cli import Stack, change_counts

pytestmark = [pytest.mark.engine, pytest.mark.slow]

ALGORITHM = {"type": "mltrain:modelarts:Algorithm", "name": "algo", "outputs": ["algorithm_id"],
             "args": {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                      "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1],
                      "inputs": [{"name": "data_url"}], "outputs": [{"name": "train_url"}]}}


def job(name: str = "job", **changes: Any) -> dict[str, Any]:
    args = {"flavor_id": d.FLAVOR_CPU_8U, "algorithm_id": "${algo.algorithm_id}",
            "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
            "outputs": [{"name": "train_url", "obs_url": "obs://b/out/"}], **changes}
    return {"type": "mltrain:modelarts:TrainingJob", "name": name, "args": args, "outputs": ["phase"]}


def api(emulator: Any) -> ModelArtsClient:
    iam.forget_tokens()
    return ModelArtsClient(Settings.load({
        "mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
        "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiUser": emulator.iam_user,
        "mltrain:huaweiDomain": emulator.iam_domain, "mltrain:huaweiPassword": emulator.iam_password}, env={}))


def live_jobs(emulator: Any) -> list[dict[str, Any]]:
    return [j for j in emulator.admin.state()["modelarts"]["jobs"] if not j.get("deleting")]


def test_lifecycle_update_deadline_import_and_rollback(emulator: Any,
                                                      modelarts_plugin_stack: Callable[..., Stack]) -> None:
    timed = {"customTimeouts": {"update": "3s"}}
    stack = modelarts_plugin_stack([ALGORITHM, {**job(), **timed}],
                                   invokes={"flavors": ["mltrain:modelarts:getFlavors", {"flavor_type": "CPU"}]})
    assert change_counts(stack.preview_json()).get("create") == 3
    stack.up()
    out = stack.outputs()
    [remote] = live_jobs(emulator)
    assert remote["metadata"]["id"] == out["job_id"]
    assert remote["algorithm"]["id"] == out["algo_algorithm_id"]
    assert d.FLAVOR_CPU_8U in [f["flavor_id"] for f in out["flavors"]["flavors"]]
    stack.preview("--expect-no-changes")
    stack.refresh("--expect-no-changes")

    # A description is updated in place: the same job, no replace. A 3 s customTimeouts update whose
    # answer the platform holds back for 10 s (after applying it) fails at the forwarded deadline, not
    # the 10-minute default; the job is kept, and the next up, with the platform answering again,
    # converges on the declared description without a replace.
    stack.set_config("resources", json.dumps([ALGORITHM, {**job(description="second run"), **timed}]))
    assert change_counts(stack.preview_json()).get("update") == 1
    emulator.admin.set_faults([{"method": "PUT", "path": "/v2/*/training-jobs/*", "kind": "slow_after_commit",
                                "seconds": 10}])
    result = stack.up(check=False)
    output = output_of(result)
    assert result.returncode != 0
    assert "no answer within the 3s deadline of updating TrainingJob" in output, output[-3000:]
    assert "raise its timeout (customTimeouts)" in output
    assert "Traceback" not in output
    assert emulator.admin.requests()["faults"]["by_kind"].get("slow_after_commit", 0) >= 1
    emulator.admin.clear_faults()
    stack.up()
    [after] = live_jobs(emulator)
    assert after["metadata"]["id"] == out["job_id"], "updated in place, never replaced"
    assert after["metadata"]["description"] == "second run"
    stack.preview("--expect-no-changes")

    # Forgotten by the state, imported under a new resource name: the job now carries that name's mark.
    for resource in sorted(managed(stack), key=lambda r: "Algorithm" in r["type"]):
        stack.run("state", "delete", resource["urn"], "--yes")
    stack.run("import", "mltrain:modelarts:Algorithm", "algo", out["algo_id"], "--yes", "--generate-code=false",
              "--protect=false")
    stack.run("import", "mltrain:modelarts:TrainingJob", "trainer", out["job_id"], "--yes",
              "--generate-code=false", "--protect=false")
    [imported] = stack.resources("mltrain:modelarts:TrainingJob")
    assert imported["inputs"]["flavor_id"] == d.FLAVOR_CPU_8U and imported["inputs"]["description"] == "second run"
    tags = {t["key"]: t["value"] for t in api(emulator).job_tags(out["job_id"])}
    assert tags["mltrain-owner-urn"] == imported["urn"], "adopted: the mark names the importing resource"
    trainer = job("trainer", description="second run")
    stack.set_config("resources", json.dumps([ALGORITHM, trainer]))
    stack.preview("--expect-no-changes")

    # A job that fails before it completes is deleted by the create (rollback): an error, nothing recorded.
    emulator.admin.set_settings(modelarts_fail_names="^doomed")
    stack.set_config("resources", json.dumps([ALGORITHM, trainer, job("doomed", wait_for="completed")]))
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "TrainingJob 'doomed-" in output, output[-3000:]
    assert "It was deleted so nothing is left behind" in output
    assert "partially created" not in output, output[-3000:]
    # The job's own log lines (a Python traceback of the training script) are quoted; no provider frames.
    assert "pulumi_mltrain/" not in output and "provider/experimental" not in output, output[-3000:]
    assert [r["urn"] for r in stack.resources("mltrain:modelarts:TrainingJob")] == [imported["urn"]]
    emulator.admin.advance(5)
    assert [j["metadata"]["id"] for j in live_jobs(emulator)] == [out["job_id"]]

    stack.destroy()
    assert live_jobs(emulator) == [] and emulator.admin.state()["modelarts"]["algorithms"] == []
