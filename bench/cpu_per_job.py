"""Provider CPU per Alaya job: the dynamic provider's `create(...)` then `.delete(...)`, in this process
(`_TrainingJobProvider`, the class the states of alaya.TrainingJob name: the adapter and the handler).

The emulator runs in a child process (`python -m mltrain_emulator`), so the CPU measured here
(`time.process_time()`, every thread of this process: the provider's own work, httpx, pydantic, the
deadline watchdog) is the provider's alone. Jobs run one after another after a few warm-up jobs, which
pay the one-time costs (imports, first client, catalogue) that the benchmark's other rows measure.
API calls per job are counted by the emulator (`/_admin/requests`).

    .venv/bin/python bench/cpu_per_job.py --jobs 50            # one JSON line
    .venv/bin/python bench/cpu_per_job.py --jobs 50 --profile  # and a CPU-time cProfile, on stderr
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "provider"))

from mltrain_emulator.testing import EmulatorAdmin  # noqa: E402
from pulumi_mltrain.alaya._resources import _TrainingJobProvider as TrainingJobProvider  # noqa: E402
from pulumi_mltrain.config import Settings  # noqa: E402

WARM_UP = 5
ZERO_DELAYS = {"subscription_delay": 0.0, "task_state_delay": 0.0, "delete_delay": 0.0}
JOB = {"__mltrain_stack": "st-bench", "product_code": "PRD-TRAIN-2", "worker_count": 1,
       "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu", "training_framework": "pytorch",
       "start_command": "python3 train.py"}


@contextmanager
def emulator() -> Iterator[str]:
    """The emulator in a child process on 127.0.0.1 (any free port); yields its URL."""
    child = subprocess.Popen([sys.executable, "-m", "mltrain_emulator", "--port", "0",
                              "--log-level", "warning"], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        first = child.stdout.readline()
        if "http://" not in first:
            raise RuntimeError(f"the emulator did not start: {first!r}")
        yield first.split()[-1]
    finally:
        child.terminate()
        child.wait(timeout=10)


def provider(url: str, key: str) -> TrainingJobProvider:
    jobs = TrainingJobProvider()
    jobs.handler.configure(Settings.load({"mltrain:alayaEndpoint": url, "mltrain:alayaApiKey": key,
                                             "mltrain:keepRuns": "0"}, env={}))
    return jobs


def counts(admin: EmulatorAdmin) -> int:
    """Platform calls the emulator served so far (its admin API is not counted)."""
    return int(admin.requests()["total"])


def props(jobs: TrainingJobProvider, i: int) -> dict[str, Any]:
    """The inputs as the engine passes them to create: the answer of `check`."""
    checked = jobs.check({}, {**JOB, "__mltrain_urn": f"urn:pulumi:bench::cpu::alaya:TrainingJob::job-{i}"})
    assert not checked.failures, checked.failures
    return dict(checked.inputs)


def timed(profiler: cProfile.Profile | None, call: Callable[[], Any]) -> tuple[Any, float]:
    """(what `call` returns, the CPU seconds it took), profiled when asked."""
    if profiler:
        profiler.enable()
    start = time.process_time()
    try:
        return call(), time.process_time() - start
    finally:
        if profiler:
            profiler.disable()


def measure(url: str, key: str, n: int, profiler: cProfile.Profile | None) -> dict[str, Any]:
    """Median CPU of one job's create + delete (the median, since the machine may be shared), and
    the mean calls of each."""
    jobs = provider(url, key)
    with EmulatorAdmin(url, timeout=30.0) as admin:
        admin.set_settings(**ZERO_DELAYS)
        for i in range(WARM_UP):
            created = jobs.create(props(jobs, -1 - i))
            jobs.delete(str(created.id), dict(created.outs or {}))
        cpu: list[float] = []
        calls = {"create": 0, "delete": 0}
        for i in range(n):
            inputs = props(jobs, i)
            before = counts(admin)  # admin calls are not counted
            created, create_cpu = timed(profiler, partial(jobs.create, inputs))
            middle = counts(admin)
            _, delete_cpu = timed(profiler, partial(jobs.delete, str(created.id), dict(created.outs or {})))
            cpu.append(create_cpu + delete_cpu)
            calls["create"] += middle - before
            calls["delete"] += counts(admin) - middle
        left = admin.state()["alaya"]["tasks"]
        if left:
            raise RuntimeError(f"{len(left)} tasks left on the emulator")
    return {"cpu_ms_per_job": round(statistics.median(cpu) * 1000, 2),
            "calls_per_job": {k: round(v / n, 2) for k, v in calls.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=50, help="measured jobs (after a few warm-up jobs)")
    parser.add_argument("--profile", action="store_true", help="print cProfile statistics to stderr")
    parser.add_argument("--top", type=int, default=40, help="lines of each profile table")
    args = parser.parse_args(argv)
    from mltrain_emulator import defaults

    profiler = cProfile.Profile(time.process_time) if args.profile else None
    with emulator() as url:
        print(json.dumps(measure(url, defaults.DEFAULT_ALAYA_API_KEY, args.jobs, profiler)))
    if profiler:
        for order in ("cumulative", "tottime"):
            pstats.Stats(profiler, stream=sys.stderr).sort_stats(order).print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
