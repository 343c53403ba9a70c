"""pulumi-mltrain: ML training infrastructure as code for Alaya NeW and Huawei Cloud ModelArts v2.

    from pulumi_mltrain import alaya
    job = alaya.TrainingJob("llama3-sft", product_code="PRD-TRAIN-1", worker_count=4, image="...")

    from pulumi_mltrain import modelarts
    job = modelarts.TrainingJob("train", algorithm_id="...", flavor_id="modelarts.vm.cpu.8u")

Credentials come from stack config (`pulumi config set --secret mltrain:alayaApiKey ...`) or the
environment, never from resource arguments.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import alaya, modelarts
    from .cli.abandoned import abandoned_runs
    from .program.explicit_provider import Provider

# httpx's package import tries its command-line client (`httpx._main`: click, pygments, rich) and
# falls back when one is missing; with click installed (uvicorn brings it) but not rich, every provider
# process paid about 40 ms for it. Marked absent, httpx takes its own fallback at once: only
# `httpx.main`, the CLI entry point, differs, and the `httpx` command runs in a process of its own.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None marks a module absent

__version__ = "0.2.0"
__all__ = ["Provider", "__version__", "abandoned_runs", "alaya", "modelarts"]


def __getattr__(name: str) -> Any:
    """Import a platform on first use: a provider process serving Alaya never loads ModelArts."""
    if name in ("alaya", "modelarts"):
        return importlib.import_module(f"{__name__}.{name}")
    if name == "abandoned_runs":  # a plain function (no invoke): docs/abandoned-runs.md
        from .cli.abandoned import abandoned_runs

        return abandoned_runs
    if name == "Provider":
        from .program.explicit_provider import Provider

        return Provider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
