"""schema.json (and the wheel's copy) and docs/resources are generated from the specs and must be current."""

from __future__ import annotations

import json
from pathlib import Path

from pulumi_mltrain import registry
from pulumi_mltrain.alaya import StorageMount, TrainingJob
from pulumi_mltrain.alaya.training_job import TrainingJobSpec
from pulumi_mltrain.modelarts import Algorithm
from pulumi_mltrain.modelarts import TrainingJob as ModelArtsJob
from tools import docs, schema
from tools.generate import COMMAND, PACKAGED_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = f"run `{COMMAND}` and commit the result"


def test_schema_json_is_current() -> None:
    committed = (ROOT / "schema.json").read_text()
    assert committed == schema.dump(schema.build()), f"schema.json is stale: {REGENERATE}"


def test_the_wheel_ships_the_same_schema_json() -> None:
    """The plugin's GetSchema returns the packaged copy; the design's top-level file stays the source."""
    assert (ROOT / PACKAGED_SCHEMA).read_text() == (ROOT / "schema.json").read_text(), \
        f"{PACKAGED_SCHEMA} differs from schema.json: {REGENERATE}"


def test_docs_are_current() -> None:
    pages = docs.render_pages(schema.build())
    folder = ROOT / "docs" / "resources"
    assert sorted(p.name for p in folder.glob("*.md")) == sorted(pages), f"docs/resources is stale: {REGENERATE}"
    for name, text in pages.items():
        assert (folder / name).read_text() == text, f"docs/resources/{name} is stale: {REGENERATE}"


def test_type_tokens_are_stable() -> None:
    """Changing these changes every URN of every user's stack."""
    assert TrainingJob._resource_type_name == "dynamic/alaya:TrainingJob"
    assert StorageMount._resource_type_name == "dynamic/alaya:StorageMount"
    assert ModelArtsJob._resource_type_name == "dynamic/modelarts:TrainingJob"
    assert Algorithm._resource_type_name == "dynamic/modelarts:Algorithm"
    assert TrainingJob._provider_type.__module__ == "pulumi_mltrain.alaya.training_job"


def test_the_registry_is_what_the_schema_lists() -> None:
    """One registry: the schema's resources and functions are exactly its entries, under its tokens."""
    built = schema.build()
    assert sorted(built["resources"]) == sorted(r.token for r in registry.RESOURCES)
    assert sorted(built["functions"]) == sorted(registry.functions())
    for res in registry.RESOURCES:
        assert f"Runtime type token: `{res.dynamic_token}`" in built["resources"][res.token]["description"]


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
    assert {"mltrain:modelarts:getFlavors", "mltrain:alaya:getProducts", "mltrain:modelarts:getTrainingJobLogs"} \
        <= set(built["functions"])
    assert built["functions"]["mltrain:modelarts:getFlavors"]["outputs"]["type"] == "array"  # as it returns
    assert built["config"]["variables"]["alayaApiKey"]["secret"] is True
    json.dumps(built)


def test_schema_carries_defaults_enums_and_bounds() -> None:
    built = schema.build()
    job = built["resources"]["mltrain:alaya:TrainingJob"]["inputProperties"]
    assert job["priority"]["default"] == 3
    # max_retry_count / timeout_hours switch these on; a fixed default, sent by generated SDKs, would not.
    assert "default" not in job["enable_auto_retry"] and "default" not in job["enable_timeout_cancel"]
    assert job["wait_for"] == {**job["wait_for"], "$ref": "#/types/mltrain:alaya:TrainingJobWaitFor",
                               "default": "created"}
    wait = built["types"]["mltrain:alaya:TrainingJobWaitFor"]
    assert wait["type"] == "string" and [e["value"] for e in wait["enum"]] == ["created", "running", "completed"]
    assert "Allowed: >= 1, <= 512." in job["worker_count"]["description"]
    assert "default" not in job["name"], "name is chosen by the provider, it has no fixed default"
    ma = built["resources"]["mltrain:modelarts:TrainingJob"]["inputProperties"]
    target = built["types"][ma["wait_for"]["$ref"].removeprefix("#/types/")]
    assert [e["value"] for e in target["enum"]] == ["accepted", "running", "completed"]


def test_docs_pages_say_what_a_user_needs() -> None:
    pages = docs.render_pages(schema.build())
    job = pages["alaya-TrainingJob.md"]
    for section in ("## Example", "## Inputs", "## Outputs", "## Timeouts", "## Adoption", "## Ownership"):
        assert section in job, section
    assert "alaya.TrainingJob(" in job and "```python" in job
    assert "| `worker_count` | integer | yes |  | >= 1; <= 512 | replace |" in job
    assert "| `wait_for` | string |  | `created` | one of `created`, `running`, `completed` | local" in job
    assert "| create | 20 min |" in job and "MLTRAIN_OWNER" in job
    ma = pages["modelarts-TrainingJob.md"]
    assert "| `description` |" in ma and "update in place" in ma.split("| `description` |", 1)[1].split("\n")[0]
    assert "### ObsChannel" in ma and "mltrain-owner-urn" in ma
    assert "| create | 5 min |" in pages["modelarts-Algorithm.md"]
