"""What a benchmark run does (`Plan`: the full run or `--quick`) and what it has seen (`Facts`, from
which the report's observations are computed). Every scenario module takes both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Plan:
    quick: bool
    overhead_ns: tuple[int, ...] = (1, 10, 50, 200)
    repeats: int = 5  # alternating runs per N ≤ 50: their ratios move by about ±0.1 run to run here
    repeats_large: int = 3  # at N = 200, where a run takes half a minute and moves less
    preview_n: int = 200
    preview_repeats: int = 3  # scenario 5: its target is a call count; its times are information
    waits: tuple[float, ...] = (0.3, 2.0, 10.0, 60.0, 120.0)  # real-time waits (the fake clock has all)
    trace_n: int = 50  # scenario 16: the traced up and destroy
    parallel_n: int = 20
    parallel_delay: float = 5.0
    fault_n: int = 20
    fault_rate: float = 0.20
    cpu_jobs: int = 50
    emulator_rounds: int = 100
    emulator_state_file: bool = True
    plugin_ns: tuple[int, ...] = (50, 200)  # scenario 10's overhead N (in scenario 1's rotation when it runs)
    plugin_default_parallel: bool = True  # scenarios 3 and 10 also wait at the default --parallel
    sweep_ns: tuple[int, int] = (200, 1000)  # scenario 12: the growth from the first N to the second
    limits_n: int = 50  # scenario 13: `up` under 30 % 429s
    limits_rate: float = 0.30
    limits_retry_after: tuple[int, int] = (1, 3)
    cancel_n: int = 20  # scenario 18: creates waiting when the CLI is interrupted
    cancel_runs: int = 3  # interrupted `up`s of each form

    @classmethod
    def make(cls, quick: bool) -> Plan:
        if quick:
            return cls(quick=True, overhead_ns=(1, 10), repeats=1, repeats_large=1, preview_n=20, preview_repeats=1,
                       waits=(0.3, 2.0), fault_n=10, emulator_rounds=40, emulator_state_file=False, plugin_ns=(10,),
                       plugin_default_parallel=False, sweep_ns=(20, 100), trace_n=10, cancel_runs=1)
        return cls(quick=False)


@dataclass
class Facts:
    """What the observations at the end of the report are computed from."""

    values: dict[str, Any] = field(default_factory=dict)

    def __setitem__(self, key: str, value: Any) -> None:
        self.values[key] = value

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)
