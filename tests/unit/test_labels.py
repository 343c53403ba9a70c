"""Messages name a resource from its fields as given (`PlatformCalls.label`): a check names it before
anything is validated, so inputs that do not validate are named too, and a validated spec is named alike
(`handler.py`, `_label_of` and `_label`)."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_mltrain import registry
from tests.support.platforms import PLATFORMS

MOUNT = {"storage_id": "72a2a885-e45e-4c79-aaf3-e1fa05abdb92", "storage_type": "nas-capacity",
         "file_directory": "/datasets", "mount_path": "/root/nas/datasets"}
# Per resource: inputs that do not validate (a wrong type beside the naming fields), and the name.
INVALID: dict[registry.Resource, tuple[dict[str, Any], str]] = {
    registry.ALAYA_JOB: ({"name": "llama3-sft", "worker_count": "many"}, "llama3-sft"),
    registry.ALAYA_MOUNT: ({**MOUNT, "read_only": "sometimes"}, f"{MOUNT['storage_id']}:{MOUNT['mount_path']}"),
    registry.MODELARTS_ALGORITHM: ({"name": "resnet", "engine_id": ["3"]}, "resnet"),
    registry.MODELARTS_JOB: ({"name": "mass", "flavor_id": 8}, "mass"),
}
# Per resource: inputs that validate.
VALID: dict[registry.Resource, tuple[dict[str, Any], str]] = {
    registry.ALAYA_JOB: (PLATFORMS["alaya"].job_args(name="llama3-sft"), "llama3-sft"),
    registry.ALAYA_MOUNT: (MOUNT, f"{MOUNT['storage_id']}:{MOUNT['mount_path']}"),
    registry.MODELARTS_JOB: (PLATFORMS["modelarts"].job_args(name="mass"), "mass"),
}


def test_every_resource_has_a_case() -> None:
    assert set(INVALID) == set(registry.RESOURCES)


@pytest.mark.parametrize("entry", registry.RESOURCES, ids=lambda e: e.kind)
def test_inputs_that_do_not_validate_are_named(entry: registry.Resource) -> None:
    props, label = INVALID[entry]
    handler = entry.handler()
    assert handler._label_of({**props, "__mltrain_stack": "st-1"}) == label
    assert handler._label_of({}) in ("", ":"), "nothing given: an empty name, never a failure"


@pytest.mark.parametrize("entry", list(VALID), ids=lambda e: e.kind)
def test_a_validated_spec_is_named_as_its_inputs(entry: registry.Resource) -> None:
    props, label = VALID[entry]
    handler = entry.handler()
    assert handler._label(handler._parse(props)) == handler._label_of(props) == label
