"""The policy pack from the installed distribution: a fresh venv outside the repository with
`pulumi-mltrain[policy]` (the wheel; the `installed_venv` fixture, shared with test_install_elsewhere.py),
a pack folder written by `mltrain-policy-pack`, and `pulumi preview --policy-pack` on a violating
program against the emulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import stacks
from support.packaging import run, use_venv
from support.pulumi_cli import ROOT

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROGRAM = Path(__file__).parent / "programs" / "violating"


def test_pack_written_into_an_infra_repo_reports_violations_and_rejects_unknown_keys(
        installed_venv: Path, tmp_path: Path, emulator: Any) -> None:
    venv = installed_venv
    pack = tmp_path / "infra-repo" / "policy"
    written = run(venv / "bin" / "mltrain-policy-pack", pack)
    assert sorted(p.name for p in pack.iterdir()) == ["PulumiPolicy.yaml", "__main__.py", "requirements.txt"], written
    manifest = yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())
    assert manifest["runtime"]["name"] == "python"
    assert (pack / manifest["runtime"]["options"]["virtualenv"]).resolve() == venv.resolve()
    assert "pulumi-mltrain[policy]" in (pack / "requirements.txt").read_text()
    assert not pack.resolve().is_relative_to(ROOT)

    stack = stacks.alaya_stack(emulator, tmp_path / "home", PROGRAM)
    use_venv(stack, venv)
    result = stack.preview("--policy-pack", str(pack), check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "allowed-image-registries" in output and "max-nodes-per-job" in output, output
    assert "alaya:TrainingJob 'rogue': worker_count = 64 exceeds the maximum of 16 nodes" in output, output
    assert emulator.admin.state()["alaya"]["tasks"] in ({}, [])  # a preview creates nothing

    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"max-nodes-per-job": {"maxNode": 64}}))
    result = stack.preview("--policy-pack", str(pack), "--policy-pack-config", str(config), check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "unknown config key 'maxNode' for policy 'max-nodes-per-job'; known keys: maxNodes" in output, output
