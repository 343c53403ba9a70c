"""What the release command (`bash scripts/release.sh VERSION`, tools/release.py) writes: every artifact
and nothing else, each as its installer expects it (tests/engine/release installs them through the
engine), the checksums, the workflow that publishes them on a tag, and the version check before anything
is built. The release is the session's one (the `release` fixture)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from support.pulumi_cli import ROOT
from support.release import VERSION
from tools import release as releases
from tools.schema import GO_MODULE, NODEJS_PACKAGE, PLUGIN_DOWNLOAD_URL

pytestmark = pytest.mark.slow  # it waits for the session's release build

WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_the_release_writes_every_artifact_and_their_checksums(release: Path) -> None:
    system, arch = releases.target()
    assert files(release) == releases.artifacts(VERSION)
    assert f"pulumi-resource-mltrain-v{VERSION}-{system}-{arch}.tar.gz" in files(release)
    sums = dict(reversed(line.split("  ", 1)) for line in (release / "SHA256SUMS").read_text().splitlines())
    assert sorted(sums) == [name for name in files(release) if name != "SHA256SUMS"]
    wrong = [name for name, digest in sums.items()
             if hashlib.sha256((release / name).read_bytes()).hexdigest() != digest]
    assert not wrong, wrong


def test_the_plugin_archive_is_an_executable_at_its_root_with_the_schema(release: Path) -> None:
    """The layout `pulumi plugin install` unpacks and runs: ./pulumi-resource-mltrain, executable; no
    PulumiPlugin.yaml (which would make the engine run it as a source plugin through a language host);
    the interpreter and libraries beside it; schema.json as the package's data, byte for byte."""
    archive = release / releases.plugin_archive(VERSION, *releases.target())
    with tarfile.open(archive) as tar:
        members = {m.name: m for m in tar.getmembers()}
        executable = members["pulumi-resource-mltrain"]
        assert executable.isfile() and executable.mode & stat.S_IXUSR
        assert "PulumiPlugin.yaml" not in members and "LICENSE" in members
        assert {m.uid for m in members.values()} == {0} and len({m.mtime for m in members.values()}) == 1
        schema = tar.extractfile(members["_internal/pulumi_mltrain/schema.json"])
        assert schema is not None and schema.read() == (ROOT / "schema.json").read_bytes()
        libraries = [name for name in members if name.startswith("_internal/libpython3")]
        assert libraries, "the interpreter comes along"
        assert any(name.startswith("_internal/grpc/") for name in members)
        assert any(name.startswith("_internal/pydantic_core/") for name in members)
        assert not any(name.startswith("_internal/setuptools") for name in members)


def test_the_python_distributions_carry_the_version_and_the_license(release: Path) -> None:
    for dist in ("pulumi_mltrain", "mltrain_emulator", "pulumi_mltrain_native"):
        with zipfile.ZipFile(release / f"{dist}-{VERSION}-py3-none-any.whl") as wheel:
            [metadata] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
            assert f"\nVersion: {VERSION}\n" in wheel.read(metadata).decode(), dist
        with tarfile.open(release / f"{dist}-{VERSION}.tar.gz") as sdist:
            assert f"{dist}-{VERSION}/PKG-INFO" in sdist.getnames(), dist
    with zipfile.ZipFile(release / f"pulumi_mltrain-{VERSION}-py3-none-any.whl") as wheel:
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel.namelist())
        assert wheel.read("pulumi_mltrain/schema.json") == (ROOT / "schema.json").read_bytes()


def test_the_npm_package_names_the_release_it_fetches_its_plugin_from(release: Path) -> None:
    with tarfile.open(release / releases.npm_archive(VERSION)) as tar:
        names = tar.getnames()
        manifest = tar.extractfile("package/package.json")
        assert manifest is not None
        package = json.loads(manifest.read())
    assert package["name"] == NODEJS_PACKAGE and package["version"] == VERSION
    assert package["pulumi"] == {"resource": True, "name": "mltrain", "version": VERSION, "server": PLUGIN_DOWNLOAD_URL}
    assert {"package/index.js", "package/index.d.ts", "package/LICENSE", "package/README.md"} <= set(names)
    assert not any(name.endswith(".ts") and not name.endswith(".d.ts") for name in names), "compiled, not sources"


def test_the_go_module_is_served_from_a_module_proxy_layout(release: Path) -> None:
    """`GOPROXY=file://<release>/goproxy` serves GO_MODULE at v<version>: the list, the info, go.mod and
    the zip, whose files sit under `<module>@v<version>/` as sdk/go holds them."""
    listing, info, mod, archive = (release / name for name in releases.go_proxy_files(VERSION))
    assert listing.read_text() == f"v{VERSION}\n"
    assert json.loads(info.read_text())["Version"] == f"v{VERSION}"
    assert mod.read_text() == (ROOT / "sdk" / "go" / "go.mod").read_text()
    with zipfile.ZipFile(archive) as module:
        names = module.namelist()
        prefix = f"{GO_MODULE}@v{VERSION}/"
        assert all(name.startswith(prefix) for name in names), names[:5]
        inside = {name.removeprefix(prefix) for name in names}
        sdk = ROOT / "sdk" / "go"
        assert inside == {p.relative_to(sdk).as_posix() for p in sdk.rglob("*") if p.is_file()}
        plugin = json.loads(module.read(prefix + "mltrain/pulumi-plugin.json"))
    assert plugin["server"] == PLUGIN_DOWNLOAD_URL and plugin["version"] == VERSION


def test_the_workflow_runs_the_release_command_on_a_version_tag_and_publishes_what_it_wrote() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert workflow[True]["push"]["tags"] == ["v*"]  # YAML reads the key `on` as true
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    runs = "\n".join(str(step.get("run", "")) for step in steps)
    assert 'bash scripts/release.sh "$VERSION"' in runs
    assert "--plugin-only" in runs  # the other platforms' plugin archives
    uses = {str(step.get("uses", "")).split("@")[0] for step in steps}
    assert {"pypa/gh-action-pypi-publish", "actions/upload-artifact", "actions/download-artifact"} <= uses
    assert "npm publish" in runs and "gh release create" in runs and 'git tag "sdk/go/$GITHUB_REF_NAME"' in runs


def test_a_version_the_project_does_not_carry_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not the project's everywhere"):
        releases.release("9.9.9", tmp_path / "dist")
    assert not (tmp_path / "dist").exists()
    assert set(releases.carried_versions(ROOT).values()) == {VERSION}


def test_an_archive_is_reproducible(tmp_path: Path) -> None:
    """Two archives of one folder are the same bytes: sorted entries, fixed owner, times and gzip header."""
    folder = tmp_path / "plugin"
    (folder / "_internal").mkdir(parents=True)
    (folder / "pulumi-resource-mltrain").write_text("#!/bin/sh\n")
    os.chmod(folder / "pulumi-resource-mltrain", 0o755)
    (folder / "_internal" / "data").write_text("x")
    license_file = ROOT / "LICENSE"
    first, second = tmp_path / "a.tar.gz", tmp_path / "b.tar.gz"
    releases.write_archive(folder, first, 1_700_000_000, license_file)
    os.utime(folder / "_internal" / "data", (0, 0))
    releases.write_archive(folder, second, 1_700_000_000, license_file)
    assert first.read_bytes() == second.read_bytes()
    with tarfile.open(fileobj=io.BytesIO(first.read_bytes())) as tar:
        assert tar.getnames() == ["_internal", "_internal/data", "pulumi-resource-mltrain", "LICENSE"]
