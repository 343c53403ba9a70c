"""The release as a team gets it, for the engine tests of tests/engine/release: a loopback HTTP server
standing in for the GitHub release that schema.json's `pluginDownloadURL` names, the environment of a
machine with nothing of this repository's virtualenvs on PATH, and the package managers pointed at the
release folder alone (pip with --no-index, npm with the tarball, Go through a file:// module proxy)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from tools.release import go_proxy_files, npm_archive, plugin_archive, target
from tools.schema import GO_MODULE, PLUGIN_DOWNLOAD_URL

from .pulumi_cli import BIN, ROOT
from .release import VERSION
from .shared import once

PLUGIN_ARCHIVE = plugin_archive(VERSION, *target())
NPM_ARCHIVE = npm_archive(VERSION)


class ReleaseHost:
    """`dist` served on 127.0.0.1 (a free port) at any path that ends in a file's name: `/<archive>` for
    `pulumi plugin install ... --server URL`, `/v<version>/<archive>` as GitHub's release downloads lay
    it out. `served` lists the paths it answered with a file. Stops (and joins its thread) on exit."""

    def __init__(self, dist: Path) -> None:
        self.dist = dist
        self.served: list[str] = []
        host = self

        class Handler(SimpleHTTPRequestHandler):
            def translate_path(self, path: str) -> str:
                return str(host.dist / Path(path.split("?", 1)[0]).name)

            def send_head(self) -> Any:
                found = super().send_head()
                if found is not None and self.command == "GET":
                    host.served.append(self.path)
                return found

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def overrides(self) -> dict[str, str]:
        """The engine's own switch for plugin downloads (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES, regexp=URL):
        schema.json's GitHub URL, as the SDKs and a YAML program name it, answered by this server instead."""
        release_url = re.escape(PLUGIN_DOWNLOAD_URL)
        return {"PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES": f"^{release_url}$={self.url}/v{VERSION}"}

    def plugin_downloads(self) -> int:
        return sum(1 for path in self.served if path.endswith("/" + PLUGIN_ARCHIVE))

    def __enter__(self) -> ReleaseHost:
        self.thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def clean_path() -> str:
    """PATH with .tools/bin (pulumi and the language hosts, no virtualenv) first and no folder of this
    repository besides: none of its virtualenvs, so no `pulumi-resource-mltrain` console script and no
    interpreter that imports pulumi_mltrain (asserted)."""
    kept = [str(BIN)] + [p for p in os.environ.get("PATH", "").split(os.pathsep)
                         if p and not Path(p).resolve().is_relative_to(ROOT)]
    path = os.pathsep.join(kept)
    assert shutil.which("pulumi-resource-mltrain", path=path) is None
    python = shutil.which("python3", path=path)
    if python:
        probe = subprocess.run([python, "-c", "import pulumi_mltrain"], capture_output=True, text=True, timeout=60,
                               env={"PATH": path}, check=False)
        assert probe.returncode != 0 and "No module named 'pulumi_mltrain'" in probe.stderr, (python, probe.stderr)
    return path


def installed_plugin(home: Path) -> Path:
    """The plugin's folder in the plugin cache of a stack's PULUMI_HOME, as `plugin install` unpacked it."""
    return home / "pulumi-home" / "plugins" / f"resource-mltrain-v{VERSION}"


def wheelhouse(tmp_path_factory: pytest.TempPathFactory, release: Path) -> Path:
    """The third-party wheels the plugin's Python SDK needs, at the locked versions (and pip, setuptools and
    wheel, which the Python host upgrades in a new venv), downloaded once per session: what a company mirror
    holds. Our own distributions come from the release folder alone (`pip_env`)."""
    def make(folder: Path) -> Path:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "-d", folder,
                        "-c", ROOT / "requirements" / "dev.lock", "--only-binary", ":all:",
                        release / f"pulumi_mltrain_native-{VERSION}-py3-none-any.whl", "pip", "setuptools", "wheel"],
                       check=True, timeout=600, capture_output=True)
        for ours in folder.glob("pulumi_mltrain*"):
            ours.unlink()  # pip download copies the requirement itself too
        return folder

    return once(tmp_path_factory, "wheelhouse", make)


def pip_env(release: Path, wheels: Path) -> dict[str, str]:
    """pip with no index at all: the release folder and the wheelhouse (`pip install --no-index --find-links`)."""
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": f"{release} {wheels}"}


def go_env(release: Path) -> dict[str, str]:
    """Go through the release's module proxy first (GOPROXY=file://...), then the usual proxy for the
    Pulumi SDK's own modules. GONOSUMDB: the checksum database knows a module only once it is published,
    so this one is not looked up there (the module's hash still lands in go.sum)."""
    usual = os.environ.get("GOPROXY") or subprocess.run(
        ["go", "env", "GOPROXY"], capture_output=True, text=True, check=False, timeout=60).stdout.strip()
    return {"GOPROXY": f"file://{release / 'goproxy'},{usual or 'https://proxy.golang.org,direct'}",
            "GONOSUMDB": GO_MODULE, "GOFLAGS": "-modcacherw"}


def go_h1(release: Path) -> str:
    """The `h1:` hash go.sum records for the release's module zip (golang.org/x/mod/sumdb/dirhash.Hash1)."""
    archive = release / go_proxy_files(VERSION)[-1]
    with zipfile.ZipFile(archive) as module:
        lines = [f"{hashlib.sha256(module.read(name)).hexdigest()}  {name}\n" for name in sorted(module.namelist())]
    return "h1:" + base64.b64encode(hashlib.sha256("".join(lines).encode()).digest()).decode()


@contextlib.contextmanager
def go_module_forgotten() -> Iterator[None]:
    """Go's module cache without this version of the SDK module, before and after: a release rebuilt under
    the same version must be fetched again, and the cache keeps nothing of a module that is not published."""
    cache = Path(subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True,
                                timeout=60).stdout.strip())

    owner = GO_MODULE.split("/")[:2]  # github.com/mltrain: nothing else lives under it in the cache

    def forget() -> None:
        shutil.rmtree(cache / f"{GO_MODULE}@v{VERSION}", ignore_errors=True)
        downloads = cache / "cache" / "download" / GO_MODULE / "@v"
        for path in [*downloads.glob(f"v{VERSION}.*"), downloads / "list"]:
            path.unlink(missing_ok=True)
        for root in (cache.joinpath(*owner), cache.joinpath("cache", "download", *owner)):  # empty folders
            for folder in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                with contextlib.suppress(OSError):
                    folder.rmdir()
            with contextlib.suppress(OSError):
                root.rmdir()

    forget()
    try:
        yield
    finally:
        forget()
