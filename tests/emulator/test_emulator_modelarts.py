"""ModelArts v2: catalogue, algorithm CRUD, training jobs and their phases (seed 002, api.md Part B)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d

Json = dict[str, Any]
Body = Callable[..., Json]


def _error(response: httpx.Response) -> tuple[int, str]:
    body = response.json()
    assert set(body) == {"error_code", "error_msg", "error_solution"}, body
    return response.status_code, body["error_code"]


def _job(modelarts: httpx.Client, job_body: Body, algorithm_id: str, **kw: Any) -> Json:
    response = modelarts.post("/training-jobs", json=job_body(algorithm_id, **kw))
    assert response.status_code == 201, response.text
    job: Json = response.json()
    return job


def _phase(modelarts: httpx.Client, job_id: str) -> str:
    phase: str = modelarts.get(f"/training-jobs/{job_id}").json()["status"]["phase"]
    return phase


def test_flavors_and_filter(modelarts: httpx.Client) -> None:
    every = modelarts.get("/training-job-flavors").json()
    assert every["total_count"] == 3
    by_id = {f["flavor_id"]: f for f in every["flavors"]}
    cpu = by_id[d.FLAVOR_CPU_8U]
    assert (cpu["flavor_type"], cpu["max_num"], cpu["billing"]) == ("CPU", 4, {"code": d.FLAVOR_CPU_8U, "unit_num": 1})
    assert cpu["flavor_info"]["cpu"] == {"arch": "x86", "core_num": 8} and "gpu" not in cpu["flavor_info"]
    assert by_id[d.FLAVOR_GPU_8V100]["flavor_info"]["gpu"]["gpu_num"] == 8
    gpu = modelarts.get("/training-job-flavors", params={"flavor_type": "GPU"}).json()
    assert {f["flavor_id"] for f in gpu["flavors"]} == {d.FLAVOR_GPU_V100, d.FLAVOR_GPU_8V100}
    assert _error(modelarts.get("/training-job-flavors", params={"flavor_type": "TPU"})) == (400, "ModelArts.2788")


def test_engines_on_both_paths(modelarts: httpx.Client) -> None:
    docs, seed = modelarts.get("/training-job-engines").json(), modelarts.get("/job/training-job-engines").json()
    assert docs == seed and docs["total"] == len(docs["items"]) == 3
    pytorch = next(e for e in docs["items"] if e["engine_name"] == "PyTorch")
    assert pytorch["engine_version"] == d.ENGINE_PYTORCH[1]
    assert set(pytorch) >= {"engine_id", "v1_compatible", "run_user", "image_info", "tags"}
    assert set(pytorch["image_info"]) == {"cpu_image_url", "gpu_image_url", "image_version"}


def test_algorithm_crud(emulator: EmulatorHandle, modelarts: httpx.Client, algorithm_body: Body) -> None:
    created = modelarts.post("/algorithms", json=algorithm_body())
    assert created.status_code == 201
    algorithm = created.json()
    algorithm_id = algorithm["metadata"]["id"]
    assert uuid.UUID(algorithm_id)
    assert algorithm["metadata"]["name"] == "test-pytorch-cpu" and algorithm["metadata"]["create_time"] > 0
    assert algorithm["job_config"]["engine"]["engine_id"] == d.ENGINE_PYTORCH[1]
    assert algorithm["job_config"]["parameters"][0]["i18n_description"] is None
    assert algorithm["job_config"]["code_tree"] == {"name": "cpu/", "children": [{"name": "test-pytorch.py"}]}
    assert modelarts.get(f"/algorithms/{algorithm_id}").json() == algorithm

    listed = modelarts.get("/algorithms", params={"offset": 0, "limit": 10, "searches": "name:pytorch"}).json()
    assert (listed["total"], listed["count"], listed["items"][0]["metadata"]["id"]) == (1, 1, algorithm_id)
    assert set(listed) == {"total", "count", "limit", "offset", "sort_by", "order", "group_by", "items"}
    assert modelarts.get("/algorithms", params={"searches": "name:zzz"}).json()["total"] == 0

    changed = algorithm_body()
    changed["metadata"]["description"] = "v2"
    changed["job_config"]["parameters"] = []
    updated = modelarts.put(f"/algorithms/{algorithm_id}", json=changed)
    assert updated.status_code == 201
    assert updated.json()["metadata"]["description"] == "v2" and updated.json()["job_config"]["parameters"] == []
    assert updated.json()["metadata"]["update_time"] > 0

    renamed = algorithm_body(name="other-name")
    assert _error(modelarts.put(f"/algorithms/{algorithm_id}", json=renamed)) == (400, "ModelArts.2788")

    deleted = modelarts.delete(f"/algorithms/{algorithm_id}")
    assert (deleted.status_code, deleted.content) == (202, b"")
    assert _error(modelarts.get(f"/algorithms/{algorithm_id}")) == (400, "ModelArts.2755")
    assert emulator.admin.state()["modelarts"]["algorithms"] == []


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda b: b["metadata"].update(name="bad name!"), "ModelArts.2788"),
    (lambda b: b["metadata"].update(name="x" * 65), "ModelArts.2788"),
    (lambda b: b["job_config"].update(engine={"engine_name": "PyTorch", "engine_version": "9.9"}), "ModelArts.2780"),
    (lambda b: b["job_config"].update(engine={"engine_id": "nope"}), "ModelArts.2780"),
    (lambda b: b["job_config"].pop("boot_file"), "ModelArts.2757"),
    (lambda b: b["job_config"].update(boot_file="/elsewhere/x.py"), "ModelArts.2758"),
    (lambda b: b["job_config"]["parameters"].append(dict(b["job_config"]["parameters"][0])), "ModelArts.2767"),
])
def test_algorithm_validation(modelarts: httpx.Client, algorithm_body: Body,
                              mutate: Callable[[Json], Any], expected: str) -> None:
    body = algorithm_body()
    mutate(body)
    assert _error(modelarts.post("/algorithms", json=body)) == (400, expected)


def test_algorithm_duplicate_name_and_bad_json(modelarts: httpx.Client, algorithm_body: Body,
                                               algorithm_id: str) -> None:
    assert _error(modelarts.post("/algorithms", json=algorithm_body())) == (400, "ModelArts.2821")
    assert _error(modelarts.post("/algorithms", content=b"{oops")) == (400, "ModelArts.2787")
    assert _error(modelarts.put("/algorithms/" + str(uuid.uuid4()), json=algorithm_body())) == (400, "ModelArts.2755")


def test_job_create_matches_the_seed_shape(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                                          algorithm_id: str) -> None:
    emulator.admin.set_settings(modelarts_full_detail=True)  # the reference's shape
    job = _job(modelarts, job_body, algorithm_id)
    assert job["kind"] == "job"
    assert job["status"]["phase"] == job["status"]["secondary_phase"] == "Creating"
    assert (job["status"]["duration"], job["status"]["tasks"]) == (0, ["worker-0"])
    assert job["metadata"]["annotations"] == {"job_template": "Template DL", "key_task": "worker"}
    assert job["algorithm"]["name"] == "test-pytorch-cpu"
    assert job["algorithm"]["inputs"][0]["local_dir"] == "/home/ma-user/modelarts/inputs/data_url_0"
    assert job["algorithm"]["outputs"][0]["mode"] == "upload_periodically"
    resource = job["spec"]["resource"]
    assert (resource["flavor_name"], resource["node_count"]) == ("Computing CPU(8U) instance", 1)
    assert resource["flavor_detail"]["flavor_type"] == "CPU" and job["spec"]["is_hosted_log"] is True
    assert modelarts.get(f"/training-jobs/{job['metadata']['id']}").json() == job


def test_job_answers_leave_out_what_the_real_detail_does_not_return(
        emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body, algorithm_id: str) -> None:
    """By default the job answers (create, detail, search, terminate) lack what Huawei's Terraform provider
    documents as missing from the real response (api.md B.6 #8); the stored job keeps all of it."""
    created = _job(modelarts, job_body, algorithm_id)
    job_id = created["metadata"]["id"]
    detail = modelarts.get(f"/training-jobs/{job_id}").json()
    found = modelarts.post("/training-job-searches", json={"filters": [
        {"key": "name", "operator": "in", "value": [created["metadata"]["name"]]}]}).json()["items"]
    stopped = modelarts.post(f"/training-jobs/{job_id}/actions", json={"action_type": "terminate"})
    assert stopped.status_code == 202, stopped.text
    for answer in (created, detail, *found, stopped.json()):
        assert "annotations" not in answer["metadata"], answer["metadata"]
        assert "inputs" not in answer["algorithm"] and answer["algorithm"]["outputs"], answer["algorithm"]
        assert answer["metadata"]["name"] == created["metadata"]["name"] and answer["spec"]["resource"]
    assert len(found) == 1
    stored = next(j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == job_id)
    assert stored["metadata"]["annotations"] == {"job_template": "Template DL", "key_task": "worker"}
    assert stored["algorithm"]["inputs"][0]["name"] == "data_url"


def test_job_with_code_dir_and_engine_and_one_task_per_node(modelarts: httpx.Client) -> None:
    body = {"kind": "job", "metadata": {"name": "direct"},
            "algorithm": {"code_dir": "/b/code/", "boot_file": "/b/code/train.py",
                          "engine": {"engine_name": "TensorFlow", "engine_version": d.ENGINE_TENSORFLOW[1]}},
            "spec": {"resource": {"flavor_id": d.FLAVOR_GPU_V100, "node_count": 3}}}
    job = modelarts.post("/training-jobs", json=body).json()
    assert job["status"]["tasks"] == ["worker-0", "worker-1", "worker-2"]
    assert job["algorithm"]["engine"]["engine_name"] == "TensorFlow"


@pytest.mark.parametrize(("change", "expected"), [
    ({"nodes": 5}, (400, "ModelArts.2793")),  # cpu.8u allows 4
    ({"flavor": "modelarts.vm.cpu.999u"}, (400, "ModelArts.2781")),
    ({"name": "no spaces allowed"}, (400, "ModelArts.2788")),
])
def test_job_validation(modelarts: httpx.Client, job_body: Body, algorithm_id: str,
                        change: Json, expected: tuple[int, str]) -> None:
    assert _error(modelarts.post("/training-jobs", json=job_body(algorithm_id, **change))) == expected


def test_job_other_refusals(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                            algorithm_id: str) -> None:
    _job(modelarts, job_body, algorithm_id)
    assert _error(modelarts.post("/training-jobs", json=job_body(algorithm_id))) == (400, "ModelArts.2751")
    missing = job_body(str(uuid.uuid4()), name="other")
    assert _error(modelarts.post("/training-jobs", json=missing)) == (400, "ModelArts.2755")
    assert _error(modelarts.post("/training-jobs", content=b"[1,")) == (400, "ModelArts.2787")
    assert _error(modelarts.post("/training-jobs", json={**job_body(algorithm_id, name="k"), "kind": "x"})) == (
        400, "ModelArts.2788")
    assert len(emulator.admin.state()["modelarts"]["jobs"]) == 1


def test_job_phases_follow_the_clock(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                                     algorithm_id: str, timing: Any) -> None:
    job_id = _job(modelarts, job_body, algorithm_id)["metadata"]["id"]
    phases = [_phase(modelarts, job_id)]
    for seconds in (timing.step, timing.step, timing.run):
        emulator.admin.advance(seconds)
        phases.append(_phase(modelarts, job_id))
    assert phases == ["Creating", "Pending", "Running", "Completed"]
    status = modelarts.get(f"/training-jobs/{job_id}").json()["status"]
    assert status["secondary_phase"] == "Completed" and status["start_time"] > 0
    assert status["duration"] == timing.run * 1000
    assert status["task_statuses"] == [{"task": "worker-0", "exit_code": 0, "message": ""}]


def test_a_job_stays_pending_for_modelarts_pending_seconds(emulator: EmulatorHandle, modelarts: httpx.Client,
                                                           job_body: Body, algorithm_id: str, timing: Any) -> None:
    """A job queued for resources: Pending (secondary phase Queuing) for the setting's time, then it runs."""
    emulator.admin.set_settings(modelarts_pending_seconds=10 * timing.step)
    job_id = _job(modelarts, job_body, algorithm_id)["metadata"]["id"]
    phases = []
    for seconds in (timing.step, 9 * timing.step, timing.step):
        emulator.admin.advance(seconds)
        status = modelarts.get(f"/training-jobs/{job_id}").json()["status"]
        phases.append((status["phase"], status["secondary_phase"]))
    assert phases == [("Pending", "Queuing"), ("Pending", "Queuing"), ("Running", "Running")]


@pytest.mark.parametrize(("setting", "phase", "secondary", "exit_code"), [
    ("modelarts_fail_names", "Failed", "Failed", 1),
    ("modelarts_abnormal_names", "Abnormal", "Unknown", -1),
])
def test_name_regex_makes_jobs_fail(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                                    algorithm_id: str, timing: Any,
                                    setting: str, phase: str, secondary: str, exit_code: int) -> None:
    emulator.admin.set_settings(**{setting: "^broken-"})
    job_id = _job(modelarts, job_body, algorithm_id, name="broken-1")["metadata"]["id"]
    fine_id = _job(modelarts, job_body, algorithm_id, name="fine-1")["metadata"]["id"]
    emulator.admin.advance(2 * timing.step + timing.run)
    status = modelarts.get(f"/training-jobs/{job_id}").json()["status"]
    assert (status["phase"], status["secondary_phase"]) == (phase, secondary)
    assert status["reason"] and status["task_statuses"][0]["exit_code"] == exit_code
    assert _phase(modelarts, fine_id) == "Completed"


def test_final_metrics_by_name(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                               algorithm_id: str, timing: Any) -> None:
    emulator.admin.set_settings(modelarts_final_metrics={"^low-": {"gpuUtil": 12.0, "cpuUsage": 3.5}})
    low_id = _job(modelarts, job_body, algorithm_id, name="low-1", nodes=2)["metadata"]["id"]
    fine_id = _job(modelarts, job_body, algorithm_id, name="fine-2")["metadata"]["id"]

    def read(job_id: str, task: str) -> dict[str, list[float]]:
        rows = modelarts.get(f"/training-jobs/{job_id}/metrics/{task}").json()["metrics"]
        assert [m["metric"] for m in rows] == ["cpuUsage", "memUsage", "npuUtil", "npuMemUsage", "gpuUtil",
                                               "gpuMemUsage"]  # the seed's shape and order
        return {m["metric"]: m["value"] for m in rows}

    assert all(v == -1 for values in read(low_id, "worker-0").values() for v in values)  # not started yet
    emulator.admin.advance(2 * timing.step + timing.run + 130)
    assert _phase(modelarts, low_id) == "Completed"
    for task in ("worker-0", "worker-1"):
        low = read(low_id, task)
        assert (low["gpuUtil"][-1], low["cpuUsage"][-1]) == (12.0, 3.5)
        assert low["npuUtil"][-1] == -1 and 0.5 <= low["memUsage"][-1] <= 0.8  # the others as before
    fine = read(fine_id, "worker-0")
    assert fine["gpuUtil"][-1] == -1 and 20.0 <= fine["cpuUsage"][-1] <= 45.0
    for bad in ({"^x": {"loss": 1.0}}, {"^x": {"gpuUtil": -1.0}}, {"(": {"gpuUtil": 1.0}}):
        with pytest.raises(httpx.HTTPStatusError):
            emulator.admin.set_settings(modelarts_final_metrics=bad)


def test_description_update_only(modelarts: httpx.Client, job_body: Body, algorithm_id: str) -> None:
    job_id = _job(modelarts, job_body, algorithm_id)["metadata"]["id"]
    response = modelarts.put(f"/training-jobs/{job_id}", json={"description": "new words"})
    assert (response.status_code, response.content) == (200, b"null")
    assert modelarts.get(f"/training-jobs/{job_id}").json()["metadata"]["description"] == "new words"
    assert _error(modelarts.put(f"/training-jobs/{job_id}", json={"name": "x"})) == (400, "ModelArts.2788")
    assert _error(modelarts.put(f"/training-jobs/{job_id}", json={"description": "x" * 257})) == (400, "ModelArts.2788")


def test_terminate_then_409(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                            algorithm_id: str, timing: Any) -> None:
    job_id = _job(modelarts, job_body, algorithm_id)["metadata"]["id"]
    emulator.admin.advance(2 * timing.step)
    stopping = modelarts.post(f"/training-jobs/{job_id}/actions", json={"action_type": "terminate"})
    assert stopping.status_code == 202
    assert (stopping.json()["status"]["phase"], stopping.json()["metadata"]["id"]) == ("Terminating", job_id)
    again = modelarts.post(f"/training-jobs/{job_id}/actions", json={"action_type": "terminate"})
    assert _error(again) == (409, "ModelArts.2796")
    emulator.admin.advance(timing.step)
    assert _phase(modelarts, job_id) == "Terminated"
    assert _error(modelarts.post(f"/training-jobs/{job_id}/actions", json={"action_type": "restart"})) == (
        400, "ModelArts.2812")


def test_completed_job_cannot_be_terminated(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                                            algorithm_id: str, timing: Any) -> None:
    job_id = _job(modelarts, job_body, algorithm_id)["metadata"]["id"]
    emulator.admin.advance(2 * timing.step + timing.run)
    refused = modelarts.post(f"/training-jobs/{job_id}/actions", json={"action_type": "terminate"})
    assert _error(refused) == (409, "ModelArts.2796")


def test_delete_is_202_then_2775_after_the_delay(emulator: EmulatorHandle, modelarts: httpx.Client,
                                                 job_body: Body, algorithm_id: str, timing: Any) -> None:
    job_id = _job(modelarts, job_body, algorithm_id)["metadata"]["id"]
    deleted = modelarts.delete(f"/training-jobs/{job_id}")
    assert (deleted.status_code, deleted.content) == (202, b"")
    assert _phase(modelarts, job_id) == "Creating"  # still readable, phase as is
    assert emulator.admin.state()["modelarts"]["jobs"][0]["deleting"] is True
    assert _error(modelarts.post("/training-jobs", json=job_body(algorithm_id))) == (400, "ModelArts.2751")
    emulator.admin.advance(timing.step)
    assert _error(modelarts.get(f"/training-jobs/{job_id}")) == (400, "ModelArts.2775")
    assert _error(modelarts.delete(f"/training-jobs/{job_id}")) == (400, "ModelArts.2775")
    assert emulator.admin.state()["modelarts"]["jobs"] == []
    assert modelarts.post("/training-jobs", json=job_body(algorithm_id)).status_code == 201  # name free again


def test_searches_filter_and_page(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                                  algorithm_id: str, timing: Any) -> None:
    for name in ("alpha-1", "alpha-2", "beta-1"):
        _job(modelarts, job_body, algorithm_id, name=name)
        emulator.admin.advance(1)
    like = {"filters": [{"key": "name", "operator": "like", "value": ["alpha"]}], "limit": 1, "offset": 1}
    page = modelarts.post("/training-job-searches", json=like).json()
    assert (page["total"], page["count"], page["offset"], page["ai_project"]) == (2, 1, 1, "default-ai-project")
    assert page["items"][0]["metadata"]["name"] == "alpha-1"  # newest first; offset is a page index
    exact = {"filters": [{"key": "name", "operator": "in", "value": ["beta-1"]}]}
    assert [j["metadata"]["name"] for j in modelarts.post("/training-job-searches", json=exact).json()["items"]] == [
        "beta-1"]
    emulator.admin.advance(2 * timing.step)
    running = {"filters": [{"key": "phase", "operator": "in", "value": ["Running"]}]}
    assert modelarts.post("/training-job-searches", json=running).json()["total"] == 3
    bad = {"filters": [{"key": "colour", "operator": "in", "value": ["red"]}]}
    assert _error(modelarts.post("/training-job-searches", json=bad)) == (400, "ModelArts.2788")


def test_logs_url_and_metrics(emulator: EmulatorHandle, modelarts: httpx.Client, job_body: Body,
                              algorithm_id: str, timing: Any) -> None:
    job_id = _job(modelarts, job_body, algorithm_id)["metadata"]["id"]
    not_ready = modelarts.get(f"/training-jobs/{job_id}/tasks/worker-0/logs/url")
    assert (not_ready.status_code, not_ready.content) == (204, b"")
    early = modelarts.get(f"/training-jobs/{job_id}/metrics/worker-0").json()["metrics"]
    assert {m["metric"] for m in early} == {"cpuUsage", "memUsage", "npuUtil", "npuMemUsage", "gpuUtil",
                                            "gpuMemUsage"}
    assert all(v == -1 for m in early for v in m["value"])

    emulator.admin.advance(2 * timing.step + 5)
    url = modelarts.get(f"/training-jobs/{job_id}/tasks/worker-0/logs/url").json()["obs_url"]
    assert re.match(rf"https://modelarts-emulator\.obs/{job_id}/worker-0\.log\?.*Signature=", url)
    rows = modelarts.get(f"/training-jobs/{job_id}/metrics/worker-0").json()["metrics"]
    late = {m["metric"]: m["value"] for m in rows}
    assert late["cpuUsage"][-1] > 0 and late["gpuUtil"][-1] == -1  # a CPU flavor has no GPU data
    assert _error(modelarts.get(f"/training-jobs/{job_id}/metrics/work-0")) == (400, "ModelArts.2788")


def test_output_channels_take_predownload_and_answer_it(modelarts: httpx.Client, job_body: Body,
                                                      algorithm_id: str) -> None:
    """prefetch_to_local (Huawei's "Resumable Training": the channel's files are copied into local_dir before
    the job starts) is a boolean of an output channel; the answer gives it, false unless asked."""
    body = job_body(algorithm_id, name="ckpt-job")
    body["algorithm"]["outputs"].append({"name": "checkpoint_url", "remote": {"obs": {"obs_url": "/b/ckpt/"}},
                                         "prefetch_to_local": True})
    made = modelarts.post("/training-jobs", json=body)
    assert made.status_code == 201, made.text
    outputs = {o["name"]: o for o in made.json()["algorithm"]["outputs"]}
    assert outputs["checkpoint_url"]["prefetch_to_local"] is True and outputs["train_url"]["prefetch_to_local"] is False
    assert modelarts.get(f"/training-jobs/{made.json()['metadata']['id']}").json()["algorithm"]["outputs"] == \
        made.json()["algorithm"]["outputs"]
    bad = job_body(algorithm_id, name="ckpt-bad")
    bad["algorithm"]["outputs"][0]["prefetch_to_local"] = "yes"
    assert _error(modelarts.post("/training-jobs", json=bad))[0] == 400
    bad = job_body(algorithm_id, name="ckpt-bad")
    bad["algorithm"]["inputs"][0]["prefetch_to_local"] = True
    assert _error(modelarts.post("/training-jobs", json=bad))[0] == 400
