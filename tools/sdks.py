"""The plugin's TypeScript and Go SDKs (sdk/nodejs, sdk/go), generated from schema.json by the official
Node.js and Go language hosts (`pulumi package gen-sdk schema.json --language nodejs|go`; bootstrap
links them into .tools/bin from ../shared/engine/official), each with its README from scripts/sdkgen/.

The version they carry is schema.json's (`respectSchemaVersion`, and `--version` given explicitly), the
package's own `__version__`, never a placeholder. Like sdk/python, each records the hashes of its inputs
and of the generated files in SDKGEN_INPUTS, so tests/plugin/test_generated_sdk.py tells a stale or
hand-edited SDK without Go or the hosts.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .schema import GO_MODULE

ROOT = Path(__file__).resolve().parents[1]
# The engine (and the official hosts built for it) the SDKs are generated with; the Go SDK requires its SDK.
ENGINE_VERSION = "v3.274.1"
LANGUAGES = ("nodejs", "go")
STAMP = "SDKGEN_INPUTS"
# What git and the language tools leave beside the generated files (never hashed).
NOT_GENERATED = ("__pycache__", ".egg-info", ".mypy_cache", "build", "dist", "node_modules", "bin")


def readme(language: str) -> str:
    """The README template of a language's SDK (path under the repository root)."""
    return f"scripts/sdkgen/README-{language}.md"


def inputs(language: str) -> list[str]:
    """The files an SDK is generated from, hashed into its stamp (the host binary is pinned by the engine
    version it was built for, `pulumi version`, recorded in the stamp's header)."""
    return ["schema.json", readme(language)]


def tree_hash(folder: Path) -> str:
    """sha256 over path NUL content NUL of every generated file, sorted by path (the stamp excluded)."""
    digest = hashlib.sha256()
    files = sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*")
        if p.is_file() and p.name != STAMP and not p.name.endswith(".pyc")
        and not any(part.endswith(NOT_GENERATED) for part in p.relative_to(folder).parts)
    )
    for name in files:
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    return digest.hexdigest()


def stamp_text(root: Path, language: str, out: Path) -> str:
    lines = [f"# sha256 of the inputs sdk/{language} was generated from (python -m tools.generate --sdk), "
             "then of the generated files"]
    for path in inputs(language):
        lines.append(f"{hashlib.sha256((root / path).read_bytes()).hexdigest()}  {path}")
    lines.append(f"{tree_hash(out)}  sdk/{language}")
    return "\n".join(lines) + "\n"


def generate(root: Path, language: str) -> None:
    """Write sdk/<language> (replaced whole) with the official host of that language."""
    bin_dir = root / ".tools" / "bin"
    host = bin_dir / f"pulumi-language-{language}"
    if not host.exists():
        raise SystemExit(f"sdkgen: {host} is missing: put pulumi-language-{language} in ../shared/engine/official "
                         "(or MLTRAIN_OFFICIAL_HOST) and run `bash scripts/bootstrap.sh`")
    version = json.loads((root / "schema.json").read_text())["version"]
    with tempfile.TemporaryDirectory(prefix="mltrain-sdkgen-") as tmp:
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
               "PULUMI_HOME": str(Path(tmp) / "home"), "PULUMI_SKIP_UPDATE_CHECK": "true",
               "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true"}
        subprocess.run([str(bin_dir / "pulumi"), "package", "gen-sdk", str(root / "schema.json"),
                        "--language", language, "--version", version, "--out", str(Path(tmp) / "out")],
                       check=True, env=env, cwd=tmp, stdout=subprocess.DEVNULL)
        out = root / "sdk" / language
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(Path(tmp) / "out" / language, out)
    (out / "README.md").write_text((root / readme(language)).read_text().replace("{version}", version))
    if language == "go":
        # The module the SDK's import paths name (schema.json's language.go.importBasePath is under it).
        (out / "go.mod").write_text(f"module {GO_MODULE}\n\ngo 1.22\n\nrequire (\n"
                                    "\tgithub.com/blang/semver v3.5.1+incompatible\n"
                                    f"\tgithub.com/pulumi/pulumi/sdk/v3 {ENGINE_VERSION}\n)\n")
    (out / STAMP).write_text(stamp_text(root, language, out))
