"""`mltrain-runs abandoned` names a stack without a project (`pulumi stack ls` of a self-managed backend
in the project folder) by the folder's Pulumi.yaml, read with PyYAML (a runtime dependency whose floor
requirements/lowest.txt tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pulumi_mltrain.cli import abandoned


def test_the_project_is_the_name_in_pulumi_yaml(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text(
        '# the sweep\nname: "sweep-infra"  # quoted, with a comment\nruntime:\n  name: python\n'
        "description: >\n  name: not this one\n", encoding="utf-8")
    assert abandoned._project_of(None, str(tmp_path)) == "sweep-infra"


def test_pulumi_yml_too_and_none_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yml").write_text("name: other\nruntime: python\n", encoding="utf-8")
    assert abandoned._project_of(None, str(tmp_path)) == "other"
    (tmp_path / "Pulumi.yml").unlink()
    with pytest.raises(abandoned.BackendError, match=r"no Pulumi\.yaml is here"):
        abandoned._project_of(None, str(tmp_path))
