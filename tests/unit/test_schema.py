"""schema.json (and the wheel's copy) and docs/resources are generated from the specs and must be current."""

from __future__ import annotations

import json
from pathlib import Path

from pulumi_mltrain import registry
from pulumi_mltrain.alaya import StorageMount, TrainingJob
from pulumi_mltrain.alaya.training_job import TrainingJobSpec
from pulumi_mltrain.modelarts import Algorithm
from pulumi_mltrain.modelarts import TrainingJob as ModelArtsJob
from pulumi_mltrain.spec import property_name
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
    # The class paths of the pickled providers, which every released state names.
    assert [f"{c._provider_class.__module__}:{c._provider_class.__qualname__}"
            for c in (TrainingJob, StorageMount, ModelArtsJob, Algorithm)] == [
        "pulumi_mltrain.alaya._resources:_TrainingJobProvider",
        "pulumi_mltrain.alaya._resources:_StorageMountProvider",
        "pulumi_mltrain.modelarts._resources:_TrainingJobProvider",
        "pulumi_mltrain.modelarts._resources:_AlgorithmProvider"]


def test_the_registry_is_what_the_schema_lists() -> None:
    """One registry: the schema's resources and functions are exactly its entries, under its tokens."""
    built = schema.build()
    assert sorted(built["resources"]) == sorted(r.token for r in registry.RESOURCES)
    assert sorted(built["functions"]) == sorted(registry.functions())
    for res in registry.RESOURCES:
        # The plugin's SDKs document the plugin's resources: no word of the dynamic form's type token.
        assert "pulumi-python" not in json.dumps(built["resources"][res.token]), res.token


def test_schema_comes_from_the_spec() -> None:
    built = schema.build()
    job = built["resources"]["mltrain:alaya:TrainingJob"]
    # camelCase names, one per field of the spec (`spec.property_name`), nested types too.
    assert set(job["inputProperties"]) == {property_name(f) for f in TrainingJobSpec.model_fields}
    assert {"productCode", "workerCount", "waitFor", "storageMounts"} <= set(job["inputProperties"])
    assert job["inputProperties"]["image"]["replaceOnChanges"] is True
    assert "replaceOnChanges" not in job["inputProperties"]["waitFor"]
    assert set(job["requiredInputs"]) == {"productCode", "workerCount", "image"}  # name: autonamed
    assert "trainingTaskId" in job["properties"]
    assert job["inputProperties"]["storageMounts"]["items"] == {"$ref": "#/types/mltrain:alaya:NasMount"}
    assert set(built["types"]["mltrain:alaya:NasMount"]["properties"]) == {
        "storageId", "storageType", "fileDirectory", "mountPath", "readOnly"}
    names = [n for r in built["resources"].values() for n in r["properties"]]
    names += [n for t in built["types"].values() for n in t.get("properties", {})]
    names += [n for f in built["functions"].values() for part in (f["inputs"], f["outputs"])
              for n in part.get("properties", part.get("items", {}).get("properties", {}))]
    assert names and not [n for n in names if "_" in n]
    ma = built["resources"]["mltrain:modelarts:TrainingJob"]
    assert "replaceOnChanges" not in ma["inputProperties"]["description"]
    assert {"mltrain:modelarts:getFlavors", "mltrain:alaya:getProducts", "mltrain:modelarts:getTrainingJobLogs"} \
        <= set(built["functions"])
    assert built["functions"]["mltrain:modelarts:getFlavors"]["outputs"]["type"] == "array"  # as it returns
    assert built["config"]["variables"]["alayaApiKey"]["secret"] is True
    json.dumps(built)


def test_schema_carries_defaults_enums_and_bounds() -> None:
    """A resource input's default is said in its description, never a `default` key, which generated SDKs
    would send as declared (the provider's check fills defaults); an object type's fields keep the key."""
    built = schema.build()
    for token, res in built["resources"].items():
        assert not [k for k, v in res["inputProperties"].items() if "default" in v], token
    job = built["resources"]["mltrain:alaya:TrainingJob"]["inputProperties"]
    assert "3 (lowest, the default)" in job["priority"]["description"]
    # max_retry_count / timeout_hours switch these on: no fixed default is said for them.
    assert "Default:" not in job["enableAutoRetry"]["description"] + job["enableTimeoutCancel"]["description"]
    assert job["waitFor"]["$ref"] == "#/types/mltrain:alaya:TrainingJobWaitFor"
    assert job["waitFor"]["description"].endswith(" Default: `created`.")
    assert job["stopped"]["description"].endswith(" Default: `false`.")
    assert built["types"]["mltrain:alaya:NasMount"]["properties"]["readOnly"]["default"] is True
    wait = built["types"]["mltrain:alaya:TrainingJobWaitFor"]
    assert wait["type"] == "string" and [e["value"] for e in wait["enum"]] == ["created", "running", "completed"]
    assert "Allowed: >= 1, <= 512." in job["workerCount"]["description"]
    assert "default" not in job["name"], "name is chosen by the provider, it has no fixed default"
    ma = built["resources"]["mltrain:modelarts:TrainingJob"]["inputProperties"]
    target = built["types"][ma["waitFor"]["$ref"].removeprefix("#/types/")]
    assert [e["value"] for e in target["enum"]] == ["accepted", "running", "completed"]


def test_docs_pages_say_what_a_user_needs() -> None:
    pages = docs.render_pages(schema.build())
    job = pages["alaya-TrainingJob.md"]
    for section in ("## Example", "## Inputs", "## Outputs", "## Timeouts", "## Adoption", "## Ownership"):
        assert section in job, section
    assert "alaya.TrainingJob(" in job and "```python" in job
    assert "| `worker_count` / `workerCount` | integer | yes |  | >= 1; <= 512 | replace |" in job
    assert "| `wait_for` / `waitFor` | string |  | `created` | one of `created`, `running`, `completed` | local" in job
    assert "| `image` | string | yes |" in job and "`mltrain:alaya:TrainingJob`" in job
    assert "| `mount_path` / `mountPath` | string | yes |" in job  # the NasMount table
    assert "| create | 20 min |" in job and "MLTRAIN_OWNER" in job
    ma = pages["modelarts-TrainingJob.md"]
    assert "| `description` |" in ma and "update in place" in ma.split("| `description` |", 1)[1].split("\n")[0]
    assert "### ObsChannel" in ma and "mltrain-owner-urn" in ma
    assert "| create | 5 min |" in pages["modelarts-Algorithm.md"]
