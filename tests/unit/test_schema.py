"""schema.json and docs/resources are generated from the specs and must be current."""

from __future__ import annotations

import json
from pathlib import Path

from pulumi_mltrain import schema
from pulumi_mltrain.alaya import StorageMount, TrainingJob
from pulumi_mltrain.alaya.training_job import TrainingJobSpec
from pulumi_mltrain.modelarts import Algorithm
from pulumi_mltrain.modelarts import TrainingJob as ModelArtsJob

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "run `.venv/bin/python -m pulumi_mltrain.schema --write .` and commit the result"


def test_schema_json_is_current() -> None:
    committed = (ROOT / "schema.json").read_text()
    assert committed == schema.dump(schema.build()), f"schema.json is stale: {REGENERATE}"


def test_docs_are_current() -> None:
    pages = schema.render_docs(schema.build())
    docs = ROOT / "docs" / "resources"
    assert sorted(p.name for p in docs.glob("*.md")) == sorted(pages), f"docs/resources is stale: {REGENERATE}"
    for name, text in pages.items():
        assert (docs / name).read_text() == text, f"docs/resources/{name} is stale: {REGENERATE}"


def test_type_tokens_are_stable() -> None:
    """Changing these changes every URN of every user's stack."""
    assert TrainingJob._resource_type_name == "dynamic/alaya:TrainingJob"
    assert StorageMount._resource_type_name == "dynamic/alaya:StorageMount"
    assert ModelArtsJob._resource_type_name == "dynamic/modelarts:TrainingJob"
    assert Algorithm._resource_type_name == "dynamic/modelarts:Algorithm"
    assert TrainingJob._provider_type.__module__ == "pulumi_mltrain.alaya.training_job"


def test_schema_comes_from_the_spec() -> None:
    built = schema.build()
    job = built["resources"]["mltrain:alaya:TrainingJob"]
    assert set(job["inputProperties"]) == set(TrainingJobSpec.model_fields)
    assert job["inputProperties"]["image"]["replaceOnChanges"] is True
    assert "replaceOnChanges" not in job["inputProperties"]["wait_for"]
    assert set(job["requiredInputs"]) == {"product_code", "worker_count", "image"}  # name: autonamed
    assert "training_task_id" in job["properties"]
    assert job["inputProperties"]["storage_mounts"]["items"] == {"$ref": "#/types/mltrain:alaya:NasMount"}
    ma = built["resources"]["mltrain:modelarts:TrainingJob"]
    assert "replaceOnChanges" not in ma["inputProperties"]["description"]
    assert set(built["functions"]) == {"mltrain:modelarts:getFlavors", "mltrain:modelarts:getEngines"}
    assert built["config"]["variables"]["alayaApiKey"]["secret"] is True
    json.dumps(built)
