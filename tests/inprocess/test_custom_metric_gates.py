"""`success_criteria` on a ModelArts job's custom metrics (`custom_metrics`, 2026), in the provider against the
emulator.

A job that declares a metric collection (`exec` or `http_get`) has its metrics in AOM; a criterion naming one
of them (`loss`) is judged on the latest sample AOM holds of the job's series, beside the metrics API's own
metrics. A pass records `final_metrics` with it; a miss is a failed run, held as any metric gate's miss is
(tests/inprocess/test_metric_gates.py). The emulator's `modelarts_custom_metrics` sets a job's series by name."""

from __future__ import annotations

from typing import Any

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.ownership import FAILED_KEY
from support import inprocess
from support.inprocess import AnyHandler

AOM = "GET /v1/{project_id}/aom/api/v1/query_range"
COLLECT = [{"http_get": {"path": "/metrics", "port": 8080}}]
LOSS = [{"metric": "loss", "op": "<=", "value": 0.5}]
MA_JOB = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
          "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1], "wait_for": "completed",
          "custom_metrics": COLLECT}

pytestmark = pytest.mark.usefixtures("quick")


@pytest.fixture
def quick(quick: EmulatorHandle) -> EmulatorHandle:
    """The shared fast settings; jobs named `good-*` end with loss 0.31, `bad-*` with loss 0.9."""
    quick.admin.set_settings(modelarts_custom_metrics={"^good-": {"loss": 0.31, "tokens_per_s": 1800.0},
                                                       "^bad-": {"loss": 0.9}})
    return quick


@pytest.fixture
def jobs(emulator: EmulatorHandle) -> AnyHandler:
    return inprocess.handler("modelarts:TrainingJob", emulator)


def _job(name: str, **args: Any) -> dict[str, Any]:
    return {**inprocess.OWNER, "name": name, **MA_JOB, **args}


def _aom_calls(emulator: EmulatorHandle) -> int:
    return int(emulator.admin.requests()["endpoints"].get(AOM, 0))


def test_a_run_that_meets_its_custom_metric_gate_records_it(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    criteria = [*LOSS, {"metric": "tokens_per_s", "op": ">", "value": 1000},
                {"metric": "cpuUsage", "op": ">=", "value": 10}]
    created = jobs.create(inprocess.checked(jobs, _job("good-1", success_criteria=criteria)))
    outs = dict(created.outputs)
    assert outs["phase"] == "Completed" and outs["success_criteria_met"] is True, outs
    assert FAILED_KEY not in outs and not outs.get("reason"), outs
    final = outs["final_metrics"]
    assert final["loss"] == 0.31 and final["tokens_per_s"] == 1800.0, final
    assert 20.0 <= final["cpuUsage"] <= 45.0 and "gpuUtil" not in final, "the metrics API's, beside AOM's"
    assert set(outs["metrics_summary"]) == {"cpuUsage", "memUsage"}, "the summary is the metrics API's alone"
    assert _aom_calls(emulator) == 2, "one range query per custom metric a criterion names"
    stored = next(j for j in emulator.admin.state()["modelarts"]["jobs"] if j["metadata"]["id"] == created.id)
    assert stored["spec"]["custom_metrics"] == COLLECT, "sent in the create body as spec.custom_metrics"

    refreshed = inprocess.read(jobs, created.id, outs)
    assert refreshed.outputs["final_metrics"] == final and refreshed.outputs["success_criteria_met"] is True
    assert refreshed.inputs is None and _aom_calls(emulator) == 2, \
        "a refresh keeps what the gate read and asks AOM nothing"


def test_a_run_that_misses_its_custom_metric_gate_is_held(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    props = inprocess.checked(jobs, _job("bad-1", success_criteria=LOSS))
    result = jobs.create(props)
    outs = dict(result.outputs)
    failed = str(outs[FAILED_KEY])
    assert "Completed but missed its success_criteria (final metrics): loss was 0.9, the criterion is " \
           "loss <= 0.5" in failed, failed
    assert "is held: its job stays on the platform, ended, as the run's record (on_failure=\"keep\")" in failed
    assert outs["phase"] == "Completed" and outs["success_criteria_met"] is False, outs
    assert outs["final_metrics"]["loss"] == 0.9 and outs["reason"].startswith("Completed but missed"), outs
    assert inprocess.platform_ids(emulator, "modelarts") == [result.id], "kept on the platform"
    assert not jobs.diff(outs, props, result.id).changes, "the next up starts nothing"
    jobs.delete(result.id, outs)
    assert inprocess.platform_ids(emulator, "modelarts") == []


def test_a_custom_metric_without_samples_misses_and_says_why(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    """`plain-*` jobs have no series in AOM (nothing reports `loss`): a miss, deleted by on_failure."""
    result = jobs.create(inprocess.checked(jobs, _job("plain-1", success_criteria=LOSS, on_failure="delete")))
    text = str(result.outputs[FAILED_KEY])
    assert "loss has no data (AOM holds no sample of it for this job: does its custom_metrics collection " \
           "report it?); the criterion is loss <= 0.5" in text, text
    assert "(final metrics of task" not in text, "no task's metrics were gated"
    assert inprocess.platform_ids(emulator, "modelarts") == []


def test_an_aom_error_is_a_miss_naming_it(emulator: EmulatorHandle, jobs: AnyHandler) -> None:
    emulator.admin.set_faults([{"method": "GET", "path": "/v1/*/aom/api/v1/query_range", "kind": "respond",
                                "status": 422, "body": {"status": "error", "errorType": "execution",
                                                        "error": "query processing would load too many samples"}}])
    result = jobs.create(inprocess.checked(jobs, _job("good-2", success_criteria=LOSS)))
    text = str(result.outputs[FAILED_KEY])
    assert "loss has no data (AOM could not be read: " in text and "too many samples" in text, text
    assert result.outputs["success_criteria_met"] is False


def test_a_custom_metric_gate_needs_a_collection(jobs: AnyHandler) -> None:
    bare = {k: v for k, v in _job("bare", success_criteria=[{"metric": "gpuUtil", "op": ">", "value": 1},
                                                              *LOSS]).items() if k != "custom_metrics"}
    [(field, reason)] = inprocess.failures(jobs, bare)
    assert field == "success_criteria[1].metric", field
    assert "loss is not a metric of ModelArts' metrics API (cpuUsage, memUsage, npuUtil" in reason, reason
    assert "a custom metric needs custom_metrics (exec or http_get), so that ModelArts collects it into AOM" in reason
    bad_name = inprocess.failures(jobs, _job("bad", success_criteria=[{"metric": "2xloss", "op": "<", "value": 1}]))
    assert [f for f, _ in bad_name] == ["success_criteria[0].metric"], bad_name
    assert "nor a custom metric's name (letters, digits, _ and :, not starting with a digit)" in bad_name[0][1]


@pytest.mark.parametrize(("collection", "field", "words"), [
    ([{"exec": {"command": ["python", "m.py"]}, "http_get": {"path": "/m", "port": 80}}], "custom_metrics[0]",
     "give exactly one of exec or http_get"),
    ([{}], "custom_metrics[0]", "give exactly one of exec or http_get"),
    ([{"exec": {"command": []}}], "custom_metrics[0].exec.command", "at least 1 item"),
    ([{"http_get": {"path": "metrics", "port": 80}}], "custom_metrics[0].http_get.path", "match pattern '^/'"),
    ([{"http_get": {"path": "/metrics", "port": 70000}}], "custom_metrics[0].http_get.port", "less than or equal"),
])
def test_bad_collections_name_the_field(jobs: AnyHandler, collection: list[Any], field: str, words: str) -> None:
    found = dict(inprocess.failures(jobs, _job("bad", custom_metrics=collection)))
    assert words in found[field], found


def test_a_signed_provider_reads_aom_with_its_signature(emulator: EmulatorHandle) -> None:
    """AK/SK signing covers the AOM call too (AOM's host, ModelArts' project): no token is fetched."""
    signed = inprocess.handler("modelarts:TrainingJob", emulator, **{
        "mltrain:huaweiAccessKey": emulator.access_key, "mltrain:huaweiSecretKey": emulator.secret_key})
    created = signed.create(inprocess.checked(signed, _job("good-3", success_criteria=LOSS)))
    assert created.outputs["success_criteria_met"] is True and created.outputs["final_metrics"]["loss"] == 0.31
    counts = emulator.admin.requests()["endpoints"]
    assert counts.get(AOM) == 1 and "POST /v3/auth/tokens" not in counts, counts
