"""The typed Python SDK generated from schema.json by Pulumi's codegen (sdk/python, package
pulumi_mltrain_native): in sync with its inputs, and driving the native plugin through the engine."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from support.pulumi_cli import ROOT
from tools import sdks
from tools.generate import COMMAND
from tools.schema import GO_MODULE, NODEJS_PACKAGE, PLUGIN_DOWNLOAD_URL

SDK = ROOT / "sdk" / "python"
STAMP = SDK / "SDKGEN_INPUTS"
# What git and the editable install leave beside the generated files (the SDK's own .gitignore).
NOT_GENERATED = ("__pycache__", ".egg-info", ".mypy_cache", "build", "dist")


def _tree_hash(folder: Path) -> str:
    """The generator's hash of its output: path NUL content NUL for every file, sorted by path."""
    digest = hashlib.sha256()
    files = sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*")
        if p.is_file() and p != STAMP and not p.name.endswith(".pyc")
        and not any(part.endswith(NOT_GENERATED) for part in p.relative_to(folder).parts)
    )
    for name in files:
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    return digest.hexdigest()


def test_sdk_is_generated_from_the_current_schema_and_generator() -> None:
    """No Go needed: the generator recorded the hashes of schema.json, its own sources and its output."""
    recorded = [line.split("  ", 1) for line in STAMP.read_text().splitlines() if not line.startswith("#")]
    paths = [path for _, path in recorded]
    assert paths == ["schema.json", "scripts/sdkgen/main.go", "scripts/sdkgen/go.mod", "scripts/sdkgen/go.sum",
                     "sdk/python"], paths
    stale = [path for digest, path in recorded[:-1] if hashlib.sha256((ROOT / path).read_bytes()).hexdigest() != digest]
    assert not stale, f"sdk/python is stale against {stale}: run `{COMMAND} --sdk` and commit sdk/python"
    assert _tree_hash(SDK) == recorded[-1][0], (
        f"sdk/python differs from what the generator wrote (edited by hand?): run `{COMMAND} --sdk`"
    )


def test_sdk_declares_the_mltrain_plugin_and_every_schema_token() -> None:
    plugin = json.loads((SDK / "pulumi_mltrain_native" / "pulumi-plugin.json").read_text())
    schema = json.loads((ROOT / "schema.json").read_text())
    # One package name: the SDK's, and the one the code `pulumi import` writes imports (schema.json's).
    assert schema["language"]["python"]["packageName"] == "pulumi_mltrain_native"
    assert 'name = "pulumi_mltrain_native"' in (SDK / "pyproject.toml").read_text()
    assert plugin == {"resource": True, "name": "mltrain", "version": schema["version"], "server": PLUGIN_DOWNLOAD_URL}
    generated = "".join(p.read_text() for p in (SDK / "pulumi_mltrain_native").rglob("*.py"))
    missing = [token for token in [*schema["resources"], *schema["functions"]] if f"'{token}'" not in generated]
    assert not missing, missing


@pytest.mark.parametrize("language", sdks.LANGUAGES)
def test_nodejs_and_go_sdks_are_generated_from_the_current_schema(language: str) -> None:
    """sdk/nodejs and sdk/go: their stamps name the current schema.json and README template, and the
    files are the ones the official host wrote (no Go or Node.js needed to tell)."""
    folder = ROOT / "sdk" / language
    recorded = [line.split("  ", 1) for line in (folder / sdks.STAMP).read_text().splitlines()
                if not line.startswith("#")]
    assert [path for _, path in recorded] == [*sdks.inputs(language), f"sdk/{language}"], recorded
    stale = [path for digest, path in recorded[:-1] if hashlib.sha256((ROOT / path).read_bytes()).hexdigest() != digest]
    assert not stale, f"sdk/{language} is stale against {stale}: run `{COMMAND} --sdk` and commit sdk/{language}"
    assert sdks.tree_hash(folder) == recorded[-1][0], (
        f"sdk/{language} differs from what the generator wrote (edited by hand?): run `{COMMAND} --sdk`")


@pytest.mark.parametrize("language", ["python", *sdks.LANGUAGES])
def test_every_sdk_carries_the_real_version_names_and_only_the_plugin(language: str) -> None:
    """The version the package ships (schema.json's), never a placeholder; every resource and function;
    camelCase property names on the wire; no word of the dynamic form's `pulumi-python:dynamic` tokens;
    a README."""
    schema = json.loads((ROOT / "schema.json").read_text())
    version = schema["version"]
    folder = ROOT / "sdk" / language
    texts = {p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*")
             if p.is_file() and p.suffix in (".ts", ".go", ".py", ".json", ".mod", ".md", ".toml")
             and not any(part.endswith(sdks.NOT_GENERATED) for part in p.relative_to(folder).parts)}
    generated = "".join(texts.values())
    assert "${VERSION}" not in generated
    # The plugin's download URL, this version's GitHub release.
    assert schema["pluginDownloadURL"] == PLUGIN_DOWNLOAD_URL and PLUGIN_DOWNLOAD_URL in generated
    assert PLUGIN_DOWNLOAD_URL.endswith(f"/releases/download/v{version}")
    assert "pulumi-python" not in generated, "the plugin's SDKs document the plugin's type tokens only"
    readme = next(text for name, text in texts.items() if name.endswith("README.md"))
    assert readme.strip()
    missing = [token for token in [*schema["resources"], *schema["functions"]] if f'"{token}"' not in generated
               and f"'{token}'" not in generated]
    assert not missing, missing
    assert '"productCode"' in generated and '"workerCount"' in generated
    if language == "nodejs":
        package = json.loads(texts["package.json"])
        assert package["name"] == NODEJS_PACKAGE and package["version"] == version
        assert package["pulumi"] == {"resource": True, "name": "mltrain", "version": version,
                                     "server": PLUGIN_DOWNLOAD_URL}
        assert f"version {version}" in readme
    elif language == "go":
        assert texts["go.mod"].startswith(f"module {GO_MODULE}\n")
        assert json.loads(texts["mltrain/pulumi-plugin.json"]) == {"resource": True, "name": "mltrain",
                                                                   "version": version, "server": PLUGIN_DOWNLOAD_URL}
        assert f'semver.MustParse("{version}")' in texts["mltrain/internal/pulumiUtilities.go"]
        assert f"{GO_MODULE}/mltrain/alaya" in readme and f"version {version}" in readme
    else:
        plugin = json.loads(texts["pulumi_mltrain_native/pulumi-plugin.json"])
        assert plugin["version"] == version
