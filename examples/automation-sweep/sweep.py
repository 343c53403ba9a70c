"""A small hyperparameter sweep of Alaya NeW training tasks, driven by the Pulumi Automation API.

One stack holds the whole sweep (one `alaya.TrainingJob` per learning rate), so it is created,
watched and torn down as a unit, and a rerun with the same stack name changes only the trials
that changed. The program is inline (a Python function), so no Pulumi.yaml or project folder is
needed: the Automation API serves the program itself and starts the CLI with `--client`.

    python sweep.py run        # up (waits until every trial is RUNNING), print outputs, destroy
    python sweep.py up         # up and print outputs; leave the sweep running
    python sweep.py outputs    # print the outputs of the last up
    python sweep.py destroy    # stop every trial, kept as records (run/destroy --remove-stack: and the stack)

Settings (environment): MLTRAIN_ALAYA_ENDPOINT, MLTRAIN_ALAYA_API_KEY (set on the stack's config,
the key as a secret, at every run: an inline program's workspace is a temporary folder, removed when
the script ends),
SWEEP_LEARNING_RATES (comma-separated, default "1e-4,3e-4,1e-3"), SWEEP_STACK (default "sweep"),
SWEEP_PRODUCT_CODE, SWEEP_IMAGE. The state backend and passphrase are the
CLI's own: `pulumi login` or PULUMI_BACKEND_URL, and PULUMI_CONFIG_PASSPHRASE.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import pulumi
from pulumi import automation as auto

from pulumi_mltrain import alaya

PROJECT = "automation-sweep"
DEFAULT_RATES = "1e-4,3e-4,1e-3"
DEFAULT_IMAGE = "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu"


def learning_rates() -> list[float]:
    raw = os.environ.get("SWEEP_LEARNING_RATES", DEFAULT_RATES)
    try:
        rates = [float(part) for part in raw.split(",") if part.strip()]
    except ValueError as exc:
        raise SystemExit(f"SWEEP_LEARNING_RATES={raw!r}: expected comma-separated numbers, e.g. {DEFAULT_RATES}") \
            from exc
    if not rates or len(set(rates)) != len(rates):
        raise SystemExit(f"SWEEP_LEARNING_RATES={raw!r}: give at least one learning rate, each once")
    return rates


def sweep_program(rates: list[float], product_code: str, image: str) -> Callable[[], None]:
    """The inline Pulumi program: one trial per learning rate, each waited on until RUNNING."""

    def program() -> None:
        trials: dict[str, Any] = {}
        for index, rate in enumerate(rates):
            job = alaya.TrainingJob(
                f"trial-{index}",  # resource names stay stable when a rate changes: that trial is replaced
                product_code=product_code,
                worker_count=1,
                image=image,
                training_framework="pytorch",
                env={"LEARNING_RATE": repr(rate)},
                start_command=f"python3 train.py --lr {rate!r}",
                timeout_hours=2,
                wait_for="running",  # `up` returns once every trial trains
            )
            trials[f"trial-{index}"] = {"learning_rate": rate, "task_id": job.id, "status": job.status,
                                        "name": job.name}
        pulumi.export("trials", trials)

    return program


def provider_python() -> dict[str, str]:
    """Run the dynamic provider with this interpreter, which has pulumi-mltrain: an inline program has no
    `virtualenv` option, and the official `pulumi-resource-pulumi-python` would otherwise start the system
    `python3 -m pulumi.dynamic` (`No module named 'pulumi'`). A PULUMI_PYTHON_CMD already set wins."""
    return {"PULUMI_PYTHON_CMD": os.environ.get("PULUMI_PYTHON_CMD") or sys.executable}


def select_stack(work_dir: str) -> auto.Stack:
    rates = learning_rates()
    program = sweep_program(rates, os.environ.get("SWEEP_PRODUCT_CODE", "PRD-TRAIN-2"),
                            os.environ.get("SWEEP_IMAGE", DEFAULT_IMAGE))
    stack = auto.create_or_select_stack(
        stack_name=os.environ.get("SWEEP_STACK", "sweep"), project_name=PROJECT, program=program,
        # The workspace's Pulumi.yaml and stack config: in a folder of this run (left alone, the Automation API
        # makes a temporary one per run and never removes it).
        opts=auto.LocalWorkspaceOptions(work_dir=work_dir,
                                        project_settings=auto.ProjectSettings(name=PROJECT, runtime="python"),
                                        env_vars=provider_python()),
    )
    settings: dict[str, auto.ConfigValue] = {}
    endpoint = os.environ.get("MLTRAIN_ALAYA_ENDPOINT")
    if endpoint:
        settings["mltrain:alayaEndpoint"] = auto.ConfigValue(endpoint)
    key = os.environ.get("MLTRAIN_ALAYA_API_KEY")
    if key:
        settings["mltrain:alayaApiKey"] = auto.ConfigValue(key, secret=True)
    if settings:
        stack.set_all_config(settings)  # one `pulumi config set-all`, not a CLI process per key
    return stack


def outputs(stack: auto.Stack) -> dict[str, Any]:
    """The sweep's outputs as plain JSON (secrets, if any, stay masked)."""
    value = stack.outputs().get("trials")
    return dict(value.value) if value is not None else {}


def up(stack: auto.Stack) -> dict[str, Any]:
    result = stack.up(on_output=print)
    print(f"up: {result.summary.result}, {result.summary.resource_changes}", flush=True)
    return outputs(stack)


def destroy(stack: auto.Stack) -> None:
    result = stack.destroy(on_output=print)
    print(f"destroy: {result.summary.result}", flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "sweep").splitlines()[0])
    parser.add_argument("command", nargs="?", default="run", choices=["run", "up", "outputs", "destroy"])
    parser.add_argument("--remove-stack", action="store_true", help="after destroy, remove the stack and its config")
    command = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="automation-sweep-") as work_dir:
        return perform(command, select_stack(work_dir))


def perform(command: argparse.Namespace, stack: auto.Stack) -> int:
    if command.command in ("run", "up"):
        print("SWEEP_OUTPUTS " + json.dumps(up(stack), sort_keys=True), flush=True)
    if command.command == "outputs":
        print("SWEEP_OUTPUTS " + json.dumps(outputs(stack), sort_keys=True), flush=True)
    if command.command in ("run", "destroy"):
        destroy(stack)
        if command.remove_stack:
            stack.workspace.remove_stack(stack.name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
