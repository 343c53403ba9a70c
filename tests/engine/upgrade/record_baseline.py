"""Record the upgrade baseline of a release: stacks made by that release's code, and the platform
objects they point at, for tests/engine/upgrade/test_upgrade.py to open with later code.

Run it in a checkout of the release's commit, after `bash scripts/bootstrap.sh` there:

    .venv/bin/python tests/engine/upgrade/record_baseline.py VERSION [--out DIR]

It starts its own emulator with a state file, makes four stacks of the release's test programs
(README.md beside this script lists what they hold), and writes into DIR (default
tests/engine/upgrade/baselines/VERSION):

- `<stack>.json`: `pulumi stack export` of each stack (secrets stay encrypted with the test passphrase);
- `emulator.json`: the emulator's stored objects (its state file, compacted at shutdown);
- `manifest.json`: for each stack its program, the helper that wired it to the emulator, its config
  (the emulator's address and credentials aside, which the test sets for its own emulator), and the
  plan and platform calls of the release's own `pulumi preview` right after the last `up`.

Only the release's own helpers are used (tests/support, tests/engine/plugin/plugin_support.py, whose names
have been stable since 0.1.0), so the script runs unchanged at a later release's commit.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "engine" / "plugin")]

import plugin_support as ps  # noqa: E402

from mltrain_emulator import EmulatorAdmin, EmulatorHandle, EmulatorServer  # noqa: E402
from mltrain_emulator import defaults as d  # noqa: E402
from support import inprocess, stacks  # noqa: E402
from support.pulumi_cli import Stack  # noqa: E402

# Config values that are paths in the repository (stored relative to its root).
PATH_KEYS = ("example",)
SECRET = "wandb-secret-value-123"
ALAYA_EXAMPLE = "examples/alaya-distributed/__main__.py"

# Phase A: jobs that complete and kept failures (the platform ends them within a second).
PHASE_A = {"subscription_delay": 0.2, "task_state_delay": 0.2, "delete_delay": 0.2, "succeed_after": 0.5,
           "modelarts_phase_delay": 0.2, "modelarts_run_seconds": 0.5,
           "fail_task_names": "kept-", "modelarts_fail_names": "kept-"}
# Phase B: jobs that run (and keep running: no Alaya NeW task succeeds, a ModelArts job runs for weeks).
PHASE_B = {"succeed_after": None, "modelarts_run_seconds": 3e6}


def mount_args() -> dict[str, Any]:
    return {"storage_id": d.STORAGE_CAPACITY_ID, "storage_type": "nas-capacity", "file_directory": "datasets",
            "mount_path": "/root/nas/datasets"}


def algorithm_args() -> dict[str, Any]:
    return {"code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py", "engine_name": d.ENGINE_PYTORCH[0],
            "engine_version": d.ENGINE_PYTORCH[1], "inputs": [{"name": "data_url"}],
            "outputs": [{"name": "train_url"}]}


def algorithm_job_args(**args: Any) -> dict[str, Any]:
    return {"flavor_id": d.FLAVOR_CPU_8U, "inputs": [{"name": "data_url", "obs_url": "obs://b/data/"}],
            "outputs": [{"name": "train_url", "obs_url": "obs://b/out/"}], **args}


# A ModelArts job with the fields kept in job annotations, scheduling, notification, access and tags.
FIELDS: dict[str, Any] = {
    "pool_id": "pool-a100", "preemptible": True, "retry_count": 1,
    "required_affinity": {"affinity_type": "networkTopology", "affinity_group_size": 2, "job_level": "cluster"},
    "notification": {"topic_urn": "urn:smn:cn-north-4:0a1b2c3d4e5f60718293a4b5c6d7e8f9:train-alerts",
                     "events": ["JobStarted", "JobFailed"]},
    "ssh_key_pair_names": ["kp-a", "kp-b"], "unconditional_retry": False, "hang_retry": True,
    "tags": {"team": "nlp", "cost-center": "42"}, "wait_for": "running",
}


class Recorder:
    def __init__(self, emulator: EmulatorHandle, work: Path) -> None:
        self.emulator, self.work = emulator, work
        self.stacks: dict[str, tuple[Stack, dict[str, Any]]] = {}

    def stack(self, name: str, program: str, wiring: str) -> Stack:
        home = self.work / name
        home.mkdir()
        make = {"alaya": stacks.alaya_stack, "modelarts": stacks.modelarts_stack,
                "both": stacks.both_platforms_stack}[wiring]
        stack = make(self.emulator, home, ROOT / program)
        if program.startswith("tests/engine/plugin/"):
            ps.on_path(stack)
        self.stacks[name] = (stack, {"program": program, "wiring": wiring, "config": {}})
        return stack

    def configure(self, name: str, **config: Any) -> None:
        stack, entry = self.stacks[name]
        entry["config"] = config
        values = {k: (str(ROOT / v) if k in PATH_KEYS else v) for k, v in config.items()}
        stack.set_config_all({k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()})

    def up(self, name: str, *, fails: bool = False, only_new: bool = False) -> None:
        """`pulumi up`; `fails`: a kept failure is expected (the up fails, the job stays in the state);
        `only_new`: only the resources the program adds (a kept failure of an earlier up is replaced by
        any up that reaches it: here it stays as that up left it)."""
        stack, _ = self.stacks[name]
        extra = ["--continue-on-error"] if fails else []
        if only_new:
            plan = stack.preview_json()
            new = [s["urn"] for s in plan.get("steps", []) if s["op"] == "create"]
            extra += [arg for urn in new for arg in ("--target", urn)]
        result = stack.up(*extra, check=not fails)
        if fails:
            output = ps.output_of(result)
            assert result.returncode != 0 and 'kept (on_failure="keep")' in output, output[-4000:]

    def premade(self, platform: str, name: str) -> str:
        """A job made outside the stacks (another owner), for a stack to adopt by `adopt_id`."""
        if platform == "alaya":
            handler = inprocess.handler("alaya:TrainingJob", self.emulator)
            return inprocess.Created(handler, stacks.alaya_job_args(name=name, wait_for="running"), name=None).id
        handler = inprocess.handler("modelarts:TrainingJob", self.emulator)
        return inprocess.Created(handler, ps.modelarts_job_args(name=name, wait_for="running"), name=None).id


def record(emulator: EmulatorHandle, work: Path) -> dict[str, Any]:
    """Four stacks; a dynamic kept failure is raised by its program on every later run until it is
    replaced, so it is the last `up` of its stack, and the ModelArts one (which needs jobs to end
    quickly) has a stack of its own, made before the jobs that keep running."""
    admin = emulator.admin
    rec = Recorder(emulator, work)
    rec.stack("dynamic-alaya", "tests/engine/programs/alaya_suite", "alaya")
    rec.stack("dynamic-modelarts", "tests/engine/programs/modelarts_suite", "modelarts")
    rec.stack("dynamic-modelarts-running", "tests/engine/programs/modelarts_suite", "modelarts")
    rec.stack("plugin", "tests/engine/plugin/programs/raw", "both")
    done_alaya = stacks.alaya_job_args(wait_for="completed")
    kept_alaya = stacks.alaya_job_args(wait_for="completed", on_failure="keep")
    done_ma = algorithm_job_args(algorithm="algo", wait_for="completed")
    kept_ma = ps.modelarts_job_args(wait_for="completed", on_failure="keep")
    secret_env = {"done": {"WANDB_API_KEY": SECRET}}

    # Phase A: completed jobs and the ModelArts kept failures.
    admin.set_settings(**PHASE_A)
    rec.configure("dynamic-alaya", jobs={"done": done_alaya}, secretEnv=secret_env)
    rec.up("dynamic-alaya")
    rec.configure("dynamic-modelarts", algorithms={"algo": algorithm_args()}, jobs={"done": done_ma})
    rec.up("dynamic-modelarts")
    rec.configure("dynamic-modelarts", algorithms={"algo": algorithm_args()}, jobs={"done": done_ma, "kept": kept_ma})
    rec.up("dynamic-modelarts", fails=True)
    plugin_a = [ps.alaya_job("adone", wait_for="completed"), ps.alaya_job("akept", **kept_alaya),
                {"type": "mltrain:modelarts:Algorithm", "name": "algo", "args": algorithm_args(),
                 "outputs": ["algorithm_id"]},
                {"type": "mltrain:modelarts:TrainingJob", "name": "mdone", "outputs": ["phase"],
                 "args": algorithm_job_args(algorithm_id="${algo.algorithm_id}", wait_for="completed")},
                {"type": "mltrain:modelarts:TrainingJob", "name": "mkept", "args": kept_ma, "outputs": ["phase"]}]
    rec.configure("plugin", resources=plugin_a)
    rec.up("plugin", fails=True)

    # Phase B: running jobs, a mount, jobs adopted by `adopt_id` (made outside the stacks first), and
    # last the Alaya NeW kept failure (a task fails right after it runs, whatever the phase).
    admin.set_settings(**PHASE_B)
    adopt = {f"{p}-{form}": rec.premade(p, f"legacy-{p}-{form}")
             for p in ("alaya", "modelarts") for form in ("dyn", "plug")}
    alaya_b = {"done": done_alaya, "run": stacks.alaya_job_args(wait_for="running"),
               "adopted": stacks.alaya_job_args(name="legacy-alaya-dyn", wait_for="running",
                                                adopt_id=adopt["alaya-dyn"])}
    rec.configure("dynamic-alaya", example=ALAYA_EXAMPLE, secretEnv=secret_env, jobs=alaya_b)
    rec.up("dynamic-alaya")
    rec.configure("dynamic-modelarts-running", algorithms={"algo": algorithm_args()},
                  sensitiveEnv={"run": {"WANDB_API_KEY": SECRET}}, jobs={
                      "run": algorithm_job_args(algorithm="algo", wait_for="running", tags={"team": "nlp"}),
                      "fields": ps.modelarts_job_args(**FIELDS),
                      "adopted": ps.modelarts_job_args(name="legacy-modelarts-dyn", wait_for="running",
                                                       adopt_id=adopt["modelarts-dyn"])})
    rec.up("dynamic-modelarts-running")
    mount = {"type": "mltrain:alaya:StorageMount", "name": "data", "args": mount_args(), "outputs": ["mount"]}
    rec.configure("plugin", resources=[
        *plugin_a, mount,
        {**ps.alaya_job("arun", wait_for="running", storage_mounts=["${data.mount}"]),
         "secretEnv": {"WANDB_API_KEY": SECRET}},
        {**ps.alaya_job("aadopted"), "args": stacks.alaya_job_args(name="legacy-alaya-plug", wait_for="running",
                                                                  adopt_id=adopt["alaya-plug"])},
        {"type": "mltrain:modelarts:TrainingJob", "name": "mrun", "outputs": ["phase"],
         "args": algorithm_job_args(algorithm_id="${algo.algorithm_id}", wait_for="running",
                                    tags={"team": "nlp"})},
        {"type": "mltrain:modelarts:TrainingJob", "name": "mfields", "outputs": ["phase"],
         "args": ps.modelarts_job_args(**FIELDS)},
        {"type": "mltrain:modelarts:TrainingJob", "name": "madopted", "outputs": ["phase"],
         "args": ps.modelarts_job_args(name="legacy-modelarts-plug", wait_for="running",
                                         adopt_id=adopt["modelarts-plug"])}])
    rec.up("plugin", only_new=True)
    rec.configure("dynamic-alaya", example=ALAYA_EXAMPLE, secretEnv=secret_env, jobs={**alaya_b, "kept": kept_alaya})
    rec.up("dynamic-alaya", fails=True)

    # The release's own view of each stack: its preview's plan and the platform calls it made.
    manifest: dict[str, Any] = {"stacks": {}}
    for name, (stack, entry) in rec.stacks.items():
        before = admin.requests()["endpoints"]
        plan = stack.preview_json()
        after = admin.requests()["endpoints"]
        calls = {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}
        ops = {s["urn"].rsplit("::", 1)[1]: s["op"] for s in plan.get("steps", []) if s["op"] != "same"}
        (work / f"{name}.json").write_text(json.dumps(stack.export(), indent=1, sort_keys=True) + "\n")
        manifest["stacks"][name] = {**entry, "preview": {"changes": ops, "platform_calls": calls}}
    manifest["emulator_url"] = emulator.url
    manifest["clock"] = admin.state()["clock"]
    return manifest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="the release's version, e.g. 0.1.0")
    parser.add_argument("--out", type=Path, help="default: tests/engine/upgrade/baselines/VERSION")
    args = parser.parse_args()
    out = args.out or ROOT / "tests" / "engine" / "upgrade" / "baselines" / args.version
    import pulumi_mltrain

    assert Path(pulumi_mltrain.__file__).resolve().is_relative_to(ROOT), \
        f"run this checkout's .venv/bin/python: pulumi_mltrain is imported from {pulumi_mltrain.__file__}"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mltrain-baseline-") as tmp:
        work = Path(tmp)
        state_file = work / "emulator-state.json"
        with EmulatorServer(state_file=state_file) as server, EmulatorAdmin(server.url) as admin:
            manifest = record(EmulatorHandle(url=server.url, admin=admin), work)
        # The server's shutdown compacted the journal into the snapshot.
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.strip()
        manifest = {"release": args.version, "commit": commit, **manifest}
        out.mkdir(parents=True, exist_ok=True)
        snapshot = json.loads(state_file.read_text())
        (out / "emulator.json").write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n")
        for name in manifest["stacks"]:
            shutil.copy(work / f"{name}.json", out / f"{name}.json")
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"baseline {args.version} written to {out} in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
