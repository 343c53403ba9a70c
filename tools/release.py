"""The release: every artifact of one version, built from the source tree into one folder (`dist/`).

    bash scripts/release.sh 0.2.0                 # everything, into dist/
    bash scripts/release.sh 0.2.0 --out DIR       # into DIR
    .venv/bin/python -m tools.release 0.2.0 --plugin-only --out DIR    # this platform's plugin archive only
    .venv/bin/python -m tools.release --checksums DIR                   # rewrite DIR/SHA256SUMS

What it writes (`artifacts` lists the names; tests/unit/packaging/test_release.py checks them):

- the Python distributions, wheel and sdist each: `pulumi-mltrain` (the dynamic resources, the policy pack
  and the plugin's console script), `mltrain-emulator` and `pulumi_mltrain_native` (the plugin's Python SDK);
- the plugin, `pulumi-resource-mltrain-v<version>-<os>-<arch>.tar.gz`: the layout `pulumi plugin install`
  downloads from schema.json's `pluginDownloadURL`, an executable at the archive's root that needs no
  Python on the user's machine (a PyInstaller one-folder build of `pulumi_mltrain.plugin:main`, with the
  interpreter and the libraries it imports beside it in `_internal/`); built for the platform this runs
  on, the other platforms by the release workflow's runners (`--plugin-only`);
- the npm package of the TypeScript SDK, `mltrain-pulumi-mltrain-<version>.tgz` (`npm pack`);
- the Go SDK as the module `github.com/mltrain/pulumi-mltrain/sdk/go` at `v<version>`, in the layout of a
  Go module proxy (`goproxy/<module>/@v/`: `list`, `.info`, `.mod`, `.zip`), which `GOPROXY=file://...`
  serves; on GitHub the same module is the tag `sdk/go/v<version>`;
- `SHA256SUMS` of all of them (`sha256sum -c` reads it).

The version is the project's: every place that carries it must already say it (`python -m tools.generate
--sdk` writes the SDKs from schema.json's), else nothing is built. The sources are the working tree's
files that git tracks or would track (a copy, so the build leaves nothing in the tree). The plugin's
frozen build (about 25 s) is cached by the hash of what goes into it, under
~/.cache/pulumi-mltrain/plugin (MLTRAIN_RELEASE_CACHE), as the engine build is.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

from .schema import GO_MODULE, NODEJS_PACKAGE

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "pulumi-resource-mltrain"
CACHE = Path(os.environ.get("MLTRAIN_RELEASE_CACHE", Path.home() / ".cache" / "pulumi-mltrain" / "plugin"))
KEEP_CACHED = 4  # frozen builds kept in the cache (the newest)
# What the frozen plugin leaves out: build tools that PyInstaller's hooks would drag in (setuptools alone
# cost 0.15 s of every start through its runtime hook) and standard modules the plugin never imports.
EXCLUDED_MODULES = ("setuptools", "pkg_resources", "_distutils_hack", "distutils", "sqlite3", "tkinter",
                    "readline", "pydoc", "lib2to3", "unittest", "test")
CHECKSUMS = "SHA256SUMS"


def log(message: str) -> None:
    print(f"release: {message}", file=sys.stderr, flush=True)


# ----- names -------------------------------------------------------------------------------------------
def target() -> tuple[str, str]:
    """(os, arch) of this machine in Pulumi's plugin names (linux, darwin, windows; amd64, arm64)."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform)
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    if system is None or arch is None:
        raise SystemExit(f"release: no Pulumi plugin name for {sys.platform}/{platform.machine()}")
    return system, arch


def plugin_archive(version: str, system: str, arch: str) -> str:
    """The archive name `pulumi plugin install` asks a server for (sdk/go/common/workspace/plugins.go)."""
    return f"{PLUGIN}-v{version}-{system}-{arch}.tar.gz"


def npm_archive(version: str) -> str:
    """`npm pack`'s name for the scoped package (@mltrain/pulumi-mltrain -> mltrain-pulumi-mltrain)."""
    return f"{NODEJS_PACKAGE.lstrip('@').replace('/', '-')}-{version}.tgz"


def go_proxy_files(version: str) -> list[str]:
    folder = f"goproxy/{escape_module(GO_MODULE)}/@v"
    return [f"{folder}/list", *(f"{folder}/v{version}.{ext}" for ext in ("info", "mod", "zip"))]


def artifacts(version: str, platforms: list[tuple[str, str]] | None = None) -> list[str]:
    """Every file a release of `version` writes, sorted, for the plugin `platforms` (default: this one)."""
    names = [f"{dist}-{version}{suffix}" for dist in ("pulumi_mltrain", "mltrain_emulator", "pulumi_mltrain_native")
             for suffix in ("-py3-none-any.whl", ".tar.gz")]
    names += [plugin_archive(version, *p) for p in (platforms or [target()])]
    names += [npm_archive(version), *go_proxy_files(version), CHECKSUMS]
    return sorted(names)


def escape_module(path: str) -> str:
    """A module path as the proxy protocol spells it on disk (`!` before each upper-case letter)."""
    return re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), path)


# ----- the version -------------------------------------------------------------------------------------
def carried_versions(root: Path) -> dict[str, str]:
    """Every place the release's version is written, and what it says there."""
    def toml_version(path: str) -> str:
        return str(tomllib.loads((root / path).read_text())["project"]["version"])

    init = (root / "provider" / "pulumi_mltrain" / "__init__.py").read_text()
    found = re.search(r'^__version__ = "([^"]+)"', init, re.M)
    return {
        "pyproject.toml": toml_version("pyproject.toml"),
        "emulator/pyproject.toml": toml_version("emulator/pyproject.toml"),
        "sdk/python/pyproject.toml": toml_version("sdk/python/pyproject.toml"),
        "provider/pulumi_mltrain/__init__.py": found.group(1) if found else "(none)",
        "schema.json": str(json.loads((root / "schema.json").read_text())["version"]),
        "sdk/nodejs/package.json": str(json.loads((root / "sdk/nodejs/package.json").read_text())["version"]),
        "sdk/go/mltrain/pulumi-plugin.json":
            str(json.loads((root / "sdk/go/mltrain/pulumi-plugin.json").read_text())["version"]),
    }


def check_version(root: Path, version: str) -> None:
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise SystemExit(f"release: {version!r} is not a version (MAJOR.MINOR.PATCH, e.g. 0.2.0)")
    wrong = {path: found for path, found in carried_versions(root).items() if found != version}
    if wrong:
        listed = ", ".join(f"{path} says {found}" for path, found in wrong.items())
        raise SystemExit(f"release: version {version} is not the project's everywhere ({listed}); set it in "
                         "pyproject.toml, emulator/pyproject.toml and pulumi_mltrain.__version__, run "
                         "`.venv/bin/python -m tools.generate --sdk`, commit, then release")


# ----- helpers -----------------------------------------------------------------------------------------
def run(*argv: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 1200) -> str:
    result = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout, check=False)
    if result.returncode != 0:
        raise SystemExit(f"release: {' '.join(map(str, argv))} exited {result.returncode}:\n"
                         f"{(result.stdout + result.stderr)[-6000:]}")
    return result.stdout


def venv_bin(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if sys.platform == "win32" else "bin") / (f"{name}.exe" if sys.platform == "win32"
                                                                       else name)


def tool(name: str) -> str:
    """`name` beside this interpreter (the project's .venv: uv, from requirements/dev.lock), else on PATH."""
    beside = Path(sys.executable).parent / (f"{name}.exe" if sys.platform == "win32" else name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"release: `{name}` not found (run `bash scripts/bootstrap.sh`)")
    return found


def sources(root: Path) -> list[str]:
    """The files of the tree that git tracks or would track (untracked but not ignored), that exist."""
    if not (root / ".git").exists():
        raise SystemExit(f"release: {root} is not a git checkout; the release builds from one")
    listed = run("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    return sorted({name for name in listed if name and (root / name).is_file()})


def stage(root: Path, into: Path) -> Path:
    """A copy of the source tree's files (`sources`), so that builds write nothing into the tree."""
    for name in sources(root):
        target_path = into / name
        target_path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target_path)
    return into


def tree_digest(folder: Path, names: list[str]) -> str:
    digest = hashlib.sha256()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    return digest.hexdigest()


def source_date(root: Path) -> int:
    """SOURCE_DATE_EPOCH, else the time of the checkout's last commit: the date the artifacts carry."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"], capture_output=True, text=True,
                         check=False).stdout.strip()
    return int(out) if out.isdigit() else int(time.time())


# ----- Python distributions ----------------------------------------------------------------------------
def python_distributions(src: Path, out: Path) -> None:
    """Wheel and sdist of each Python project (uv build: the sdist, then the wheel from it, in isolation)."""
    for project in (src, src / "emulator", src / "sdk" / "python"):
        run(tool("uv"), "build", "--quiet", "--no-create-gitignore", "--sdist", "--wheel", "--out-dir", out, project)


# ----- the plugin --------------------------------------------------------------------------------------
ENTRY = "from pulumi_mltrain.plugin import main\n\nmain()\n"


def pyinstaller_args(entry: Path, work: Path, dist: Path) -> list[str]:
    """One folder (`--onedir`): the executable and `_internal/` beside it, nothing unpacked at start.
    `--debug noarchive`: the modules as .pyc files in `_internal/` rather than in one compressed archive,
    which PyInstaller's own importer reads module by module in Python: the handshake came 0.35 s after the
    start against 0.31 for the console script, and 0.30 so (docs/development.md), for a folder of 62 MB
    instead of 49 and an archive of the same size (23 MB). `--collect-submodules`: the package imports its
    platforms by name (importlib), which PyInstaller's import analysis cannot see; `--collect-data`:
    schema.json (GetSchema) and pulumi-plugin.json; `--copy-metadata`: the plugin checks the pulumi SDK's
    version at start, and reports its own."""
    args = ["--noconfirm", "--log-level", "WARN", "--onedir", "--debug", "noarchive", "--name", PLUGIN,
            "--distpath", str(dist),
            "--workpath", str(work), "--specpath", str(work), "--collect-submodules", "pulumi_mltrain",
            "--collect-data", "pulumi_mltrain", "--copy-metadata", "pulumi", "--copy-metadata", "pulumi-mltrain"]
    for module in EXCLUDED_MODULES:
        args += ["--exclude-module", module]
    if sys.platform != "win32":
        args.append("--strip")  # the shared libraries' symbols: 26 MB less unpacked, the same start-up
    return [*args, str(entry)]


def plugin_key(src: Path, version: str, system: str, arch: str) -> str:
    """The hash of what the frozen build is made of: the provider's sources, the project's metadata, the
    lock (every library's version), this module (the build's options), the interpreter and platform."""
    names = [n for n in sources_of(src) if n.startswith("provider/") or n in (
        "pyproject.toml", "README.md", "LICENSE", "requirements/dev.lock", "tools/release.py")]
    identity = f"{version} {system} {arch} {sys.version} {platform.platform()}"
    return hashlib.sha256((tree_digest(src, names) + identity).encode()).hexdigest()[:16]


def sources_of(src: Path) -> list[str]:
    return sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file())


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` while the block runs (two releases on one machine share the cache);
    none where fcntl is missing (Windows: a workflow runner runs one release)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        try:
            import fcntl
        except ImportError:
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def frozen_plugin(src: Path, wheel: Path, out: Path, version: str, work: Path) -> Path:
    """The plugin archive for this platform in `out`: from the cache when its key is there, else built."""
    system, arch = target()
    name = plugin_archive(version, system, arch)
    key = plugin_key(src, version, system, arch)
    cached = CACHE / key / name
    with locked(CACHE / "build.lock"):
        if cached.exists():
            log(f"plugin {name} from the cache ({cached.parent})")
        else:
            started = time.monotonic()
            folder = build_frozen(src, wheel, work)
            check_frozen(folder / (PLUGIN + (".exe" if system == "windows" else "")))
            stage_dir = Path(tempfile.mkdtemp(prefix="tmp-", dir=CACHE))
            try:
                write_archive(folder, stage_dir / name, source_date(ROOT), src / "LICENSE")
                shutil.rmtree(cached.parent, ignore_errors=True)
                stage_dir.rename(cached.parent)
            finally:
                shutil.rmtree(stage_dir, ignore_errors=True)
            size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
            log(f"plugin {name} built in {time.monotonic() - started:.0f} s: {size / 1e6:.0f} MB unpacked, "
                f"{cached.stat().st_size / 1e6:.0f} MB archived (cached in {cached.parent})")
            prune(CACHE, keep=KEEP_CACHED)
    shutil.copy2(cached, out / name)
    return out / name


def build_frozen(src: Path, wheel: Path, work: Path) -> Path:
    """PyInstaller in a fresh venv holding the wheel and its runtime dependencies at the locked versions
    (nothing of the development tools gets into the build), PyInstaller's own version from the lock too."""
    venv = work / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv_bin(venv, "python")
    run(tool("uv"), "pip", "install", "--quiet", "--python", python, "-c", src / "requirements" / "dev.lock",
        wheel, "pyinstaller")
    entry = work / "entry.py"
    entry.write_text(ENTRY)
    run(python, "-m", "PyInstaller", *pyinstaller_args(entry, work / "build", work / "dist"), cwd=work)
    return work / "dist" / PLUGIN


def check_frozen(executable: Path) -> None:
    """The build starts, imports everything up to its check of the pulumi SDK, and asks for the engine's
    address (the engine always gives one): proof that the interpreter and the libraries came along."""
    result = subprocess.run([str(executable)], capture_output=True, text=True, timeout=120, check=False)
    if result.returncode == 0 or "ENGINE_ADDRESS" not in result.stderr:
        raise SystemExit(f"release: the frozen plugin {executable} did not start as it should "
                         f"(exit {result.returncode}):\n{(result.stdout + result.stderr)[-4000:]}")


def write_archive(folder: Path, archive: Path, mtime: int, license_file: Path) -> None:
    """A tar.gz of `folder`'s contents at the archive's root (the engine runs ./pulumi-resource-mltrain
    from the folder it unpacks into), plus LICENSE; reproducible: sorted entries, fixed owner and times."""
    def entry(path: Path, name: str) -> tarfile.TarInfo:
        info = tarfile.TarInfo(name)
        stat = path.lstat()
        info.mtime, info.uid, info.gid, info.uname, info.gname = mtime, 0, 0, "", ""
        if path.is_symlink():
            info.type, info.linkname = tarfile.SYMTYPE, os.readlink(path)
        elif path.is_dir():
            info.type, info.mode = tarfile.DIRTYPE, 0o755
        else:
            info.size, info.mode = stat.st_size, 0o755 if stat.st_mode & 0o111 else 0o644
        return info

    # No name and no time in the gzip header either (GzipFile would write the file's name).
    with archive.open("wb") as raw, \
            gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0, compresslevel=9) as packed, \
            tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(folder.rglob("*")):
            name = path.relative_to(folder).as_posix()
            info = entry(path, name)
            if info.isfile():
                with path.open("rb") as data:
                    tar.addfile(info, data)
            else:
                tar.addfile(info)
        with license_file.open("rb") as data:
            tar.addfile(entry(license_file, "LICENSE"), data)


def prune(cache: Path, keep: int) -> None:
    """All but the `keep` newest builds in the cache (each is about 25 MB)."""
    builds = sorted((p for p in cache.iterdir() if p.is_dir() and not p.name.startswith("tmp-")),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in builds[keep:]:
        shutil.rmtree(old, ignore_errors=True)


# ----- npm ---------------------------------------------------------------------------------------------
def npm_package(src: Path, out: Path, version: str, work: Path) -> Path:
    """The TypeScript SDK compiled (scripts/build-nodejs-sdk.sh, cached by its sources), with LICENSE,
    packed by `npm pack` as `npm publish` would upload it."""
    built = Path(run("bash", src / "scripts" / "build-nodejs-sdk.sh", cwd=src).strip().splitlines()[-1])
    package = work / "npm" / "package"
    shutil.copytree(built, package)
    shutil.copy2(src / "LICENSE", package / "LICENSE")
    manifest = json.loads((package / "package.json").read_text())
    if manifest.get("version") != version:
        raise SystemExit(f"release: the npm package says {manifest.get('version')}, not {version}")
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false"}
    run("npm", "pack", "--silent", "--pack-destination", out, cwd=package, env=env)
    return out / npm_archive(version)


# ----- Go ----------------------------------------------------------------------------------------------
def go_module(src: Path, out: Path, version: str, mtime: int) -> None:
    """sdk/go as the module GO_MODULE at v<version>, in a Go module proxy's layout: what `go` fetches
    from proxy.golang.org once the tag sdk/go/v<version> is pushed, and from `GOPROXY=file://<out>/goproxy`
    before. The zip follows golang.org/x/mod/zip: every file under `<module>@<version>/`, none of a nested
    module, of a vendor folder or of version control."""
    folder = src / "sdk" / "go"
    module = (folder / "go.mod").read_text()
    if not module.startswith(f"module {GO_MODULE}\n"):
        raise SystemExit(f"release: sdk/go/go.mod does not declare {GO_MODULE}")
    files = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if not path.is_file() or any(part in (".git", ".hg", ".svn", ".bzr", "vendor") for part in rel.parts):
            continue
        if any((folder / Path(*rel.parts[:i]) / "go.mod").exists() for i in range(1, len(rel.parts))):
            continue  # a nested module is a module of its own
        files.append(rel.as_posix())
    proxy = out / "goproxy" / escape_module(GO_MODULE) / "@v"
    proxy.mkdir(parents=True)
    tag = f"v{version}"
    (proxy / "list").write_text(f"{tag}\n")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime))
    (proxy / f"{tag}.info").write_text(json.dumps({"Version": tag, "Time": stamp}) + "\n")
    (proxy / f"{tag}.mod").write_text(module)
    with zipfile.ZipFile(proxy / f"{tag}.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for name in files:
            info = zipfile.ZipInfo(f"{GO_MODULE}@{tag}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, (folder / name).read_bytes())


# ----- checksums ---------------------------------------------------------------------------------------
def write_checksums(out: Path) -> Path:
    """SHA256SUMS of every file in `out` (paths relative to it), in `sha256sum`'s format."""
    lines = []
    for path in sorted(p for p in out.rglob("*") if p.is_file() and p.name != CHECKSUMS):
        lines.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(out).as_posix()}")
    (out / CHECKSUMS).write_text("\n".join(lines) + "\n")
    return out / CHECKSUMS


# ----- the command -------------------------------------------------------------------------------------
def release(version: str, out: Path, plugin_only: bool = False) -> list[Path]:
    check_version(ROOT, version)
    if not plugin_only:  # a workflow job's --plugin-only adds its platform's archive beside the others
        clear(out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mltrain-release-") as tmp:
        work = Path(tmp)
        src = stage(ROOT, work / "src")
        mtime = source_date(ROOT)
        if plugin_only:
            wheels = work / "wheels"
            run(tool("uv"), "build", "--quiet", "--no-create-gitignore", "--wheel", "--out-dir", wheels, src)
            [wheel] = wheels.glob("pulumi_mltrain-*.whl")
            frozen_plugin(src, wheel, out, version, work / "plugin")
            return sorted(out.iterdir())
        python_distributions(src, out)
        log(f"Python distributions built ({time.monotonic() - started:.0f} s)")
        frozen_plugin(src, out / f"pulumi_mltrain-{version}-py3-none-any.whl", out, version, work / "plugin")
        npm_package(src, out, version, work)
        go_module(src, out, version, mtime)
        write_checksums(out)
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    expected = artifacts(version)
    if written != expected:
        raise SystemExit(f"release: {out} holds {written}, expected {expected}")
    for name in written:
        log(f"{(out / name).stat().st_size / 1e6:8.2f} MB  {name}")
    log(f"{version} written to {out} in {time.monotonic() - started:.0f} s")
    return [out / name for name in written]


RELEASED = re.compile(r"(pulumi_mltrain|mltrain_emulator|pulumi_mltrain_native)-.*|pulumi-resource-mltrain-v.*"
                      r"|mltrain-pulumi-mltrain-.*\.tgz|goproxy|" + CHECKSUMS)


def clear(out: Path) -> None:
    """Empty `out` of an earlier release; refuse a folder that holds anything else."""
    if not out.exists():
        return
    others = [p.name for p in out.iterdir() if not RELEASED.fullmatch(p.name)]
    if others:
        raise SystemExit(f"release: {out} holds files that are no release's ({', '.join(sorted(others)[:5])}): "
                         "give an empty folder or the last release's")
    for path in out.iterdir():
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("version", nargs="?", help="the release's version, e.g. 0.2.0 (the project's)")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="the folder to write (default dist/)")
    parser.add_argument("--plugin-only", action="store_true", help="only this platform's plugin archive")
    parser.add_argument("--checksums", type=Path, metavar="DIR", help="only rewrite DIR/SHA256SUMS")
    args = parser.parse_args(argv)
    if args.checksums:
        write_checksums(args.checksums)
        return 0
    if not args.version:
        parser.error("give the version, e.g. 0.2.0")
    release(args.version, args.out.resolve(), plugin_only=args.plugin_only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
