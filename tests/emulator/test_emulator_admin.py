"""Admin API (counts, reset, settings, clock), persistence across a restart, and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorAdmin, EmulatorHandle, EmulatorServer, EmulatorSettings
from mltrain_emulator import defaults as d
from mltrain_emulator.__main__ import main

Json = dict[str, Any]


def test_requests_are_counted_per_route_template(emulator: EmulatorHandle, http: httpx.Client,
                                                 alaya: httpx.Client, modelarts: httpx.Client) -> None:
    alaya.get("/training/instance/tt-1/detail")
    alaya.get("/training/instance/tt-2/detail")
    http.get("/api/osm/v1/training/instance/tt-3/detail", headers={"Authorization": "Bearer x"})
    modelarts.get("/training-jobs/abc")
    emulator.admin.state()  # admin calls are not counted
    counts = emulator.admin.requests()
    assert counts["endpoints"] == {
        "GET /v1/training/instance/{task_id}/detail": 3,
        "POST /v3/auth/tokens": 1,  # the modelarts fixture logged in
        "GET /v2/{project_id}/training-jobs/{training_job_id}": 1,
    }
    assert counts["total"] == 5 and counts["faults"]["total"] == 0


def test_reset_forgets_everything(emulator: EmulatorHandle, create_task: Callable[..., str]) -> None:
    create_task()
    emulator.admin.set_settings(fail_task_names="x")
    emulator.admin.set_faults(["/v1/nothing:malformed"])
    assert emulator.admin.state()["clock"]["offset"] > 0
    emulator.admin.reset()
    state = emulator.admin.state()
    assert state["alaya"] == {"subscriptions": [], "tasks": []} and state["clock"]["offset"] == 0
    assert emulator.admin.requests()["total"] == 0
    assert emulator.admin.faults() == []
    assert emulator.admin.settings() == EmulatorSettings().model_dump(mode="json")


def test_settings_merge_partially_and_reject_typos(emulator: EmulatorHandle, http: httpx.Client) -> None:
    merged = emulator.admin.set_settings(token_ttl=5, modelarts_fail_names="^x")
    assert (merged["token_ttl"], merged["modelarts_fail_names"], merged["subscription_delay"]) == (5, "^x", 10)
    assert http.post("/_admin/settings", json={"subscripton_delay": 1}).status_code == 422
    assert http.post("/_admin/settings", json={"fail_task_names": "(unclosed"}).status_code == 422
    assert http.post("/_admin/settings", json={"delete_delay": -1}).status_code == 422
    assert emulator.admin.settings()["token_ttl"] == 5


def test_clock_advance(emulator: EmulatorHandle, http: httpx.Client) -> None:
    before = http.get("/_admin/clock").json()
    after = emulator.admin.advance(3600)
    assert after - before["now_epoch"] >= 3600
    assert http.post("/_admin/clock/advance", json={"seconds": -1}).status_code == 422
    assert http.post("/_admin/clock/advance", json={"secs": 1}).status_code == 422


def test_state_survives_a_restart(tmp_path: Path) -> None:
    state_file = tmp_path / "emulator-state.json"
    settings = EmulatorSettings(subscription_delay=0)
    auth = {"Authorization": f"Bearer {d.DEFAULT_ALAYA_API_KEY}"}
    body = {"name": "durable", "createType": "DIRECT", "productCode": d.PRODUCT_QTT, "workerCount": 1,
            "image": "img", "imageType": "private"}
    with EmulatorServer(settings, state_file=state_file) as first, httpx.Client(base_url=first.url) as http:
        key = http.post("/v1/subscription/training/create", json=body, headers=auth).json()["data"]
        task_id = http.get("/v1/subscription/training/result", params={"resultKey": key}, headers=auth).json()[
            "data"]["trainingTaskId"]
        before = http.get(f"/v1/training/instance/{task_id}/detail", headers=auth).json()["data"]
        EmulatorAdmin(first.url).advance(120)
    saved = json.loads(state_file.read_text())
    assert saved["tasks"][0]["id"] == task_id and saved["clock_offset"] >= 120
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temp files behind

    with EmulatorServer(settings, state_file=state_file) as second, httpx.Client(base_url=second.url) as http:
        after = http.get(f"/v1/training/instance/{task_id}/detail", headers=auth).json()["data"]
        assert (after["id"], after["createdTime"]) == (before["id"], before["createdTime"])
        assert after["imagePullSecret"] == before["imagePullSecret"]
        assert after["status"] == "RUNNING"  # 120 s of emulator time passed before the restart
        result = http.get(f"/v1/subscription/training/result/{key}", headers=auth).json()["data"]
        assert result["trainingTaskId"] == task_id


def test_tokens_survive_a_restart_but_only_as_digests(tmp_path: Path) -> None:
    state_file = tmp_path / "state.json"
    login = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": d.DEFAULT_IAM_USER, "password": d.DEFAULT_IAM_PASSWORD, "domain": {"name": d.DEFAULT_IAM_DOMAIN}}}},
        "scope": {"project": {"name": d.DEFAULT_PROJECT_NAME}}}}
    with EmulatorServer(state_file=state_file) as first, httpx.Client(base_url=first.url) as http:
        token = http.post(d.IAM_TOKENS, json=login).headers["X-Subject-Token"]
    assert token not in state_file.read_text()
    with EmulatorServer(state_file=state_file) as second, httpx.Client(base_url=second.url) as http:
        flavors = http.get(f"/v2/{d.DEFAULT_PROJECT_ID}/training-job-flavors", headers={"X-Auth-Token": token})
        assert flavors.status_code == 200


def test_a_corrupt_state_file_is_refused(tmp_path: Path) -> None:
    state_file = tmp_path / "state.json"
    state_file.write_text("{not json")
    with pytest.raises(ValueError, match="not a valid snapshot"):
        EmulatorServer(state_file=state_file)


def test_cli_serves_on_loopback_and_prints_credentials(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "mltrain_emulator", "--port", "0", "--log-level", "warning",
               "--subscription-delay", "0", "--state-file", str(tmp_path / "s.json"),
               "--fault", "GET /v1/product/*:status=503:times=1", "--seed", "3"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(5)]
        assert d.DEFAULT_ALAYA_API_KEY in lines[1] and d.DEFAULT_IAM_PASSWORD in lines[2]
        url = lines[0].split(" on ")[1].strip()
        assert url.startswith("http://127.0.0.1:")
        auth: dict[str, Any] = {"headers": {"Authorization": f"Bearer {d.DEFAULT_ALAYA_API_KEY}"}}
        assert httpx.get(url + "/v1/product/list-for-training-task", **auth).status_code == 503
        assert httpx.get(url + "/v1/product/list-for-training-task", **auth).status_code == 200
        settings = httpx.get(url + "/_admin/settings").json()
        assert (settings["subscription_delay"], settings["seed"]) == (0, 3)
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("argv", [["--fault", "nonsense"], ["--subscription-delay", "-1"]])
def test_cli_rejects_bad_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


# --- out-of-band changes (POST /_admin/patch) ----------------------------------------------------

def test_patch_changes_an_alaya_task_as_its_detail_shows_it(emulator: EmulatorHandle, http: httpx.Client,
                                                            alaya: httpx.Client,
                                                            create_task: Callable[..., str]) -> None:
    task_id = create_task()
    mounts = [{"storageId": d.STORAGE_PERFORMANCE_ID, "storageType": "nas-performance",
               "fileDirectory": "ckpt", "mountPath": "/root/ckpt/", "onlyRead": False}]
    changes = {"workerCount": 2, "env": {"A": "1"}, "desc": "changed in the console", "storageConfigs": mounts,
               "trainingFramwork": "deepspeed", "enableAutoRetry": False}
    view = emulator.admin.patch("alaya", "task", task_id, changes)
    detail = alaya.get(f"/training/instance/{task_id}/detail").json()["data"]
    assert view == {k: v for k, v in detail.items() if k != "imagePullSecret"}
    assert {k: detail[k] for k in changes} == changes
    assert detail["trainingFramework"] == "deepspeed" and detail["resource"]["workerCount"] == 2
    assert detail["maxRetryCount"] == 3 and detail["image"].endswith("pytorch:2.3.1-gpu")  # untouched

    # A nested path with a list index changes one item only.
    emulator.admin.patch("alaya", "task", task_id, {"storageConfigs.0.onlyRead": True})
    detail = alaya.get(f"/training/instance/{task_id}/detail").json()["data"]
    assert detail["storageConfigs"] == [{**mounts[0], "onlyRead": True}]

    # What the create call would refuse is refused, and nothing changes.
    for bad in ({"workerCount": 0}, {"env": {"A": 1}}, {"storageConfigs.3.onlyRead": True}, {"id": "tt-x"}):
        response = http.post("/_admin/patch", json={"platform": "alaya", "kind": "task", "id": task_id,
                                                    "set": bad})
        assert response.status_code == 422, (bad, response.text)
    assert alaya.get(f"/training/instance/{task_id}/detail").json()["data"] == detail
    missing = http.post("/_admin/patch", json={"platform": "alaya", "kind": "task", "id": "tt-000000000000",
                                               "set": {"desc": "x"}})
    assert missing.status_code == 404 and "tt-000000000000" in missing.json()["detail"]


def test_patch_changes_modelarts_algorithms_and_jobs(emulator: EmulatorHandle, http: httpx.Client,
                                                     modelarts: httpx.Client, algorithm_id: str,
                                                     job_body: Callable[..., Json]) -> None:
    emulator.admin.set_settings(modelarts_full_detail=True)  # the patched view is the whole stored job
    params = [{"name": "epochs", "value": "5"}]
    emulator.admin.patch("modelarts", "algorithm", algorithm_id, {
        "metadata.description": "edited", "job_config.boot_file": "/b/code/other.py",
        "job_config.parameters": params})
    algorithm = modelarts.get(f"/algorithms/{algorithm_id}").json()
    assert algorithm["metadata"]["description"] == "edited"
    assert algorithm["job_config"]["boot_file"] == "/b/code/other.py"
    assert algorithm["job_config"]["parameters"] == params
    assert algorithm["metadata"]["id"] == algorithm_id and algorithm["job_config"]["inputs"]  # rest kept

    created = modelarts.post("/training-jobs", json=job_body(algorithm_id))
    assert created.status_code == 201, created.text
    job_id = created.json()["metadata"]["id"]
    view = emulator.admin.patch("modelarts", "job", job_id, {
        "metadata.description": "edited job", "spec.resource.node_count": 2,
        "algorithm.parameters": params, "spec.auto_stop.duration": 3})
    job = modelarts.get(f"/training-jobs/{job_id}").json()
    assert view["metadata"] == job["metadata"] and view["spec"] == job["spec"]
    assert job["metadata"]["description"] == "edited job"
    assert job["spec"]["resource"]["node_count"] == 2 and job["spec"]["auto_stop"] == {"duration": 3}
    assert job["algorithm"]["parameters"] == params and job["algorithm"]["id"] == algorithm_id

    for kind, object_id in (("job", job_id), ("algorithm", algorithm_id)):
        fixed = http.post("/_admin/patch", json={"platform": "modelarts", "kind": kind, "id": object_id,
                                                 "set": {"metadata.id": "other"}})
        assert fixed.status_code == 422 and "metadata.id" in fixed.text
        missing = http.post("/_admin/patch", json={"platform": "modelarts", "kind": kind, "id": "nope",
                                                   "set": {"metadata.description": "x"}})
        assert missing.status_code == 404 and "nope" in missing.text
    wrong = http.post("/_admin/patch", json={"platform": "alaya", "kind": "job", "id": job_id,
                                             "set": {"metadata.description": "x"}})
    assert wrong.status_code == 422
    assert http.post("/_admin/patch", json={"platform": "modelarts", "kind": "job", "id": job_id,
                                            "set": {}}).status_code == 422


def test_patch_changes_a_storage_row_until_reset(emulator: EmulatorHandle, alaya: httpx.Client) -> None:
    def row() -> Json:
        rows = alaya.get("/nasStorage/instance/tenant/page").json()["data"]["records"]
        found: Json = next(r for r in rows if r["storageId"] == d.STORAGE_CAPACITY_ID)
        return found

    before = row()
    view = emulator.admin.patch("alaya", "storage", d.STORAGE_CAPACITY_ID, {"storageType": "nas-performance"})
    assert view == row() == {**before, "storageType": "nas-performance"}
    with pytest.raises(httpx.HTTPStatusError) as missing:
        emulator.admin.patch("alaya", "storage", "no-such-storage", {"storageType": "nas-capacity"})
    assert missing.value.response.status_code == 404
    emulator.admin.reset()
    assert row() == before
