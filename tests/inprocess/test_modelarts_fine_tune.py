"""Fine-tune jobs (`train_type`, `ftjob_config`, `base_asset_id`, `output_model`, `asset_model`: ModelArts' 2026
fields) in the provider against the emulator.

The create body carries them where the platform expects them (`train_type` and `ftjob_config` at the top,
the others in `spec`); the job detail returns none of them (Huawei's Terraform provider documents it), so the
state keeps what was sent and a refresh reports no drift for them. Once the job has Completed, its fine-tune
artifacts name the model it trained (`model_id`) and the asset that model was published as
(`model_asset_id`)."""

from __future__ import annotations

from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from pulumi_mltrain.modelarts.wire.client import ModelArtsClient, aom_endpoint
from support import inprocess
from support.inprocess import AnyHandler, Created
from support.modelarts_declared import FINE_TUNE

ARTIFACTS = "GET /v2/{project_id}/training-jobs/{training_job_id}/ft-artifacts"
NOT_RETURNED = ("train_type", "ftjob_config", "base_asset_id", "output_model", "asset_model")

pytestmark = pytest.mark.usefixtures("quick")


@pytest.fixture
def jobs(emulator: EmulatorHandle) -> AnyHandler:
    return inprocess.handler("modelarts:TrainingJob", emulator)


def _stored(emulator: EmulatorHandle, job_id: str) -> dict[str, Any]:
    return next(j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == job_id)


def _api(emulator: EmulatorHandle) -> ModelArtsClient:
    return ModelArtsClient(inprocess.settings("modelarts", emulator))


def _artifact(emulator: EmulatorHandle, job_id: str) -> dict[str, Any]:
    [final] = _api(emulator).ft_artifacts(job_id)
    return final


def test_a_fine_tune_job_creates_refreshes_quietly_and_records_its_model(emulator: EmulatorHandle,
                                                                         jobs: AnyHandler) -> None:
    job = Created(jobs, FINE_TUNE, name="ft-lora")
    outs = job.state
    assert outs["phase"] == "Completed", outs
    stored = _stored(emulator, job.id)
    assert stored["train_type"] == "LORA" and stored["spec"]["asset_id"] == "asset-qwen2-7b"
    assert stored["spec"]["output_model"] == {"obs": {"obs_path": "obs://b/models/qwen-lora/",
                                                      "local_path": "/home/ma-user/model"}}
    assert stored["spec"]["asset_model"] == FINE_TUNE["asset_model"]
    assert stored["ftjob_config"] == {"model_type": "qwen2",
                                      "task_env": {"envs": [{"env_name": "LEARNING_RATE", "value": "1e-4"}]},
                                      "checkpoint_config": {"save_checkpoints_max": 2, "skipped_steps": 0}}
    assert stored["spec"]["custom_metrics"] == FINE_TUNE["custom_metrics"]
    final = _artifact(emulator, job.id)
    assert (outs["model_id"], outs["model_asset_id"]) == (final["artifact_id"], final["asset_id"]), outs
    assert outs["model_id"] != outs["model_asset_id"]

    detail = _api(emulator).job(job.id)
    assert "train_type" not in detail and "asset_model" not in detail["spec"], "the real detail omits them"
    declared = {k: job.inputs[k] for k in NOT_RETURNED}
    inputs = job.refresh()
    assert {k: inputs[k] for k in NOT_RETURNED} == declared, "the state keeps what was sent"
    assert (job.state["model_id"], job.state["model_asset_id"]) == (outs["model_id"], outs["model_asset_id"])
    _, diff = job.preview()
    assert not diff.changes, diff
    job.delete()
    assert inprocess.platform_ids(emulator, "modelarts") == []


def test_a_model_read_after_the_create_is_kept_through_an_unreadable_refresh(emulator: EmulatorHandle,
                                                                               jobs: AnyHandler) -> None:
    emulator.admin.set_settings(modelarts_run_seconds=60)
    job = Created(jobs, {**FINE_TUNE, "wait_for": "accepted"}, name="ft-later")
    assert job.state["phase"] != "Completed" and job.state.get("model_id") is None, "not known before it completed"
    emulator.admin.advance(61)
    job.refresh()
    final = _artifact(emulator, job.id)
    assert (job.state["model_id"], job.state["model_asset_id"]) == (final["artifact_id"], final["asset_id"])
    emulator.admin.set_faults(["GET /v2/*/training-jobs/*/ft-artifacts:respond=403:body=denied"])
    job.refresh()
    assert job.state["model_id"] == final["artifact_id"], "recorded once, kept when the artifacts cannot be read"
    assert emulator.admin.requests()["endpoints"][ARTIFACTS] >= 3
    emulator.admin.clear_faults()
    job.delete()


def test_a_job_without_train_type_reads_no_artifacts(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    plain = {k: v for k, v in FINE_TUNE.items() if k not in ("train_type", "ftjob_config", "asset_model",
                                                               "base_asset_id")}
    job = Created(jobs, {**plain, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                         "image_url": "swr.cn-north-4.myhuaweicloud.com/team/train:1", "command": "python train.py"},
                  name="ft-plain")
    assert job.state["phase"] == "Completed" and job.state.get("model_id") is None
    assert ARTIFACTS not in emulator.admin.requests()["endpoints"]
    assert _stored(emulator, job.id)["spec"]["output_model"]["obs"]["obs_path"] == "obs://b/models/qwen-lora/"
    job.delete()


@pytest.mark.parametrize("field", ["train_type", "ftjob_config", "output_model", "asset_model", "base_asset_id"])
def test_a_change_of_a_fine_tune_field_replaces_the_job(jobs: AnyHandler, field: str) -> None:
    changed: dict[str, Any] = {
        "train_type": "SFT", "ftjob_config": {"model_type": "qwen2.5"}, "base_asset_id": "asset-qwen2-14b",
        "output_model": {"obs_path": "obs://b/models/other/"},
        "asset_model": {**FINE_TUNE["asset_model"], "version": "1.0.1"},
    }
    olds = inprocess.checked(jobs, {**inprocess.OWNER, "name": "ft", **FINE_TUNE})
    news = inprocess.checked(jobs, {**inprocess.OWNER, "name": "ft", **FINE_TUNE, field: changed[field]}, olds=olds)
    diff = jobs.diff(olds, news, "job-id")
    assert diff.replaces == (field,), diff


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"train_type": "QLORA"}, "train_type", "'SFT', 'PRETRAIN', 'LORA', 'DPO' or 'RFT'"),
    ({"train_type": None}, "ftjob_config", "applies to fine-tune jobs only: set train_type (SFT, PRETRAIN, LORA"),
    ({"train_type": None}, "asset_model", "applies to fine-tune jobs only"),
    ({"train_type": None}, "base_asset_id", "applies to fine-tune jobs only"),
    ({"output_model": None}, "asset_model", "publishes the model the job saves: set output_model"),
    ({"output_model": {"obs_path": "models/x"}}, "output_model.obs_path", "must be an OBS location"),
    ({"output_model": {"obs_path": "obs://b/m/", "local_path": "model"}}, "output_model.local_path",
     "must be an absolute path"),
    ({"asset_model": {"name": "m", "version": "1"}}, "asset_model.type", "is required"),
    ({"ftjob_config": {"checkpoint_config": {"save_checkpoints_max": -2}}},
     "ftjob_config.checkpoint_config.save_checkpoints_max", "greater than or equal to -1"),
    ({"ftjob_config": {"checkpoint_config": {"restore_training": 2}}},
     "ftjob_config.checkpoint_config.restore_training", "less than or equal to 1"),
    ({"ftjob_config": {"checkpoint_config": {"restore_training": 1}}},
     "ftjob_config.checkpoint_config.restore_training", "1 resumes from a checkpoint: set checkpoint_config"),
    ({"ftjob_config": {"task_env": [{"env_name": "LR"}, {"env_name": "LR"}]}}, "ftjob_config.task_env[1].env_name",
     "LR is already set by task_env[0]"),
    ({"ftjob_config": {"task_env": [{"env_name": "1LR"}]}}, "ftjob_config.task_env[0].env_name", "match pattern"),
    ({"base_asset_id": None}, "algorithm_id", "is required, or inline code"),
])
def test_bad_fine_tune_values_name_the_field(jobs: AnyHandler, change: dict[str, Any], field: str,
                                             words: str) -> None:
    props = {**inprocess.OWNER, "name": "ft", **{k: v for k, v in {**FINE_TUNE, **change}.items() if v is not None}}
    found = dict(inprocess.failures(jobs, props))
    assert field in found and words in found[field], found


def test_aom_lives_beside_modelarts() -> None:
    assert aom_endpoint("https://modelarts.cn-north-4.myhuaweicloud.com") == "https://aom.cn-north-4.myhuaweicloud.com"
    assert aom_endpoint("https://modelarts.ap-southeast-1.myhuaweicloud.com/") == \
        "https://aom.ap-southeast-1.myhuaweicloud.com"
    assert aom_endpoint("http://127.0.0.1:8790") == "http://127.0.0.1:8790", "a gateway or the emulator serves both"
