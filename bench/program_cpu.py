"""Program CPU per TrainingJob, in process with the SDK's mocks: what the program side costs as N grows.

The engine is not involved (`pulumi.runtime.set_mocks`): this isolates the program's own work —
building the props, the SDK turning each property into an Output, registering — which the
whole-process scenarios cannot separate from start-up. Prints one JSON line:
`{"program_ms_per_job": ..., "outputs_per_job": ..., "jobs": N}` (outputs: the SDK Outputs one job
holds as attributes, `urn` and `id` included).

    python bench/program_cpu.py [--jobs N] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import pulumi


class _Mocks(pulumi.runtime.Mocks):
    """Every resource is created with its inputs as outputs; no function is called."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return {}, None


def _declare(count: int, jobs: list[pulumi.Resource], prefix: str) -> pulumi.Output[list[str]]:
    from pulumi_mltrain import alaya

    jobs += [alaya.TrainingJob(f"{prefix}-{i}", product_code="PRD-TRAIN-2", worker_count=1,
                              image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
                              training_framework="pytorch", start_command="python3 train.py")
            for i in range(count)]
    return pulumi.Output.all(*[job.urn for job in jobs])


def measure(count: int, rounds: int) -> dict[str, Any]:
    """The best of `rounds` (the machine is shared: the least disturbed round is the program's cost)."""
    pulumi.runtime.set_mocks(_Mocks(), preview=False)
    import pulumi_mltrain.alaya  # noqa: F401  -- imports are start-up, not per-job work

    warm: list[pulumi.Resource] = []
    run: Callable[[Callable[[], Any]], Callable[[], None]] = pulumi.runtime.test  # an untyped decorator
    run(lambda: _declare(1, warm, "warm"))()  # the stack identity and first uses
    spent: list[float] = []
    jobs: list[pulumi.Resource] = []
    for round_ in range(rounds):
        jobs.clear()
        started = time.process_time()
        run(lambda: _declare(count, jobs, f"job{round_}"))()  # noqa: B023 -- run at once
        spent.append(time.process_time() - started)
    outputs = sum(isinstance(v, pulumi.Output) for v in vars(jobs[0]).values())
    return {"program_ms_per_job": round(min(spent) * 1000 / count, 3), "outputs_per_job": outputs,
            "jobs": count}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.jobs, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
