"""The names a program imports are the public API: keep them deliberate."""

from __future__ import annotations

import pulumi

import pulumi_mltrain
from pulumi_mltrain import alaya, modelarts


def test_package_surface() -> None:
    assert pulumi_mltrain.__all__ == ["Provider", "__version__", "abandoned_runs", "alaya", "modelarts"]
    assert callable(pulumi_mltrain.abandoned_runs)
    assert isinstance(pulumi_mltrain.Provider("acct", alaya_endpoint="https://a"), pulumi.ProviderResource)
    assert pulumi_mltrain.alaya is alaya and pulumi_mltrain.modelarts is modelarts


def test_platform_surfaces() -> None:
    assert {"StorageMount", "TrainingJob", "get_products", "get_storages",
            "get_training_job_output"} <= set(alaya.__all__)
    assert {"Algorithm", "TrainingJob", "get_flavors", "get_engines"} <= set(modelarts.__all__)
    for module in (alaya, modelarts):
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module.__name__}.{name} is exported but missing"


def test_the_paths_0_2_documented_for_abandoned_runs() -> None:
    """docs/abandoned-runs.md of 0.2.0 named `pulumi_mltrain.abandoned.stop`; the module moved to cli/."""
    from pulumi_mltrain import abandoned
    from pulumi_mltrain.cli import abandoned as moved

    assert abandoned.stop is moved.stop and abandoned.abandoned_runs is pulumi_mltrain.abandoned_runs
    assert abandoned.AbandonedRun is moved.AbandonedRun
