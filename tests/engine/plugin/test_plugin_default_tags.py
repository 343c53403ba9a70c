"""`mltrain:defaultTags` through the engine: a stack with default tags and a ModelArts algorithm and job
in the dynamic (`dyn-*`) and the plugin (`plug-*`) form. `up` puts the defaults on the platform's tags of
every one of them (the resource's own winning on the same key), the exported `tags` hold the merged map,
and destroy leaves nothing. The rest (that the next preview is quiet, a change of the defaults in place,
drift, the limit of 20) is tests/inprocess/test_default_tags.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_support import on_path

from mltrain_emulator import defaults as d
from support import stacks

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAM = Path(__file__).parent / "programs" / "default_tags"
DEFAULTS = {"team": "ml", "cost-center": "cc-7"}
ALGORITHM = {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py", "engine_name": d.ENGINE_PYTORCH[0],
             "engine_version": d.ENGINE_PYTORCH[1], "tags": {"team": "algorithms"}}
JOB = {"flavor_id": d.FLAVOR_CPU_8U, "tags": {"run": "r7"}}


def _tags(items: Any) -> dict[str, str]:
    return {t["key"]: t["value"] for t in items or [] if t["key"] not in ("mltrain-owner-stack", "mltrain-owner-urn")}


def test_default_tags_reach_every_modelarts_job_and_algorithm(emulator: Any, tmp_path: Path) -> None:
    emulator.admin.set_settings(modelarts_phase_delay=0.1, modelarts_run_seconds=0.3, delete_delay=0.1)
    stack = on_path(stacks.both_platforms_stack(emulator, tmp_path, PROGRAM))
    stack.set_config_all({"mltrain:defaultTags": json.dumps(DEFAULTS), "algorithm": json.dumps(ALGORITHM),
                          "job": json.dumps(JOB)})

    stack.up()
    state = emulator.admin.state()["modelarts"]
    algorithms = [_tags(a["metadata"].get("tags")) for a in state["algorithms"]]
    jobs = [_tags(j["tags"]) for j in state["jobs"] if not j["deleting"]]
    assert algorithms == [{"team": "algorithms", "cost-center": "cc-7"}] * 2, state["algorithms"]
    assert jobs == [{**DEFAULTS, "run": "r7"}] * 2, state["jobs"]
    outputs = stack.outputs()
    assert outputs["dyn-algo"] == outputs["plug-algo"] == {"team": "algorithms", "cost-center": "cc-7"}, outputs
    assert outputs["dyn-job"] == outputs["plug-job"] == {**DEFAULTS, "run": "r7"}, outputs

    stack.destroy()
    state = emulator.admin.state()["modelarts"]
    assert state["algorithms"] == [] and [j for j in state["jobs"] if not j["deleting"]] == []
