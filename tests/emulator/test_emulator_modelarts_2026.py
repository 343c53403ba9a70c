"""ModelArts' 2026 job fields in the emulator: fine-tune jobs (`train_type`, `ftjob_config`, `spec.output_model`,
`spec.asset_model`, `spec.asset_id`), their artifacts (the trained model's IDs), and `spec.custom_metrics`,
whose series AOM's PromQL range query serves.

Shapes: Huawei's Terraform provider (huaweicloud_modelarts_training_job) and Huawei's Python SDK (v1 models Job,
Spec, MasJobConfig, CustomMetrics); the job detail leaves out the fine-tune fields as that provider documents
(api.md B.6 #8); the artifacts are ListFtArtifacts'; custom metrics are AOM's (see modelarts/aom.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from support.loopback import LOOPBACK, RUN, STEP

Json = dict[str, Any]
ASSET = {"name": "qwen-sft", "version": "1.0.0", "type": "LLM"}


def _fine_tune(name: str = "ft-job", **changes: Any) -> Json:
    """A fine-tune job of a model asset, as Huawei's Terraform example sends it (no algorithm code)."""
    body: Json = {
        "kind": "job", "metadata": {"name": name}, "train_type": "SFT",
        "algorithm": {"inputs": [{"name": "data_url", "remote": {"obs": {"obs_url": "/b/data/"}}}]},
        "spec": {"resource": {"flavor_id": d.FLAVOR_CPU_8U, "node_count": 1}, "asset_id": "asset-base-1",
                 "output_model": {"obs": {"obs_path": "obs://b/model/"}}, "asset_model": dict(ASSET),
                 "custom_metrics": [{"http_get": {"path": "/metrics", "port": 8080}}]},
        "ftjob_config": {"task_env": {"envs": [{"env_name": "LR", "value": "1e-4"}]},
                         "checkpoint_config": {"save_checkpoints_max": 2, "restore_training": 0}},
    }
    for path, value in changes.items():
        *parents, last = path.split(".")
        node = body
        for part in parents:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return body


def _refused(modelarts: httpx.Client, body: Json) -> str:
    answer = modelarts.post("/training-jobs", json=body)
    assert answer.status_code == 400, answer.text
    error = answer.json()
    assert error["error_code"] == "ModelArts.2788", error
    return str(error["error_msg"])


def _stored(emulator: EmulatorHandle, job_id: str) -> Json:
    return next(j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == job_id)


def test_a_fine_tune_job_keeps_its_fields_but_its_detail_leaves_them_out(emulator: EmulatorHandle,
                                                                        modelarts: httpx.Client) -> None:
    created = modelarts.post("/training-jobs", json=_fine_tune())
    assert created.status_code == 201, created.text
    job_id = created.json()["metadata"]["id"]
    for answer in (created.json(), modelarts.get(f"/training-jobs/{job_id}").json()):
        assert "train_type" not in answer and "ftjob_config" not in answer, "the real detail omits them"
        assert not {"output_model", "asset_model", "asset_id"} & set(answer["spec"]), answer["spec"]
        assert answer["spec"]["custom_metrics"] == [{"http_get": {"path": "/metrics", "port": 8080}}], \
            "custom_metrics is returned (Huawei's Terraform provider reads it back)"
        assert answer["algorithm"]["id"] == "" and answer["algorithm"]["code_dir"] is None, \
            "a fine-tune of a model asset needs no algorithm"
    stored = _stored(emulator, job_id)
    assert stored["train_type"] == "SFT" and stored["spec"]["asset_id"] == "asset-base-1"
    assert stored["spec"]["output_model"] == {"obs": {"obs_path": "obs://b/model/"}}
    assert stored["spec"]["asset_model"] == ASSET
    assert stored["ftjob_config"]["task_env"]["envs"] == [{"env_name": "LR", "value": "1e-4"}]
    emulator.admin.set_settings(modelarts_full_detail=True)
    full = modelarts.get(f"/training-jobs/{job_id}").json()
    assert full["train_type"] == "SFT" and full["spec"]["asset_model"] == ASSET, "the reference's full shape"


@pytest.mark.parametrize(("change", "words"), [
    ({"train_type": "QLORA"}, "train_type must be one of SFT, PRETRAIN, LORA, DPO, RFT"),
    ({"train_type": None}, "ftjob_config, spec.asset_model, spec.asset_id apply to fine-tune jobs only"),
    ({"spec.output_model": None}, "spec.asset_model publishes the trained model: spec.output_model is required"),
    ({"spec.output_model": {"obs": {"obs_path": "b/model"}}}, "spec.output_model.obs.obs_path must be an OBS path"),
    ({"spec.asset_model": {"name": "m", "version": "1"}}, "spec.asset_model.type must be a non-empty string"),
    ({"ftjob_config.checkpoint_config": {"save_checkpoints_max": -2}},
     "ftjob_config.checkpoint_config.save_checkpoints_max must be an integer >= -1"),
    ({"ftjob_config.checkpoint_config": {"restore_training": 1}},
     "restore_training 1 needs a checkpoint_id to resume from"),
    ({"ftjob_config.task_env": {"envs": [{"env_name": "A"}, {"env_name": "A"}]}},
     "ftjob_config.task_env.envs[1].env_name must be a distinct environment variable name"),
    ({"spec.custom_metrics": [{"exec": {"command": ["m.sh"]}, "http_get": {"path": "/m", "port": 1}}]},
     "spec.custom_metrics[0] needs exactly one of exec or http_get"),
    ({"spec.custom_metrics": [{"exec": {"command": []}}]}, "spec.custom_metrics[0].exec.command must be a non-empty"),
    ({"spec.custom_metrics": [{"http_get": {"path": "/m"}}]}, "spec.custom_metrics[0].http_get.port must be"),
    ({"spec.custom_metrics": [{"http_get": {"path": "metrics", "port": 80}}]}, "http_get.path must be a URL path"),
    ({"spec.asset_id": None}, "algorithm needs an id, code_dir + boot_file + engine, or an image with a command"),
])
def test_the_create_refuses_what_the_platform_would(modelarts: httpx.Client, change: Json, words: str) -> None:
    assert words in _refused(modelarts, _fine_tune(**change))


def test_a_completed_fine_tune_job_lists_its_model_and_asset(emulator: EmulatorHandle,
                                                             modelarts: httpx.Client) -> None:
    job_id = modelarts.post("/training-jobs", json=_fine_tune()).json()["metadata"]["id"]
    bare = modelarts.post("/training-jobs", json=_fine_tune("ft-bare", **{"spec.asset_model": None}))
    bare_id = bare.json()["metadata"]["id"]
    assert modelarts.get(f"/training-jobs/{job_id}/ft-artifacts").json() == {"total": 0, "artifact_info": []}
    emulator.admin.advance(2 * STEP + RUN)
    assert modelarts.get(f"/training-jobs/{job_id}").json()["status"]["phase"] == "Completed"
    listed = modelarts.get(f"/training-jobs/{job_id}/ft-artifacts").json()
    [final] = listed["artifact_info"]
    assert listed["total"] == 1 and final["artifact_type"] == "final" and final["is_best"] is True
    assert final["artifact_id"] and final["asset_id"] and final["asset_id"] != final["artifact_id"]
    assert (final["asset_name"], final["status"]) == ("qwen-sft", "published")
    assert modelarts.get(f"/training-jobs/{job_id}/ft-artifacts").json() == listed, "every read agrees"
    [unpublished] = modelarts.get(f"/training-jobs/{bare_id}/ft-artifacts").json()["artifact_info"]
    assert unpublished["artifact_id"] and unpublished["asset_id"] == "" and unpublished["status"] == "unpublished"


def _aom(emulator: EmulatorHandle, token: str, query: str, start: float = 0, end: float = 4e9,
         method: str = "GET", headers: dict[str, str] | None = None) -> httpx.Response:
    with httpx.Client(**LOOPBACK) as client:
        return client.request(method, f"{emulator.url}/v1/{emulator.project_id}/aom/api/v1/query_range",
                              params={"query": query, "start": str(start), "end": str(end), "step": "60"},
                              headers={"X-Auth-Token": token} if headers is None else headers)


def test_aom_serves_the_custom_series_a_job_collects(emulator: EmulatorHandle, modelarts: httpx.Client,
                                                     token: str) -> None:
    emulator.admin.set_settings(modelarts_custom_metrics={"^ft-": {"loss": 0.42, "tokens_per_s": 1800.0}},
                                modelarts_run_seconds=150)  # samples once a minute, the last at the end: 0, 60, 150
    job_id = modelarts.post("/training-jobs", json=_fine_tune()).json()["metadata"]["id"]
    silent = modelarts.post("/training-jobs", json=_fine_tune("ft-silent", **{"spec.custom_metrics": None}))
    silent_id = silent.json()["metadata"]["id"]
    query = f'loss{{service_id="{job_id}"}}'
    before = _aom(emulator, token, query)
    assert before.json() == {"status": "success", "data": {"resultType": "matrix", "result": []}}, \
        "no sample before the job runs"

    emulator.admin.advance(2 * STEP + 150)
    answer = _aom(emulator, token, query).json()
    [series] = answer["data"]["result"]
    assert series["metric"] == {"__name__": "loss", "service_id": job_id, "task_name": "worker-0"}
    values = [float(v) for _, v in series["values"]]
    assert values[-1] == 0.42 and values == sorted(values, reverse=True) and len(values) == 3, values
    times = [t for t, _ in series["values"]]
    assert times == sorted(times)
    assert _aom(emulator, token, f'{{__name__="tokens_per_s", service_id="{job_id}"}}', method="POST") \
        .json()["data"]["result"][0]["values"][-1][1] == "1800"
    assert _aom(emulator, token, f'loss{{service_id="{silent_id}"}}').json()["data"]["result"] == [], \
        "a job without custom_metrics collects nothing"
    assert _aom(emulator, token, f'accuracy{{service_id="{job_id}"}}').json()["data"]["result"] == [], \
        "only the metrics its collection reports"
    assert _aom(emulator, token, query, start=0, end=1).json()["data"]["result"] == [], "outside the range"


def test_aom_refuses_bad_queries_and_missing_tokens(emulator: EmulatorHandle, token: str) -> None:
    bad = _aom(emulator, token, "rate(loss[5m])")
    assert bad.status_code == 400 and bad.json()["status"] == "error" and bad.json()["errorType"] == "bad_data"
    assert "bare selector" in bad.json()["error"]
    assert _aom(emulator, token, 'loss{service_id=~"x.*"}').status_code == 400
    with httpx.Client(**LOOPBACK) as client:
        no_step = client.get(f"{emulator.url}/v1/{emulator.project_id}/aom/api/v1/query_range",
                             params={"query": "loss", "start": "0", "end": "1"}, headers={"X-Auth-Token": token})
    assert no_step.status_code == 400 and "step is required" in no_step.json()["error"]
    refused = _aom(emulator, token, "loss", headers={})
    assert refused.status_code == 401 and refused.json()["error_code"] == "ModelArts.0201"
    counted = emulator.admin.requests()["endpoints"]
    assert counted.get("GET /v1/{project_id}/aom/api/v1/query_range") == 4, counted


def test_custom_metric_settings_are_checked(emulator: EmulatorHandle) -> None:
    with pytest.raises(httpx.HTTPStatusError):
        emulator.admin.set_settings(modelarts_custom_metrics={"^ft-": {"9loss": 1.0}})
    with pytest.raises(httpx.HTTPStatusError):
        emulator.admin.set_settings(modelarts_custom_metrics={"(": {"loss": 1.0}})
    assert emulator.admin.settings()["modelarts_custom_metrics"] == {}


def test_a_tag_value_longer_than_the_tag_service_allows_is_refused(emulator: EmulatorHandle,
                                                                  modelarts: httpx.Client) -> None:
    job_id = modelarts.post("/training-jobs", json=_fine_tune()).json()["metadata"]["id"]
    tags = f"/modelarts-training-job/{job_id}/tags"
    too_long = modelarts.post(f"{tags}/create", json={"tags": [{"key": "k", "value": "v" * 256}]})
    assert too_long.status_code == 400, too_long.text
    assert modelarts.post(f"{tags}/create", json={"tags": [{"key": "k", "value": "v" * 255}]}).status_code == 204
    assert modelarts.get(tags).json()["tags"] == [{"key": "k", "value": "v" * 255}]
