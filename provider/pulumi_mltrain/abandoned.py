"""The path 0.2 documented for `stop` and the records of `mltrain-runs abandoned`
(`pulumi_mltrain.abandoned.stop(settings, run)`); the module is `pulumi_mltrain.cli.abandoned`."""

from __future__ import annotations

from .cli.abandoned import (
    AbandonedRun,
    BackendError,
    HeldRun,
    abandoned_runs,
    held_runs,
    stack_settings,
    stop,
)

__all__ = ["AbandonedRun", "BackendError", "HeldRun", "abandoned_runs", "held_runs", "stack_settings", "stop"]
