"""A Python language host for the Pulumi CLI, for machines where the Go one cannot be built.

The Pulumi CLI talks to a language runtime plugin (`pulumi-language-python`) over gRPC to run
programs (`Run`) and policy packs (`RunPlugin`). The upstream plugin is a Go module that the Go
module proxy here does not serve, so the bootstrap installs this one in its place. It speaks the
same protocol through the stubs the `pulumi` Python SDK ships, and implements what `preview`,
`up`, `refresh`, `destroy` and `--policy-pack` need; the rest answers UNIMPLEMENTED, which the
engine treats as "not supported".

Usage (by the engine): pulumi-language-python [-flags] ENGINE_ADDRESS
Program runner (by this host): python language_host.py --run [options] PROGRAM [ARGS...]
Dynamic provider (by the plugin shim): python language_host.py --provider ENGINE_ADDRESS
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

HOST_VERSION = os.environ.get("MLTRAIN_PULUMI_VERSION", "v3.274.1")
_CHILDREN: set[subprocess.Popen[bytes]] = set()
# The exit code by which a program says "I already showed the user a message".
BAIL_EXIT_CODE = 32


def watch_engine(address: str) -> None:
    """Exit (with our children) once the engine stops answering: a killed `pulumi` must not leave
    language hosts, programs or providers running forever. The Go hosts do the same; the watchdog is
    the provider package's (`pulumi_mltrain.watchdog`), which also guards the SDK's dynamic provider host."""
    from pulumi_mltrain.watchdog import watch_engine as watch

    def kill_children() -> None:
        for child in list(_CHILDREN):
            child.kill()

    watch(address, before_exit=kill_children)


def stop_on_sigint() -> None:
    """The engine stops a plugin with SIGINT to its process group (SIGKILL 5 s later). A host started
    with SIGINT ignored (a background job of a non-interactive shell, nohup) inherits that, and Python
    keeps it, so every command would wait out those 5 s: take the signal back."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _python_for(root: str, options: dict[str, Any]) -> str:
    """The interpreter a program or pack runs with: its `virtualenv` option, else this one."""
    venv = options.get("virtualenv")
    if venv:
        path = venv if os.path.isabs(venv) else os.path.join(root, venv)
        candidate = os.path.join(path, "bin", "python")
        if os.path.exists(candidate):
            return candidate
        raise RuntimeError(
            f"The 'virtualenv' option is {venv!r}, but {path} has no bin/python; run the bootstrap first"
        )
    return os.environ.get("PULUMI_PYTHON_CMD") or sys.executable


def _options(info: Any) -> dict[str, Any]:
    from google.protobuf import json_format

    if info is None or not info.HasField("options"):
        return {}
    return dict(json_format.MessageToDict(info.options))


def serve(engine_address: str) -> None:
    import grpc
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import language_pb2, language_pb2_grpc, plugin_pb2

    class Host(language_pb2_grpc.LanguageRuntimeServicer):  # type: ignore[misc]
        def __init__(self) -> None:
            self.engine_address = engine_address

        def Handshake(self, request: Any, context: Any) -> Any:
            self.engine_address = request.engine_address or self.engine_address
            return language_pb2.LanguageHandshakeResponse()

        def GetPluginInfo(self, request: Any, context: Any) -> Any:
            return plugin_pb2.PluginInfo(version=HOST_VERSION)

        def GetRequiredPlugins(self, request: Any, context: Any) -> Any:
            return language_pb2.GetRequiredPluginsResponse()

        def GetRequiredPackages(self, request: Any, context: Any) -> Any:
            # Our programs use only dynamic providers, which the CLI ships with.
            return language_pb2.GetRequiredPackagesResponse()

        def GetProgramDependencies(self, request: Any, context: Any) -> Any:
            return language_pb2.GetProgramDependenciesResponse()

        def InstallDependencies(self, request: Any, context: Any) -> Iterator[Any]:
            # Dependencies come from the project's bootstrap, never from the engine.
            yield from ()

        def RuntimeOptionsPrompts(self, request: Any, context: Any) -> Any:
            return language_pb2.RuntimeOptionsResponse()

        def About(self, request: Any, context: Any) -> Any:
            return language_pb2.AboutResponse(executable=sys.executable, version=platform.python_version())

        def Cancel(self, request: Any, context: Any) -> Any:
            return empty_pb2.Empty()

        def Run(self, request: Any, context: Any) -> Any:
            info = request.info
            root = info.root_directory or request.pwd
            python = _python_for(root, _options(info))
            args = [python, "-u", os.path.abspath(__file__), "--run"]
            pairs = {
                "monitor": request.monitor_address,
                "engine": self.engine_address,
                "project": request.project,
                "stack": request.stack,
                "root_directory": info.root_directory,
                "pwd": request.pwd,
                "dry_run": "true" if request.dryRun else "false",
                "parallel": str(request.parallel),
                "organization": request.organization,
            }
            for key, value in pairs.items():
                if value:
                    args += [f"--{key}", value]
            args.append(info.entry_point or request.program or ".")
            args += list(request.args)
            env = dict(os.environ)
            env["PULUMI_CONFIG"] = json.dumps(dict(request.config))
            env["PULUMI_CONFIG_SECRET_KEYS"] = json.dumps(list(request.configSecretKeys))
            cwd = info.program_directory or request.pwd or None
            program = subprocess.Popen(args, env=env, cwd=cwd)
            _CHILDREN.add(program)
            try:
                code = program.wait()
            finally:
                _CHILDREN.discard(program)
            if code == 0:
                return language_pb2.RunResponse()
            if code == BAIL_EXIT_CODE:
                return language_pb2.RunResponse(bail=True)
            return language_pb2.RunResponse(error=f"program exited with non-zero exit code: {code}")

        def RunPlugin(self, request: Any, context: Any) -> Iterator[Any]:
            info = request.info
            python = _python_for(info.root_directory or info.program_directory, _options(info))
            if request.kind == "analyzer":
                # Policy packs run as `python -m pulumi.policy ENGINE PACK_DIR`, in the pack's folder;
                # pulumi-policy answers ConfigureStack itself, so no proxy is needed.
                args = [python, "-u", "-m", "pulumi.policy", *request.args, info.program_directory]
                cwd = info.program_directory
            else:
                args = [python, "-u", info.program_directory, *request.args]
                cwd = request.pwd or info.program_directory
            env = dict(os.environ)
            for item in request.env:
                key, _, value = item.partition("=")
                env[key] = value
            proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            _CHILDREN.add(proc)
            chunks: queue.Queue[tuple[str, bytes]] = queue.Queue()

            def pump(name: str, stream: Any) -> None:
                for chunk in iter(lambda: stream.read1(65536), b""):
                    chunks.put((name, chunk))
                chunks.put((name, b""))

            for name, stream in (("stdout", proc.stdout), ("stderr", proc.stderr)):
                threading.Thread(target=pump, args=(name, stream), daemon=True).start()
            open_streams = 2
            while open_streams:
                name, chunk = chunks.get()
                if not chunk:
                    open_streams -= 1
                elif name == "stdout":
                    yield language_pb2.RunPluginResponse(stdout=chunk)
                else:
                    yield language_pb2.RunPluginResponse(stderr=chunk)
            _CHILDREN.discard(proc)
            yield language_pb2.RunPluginResponse(exitcode=proc.wait())

    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8),
        options=[("grpc.max_receive_message_length", 400 * 1024 * 1024)],
    )
    language_pb2_grpc.add_LanguageRuntimeServicer_to_server(Host(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    # The engine stops plugins with SIGINT when it is done. The handler only sets a flag: raised as
    # KeyboardInterrupt inside gRPC's wait, it could land while a lock of the server's termination
    # event is held, and the stop that follows would then wait on that lock forever.
    asked: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: asked.append(signum))
    server.start()
    if engine_address:
        watch_engine(engine_address)
    print(port, flush=True)
    while not asked:
        time.sleep(0.05)  # a sleep takes the signal at once, and holds no lock
    server.stop(grace=1)


def run_program(argv: list[str]) -> int:
    """Run a Pulumi program in this process, connected to the engine's resource monitor."""
    import asyncio
    import runpy
    import traceback

    parser = argparse.ArgumentParser(prog="language_host.py --run")
    for name in ("monitor", "engine", "project", "stack", "root_directory", "pwd", "dry_run",
                 "parallel", "organization", "tracing"):
        parser.add_argument(f"--{name}")
    parser.add_argument("program")
    parser.add_argument("args", nargs="*")
    ns = parser.parse_args(argv)

    import pulumi
    import pulumi.runtime

    pulumi.runtime.set_all_config(pulumi.runtime.get_config_env(), pulumi.runtime.get_config_secret_keys_env())
    settings = pulumi.runtime.Settings(
        monitor=ns.monitor, engine=ns.engine, project=ns.project, stack=ns.stack,
        parallel=int(ns.parallel or 0) or None, dry_run=ns.dry_run == "true",
        organization=ns.organization, root_directory=ns.root_directory,
    )
    pulumi.runtime.configure(settings)
    if ns.pwd:
        os.chdir(ns.pwd)
    program = os.path.abspath(ns.program)
    sys.argv = [program, *ns.args]
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    # As upstream's pulumi-language-python-exec: resource registrations run in the loop's default
    # executor, sized 4 x --parallel; asyncio's own default (cpu + 4 threads) would cap them lower.
    if settings.parallel:
        loop.set_default_executor(futures.ThreadPoolExecutor(max_workers=max(settings.parallel, 1) * 4))

    def body() -> None:
        runpy.run_path(program, run_name="__main__")

    try:
        loop.run_until_complete(pulumi.runtime.run_in_stack(body))
    except pulumi.RunError as err:
        pulumi.log.error(str(err))
        return BAIL_EXIT_CODE
    except Exception:
        pulumi.log.error(f"Program failed with an unhandled exception:\n{traceback.format_exc()}")
        return BAIL_EXIT_CODE
    finally:
        loop.close()
    return 0


def run_provider(argv: list[str]) -> int:
    """The dynamic provider plugin (`python -m pulumi.dynamic ENGINE`), under the engine watchdog."""
    import runpy

    stop_on_sigint()
    try:  # the SDK's host stops cleanly on SIGINT once it waits; this covers its start-up too
        if argv:
            watch_engine(argv[0])
        sys.argv = ["pulumi.dynamic", *argv]
        runpy.run_module("pulumi.dynamic", run_name="__main__", alter_sys=True)
    except KeyboardInterrupt:
        pass
    return 0


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--run":
        return run_program(argv[1:])
    if argv and argv[0] == "--provider":
        return run_provider(argv[1:])
    positional: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("-version", "--version"):
            print(HOST_VERSION)
            return 0
        elif arg.startswith("-"):
            skip = "=" not in arg and arg.lstrip("-") in ("tracing", "use-executor", "root")
        else:
            positional.append(arg)
    serve(positional[0] if positional else "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
