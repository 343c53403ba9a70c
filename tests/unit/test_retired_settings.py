"""A program run with MLTRAIN_PROVIDER_PROCESSES (a setting of builds before 0.1.0) set is told that the
setting is retired (`program/accounts.py`'s `warn_retired_settings`)."""

from __future__ import annotations

import pytest

from pulumi_mltrain.program import accounts


def warnings(output: str) -> list[str]:
    return [line for line in output.splitlines() if "mltrain:providerProcesses" in line and "deprecated" in line]


def test_the_environment_variable_is_retired_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A program run with MLTRAIN_PROVIDER_PROCESSES set (and no `mltrain:providerProcesses` key) is told,
    once, that it is ignored: what the program side logs through `pulumi.log.warn`, which the engine shows
    as a warning."""
    logged: list[str] = []
    monkeypatch.setattr(accounts, "_warned", set())
    monkeypatch.setattr(accounts.pulumi.log, "warn", lambda message, *_, **__: logged.append(message))
    monkeypatch.delenv("PULUMI_CONFIG", raising=False)
    accounts.warn_retired_settings()
    assert logged == [], "nothing set, nothing said"
    monkeypatch.setenv("MLTRAIN_PROVIDER_PROCESSES", "2")
    accounts.warn_retired_settings()
    accounts.warn_retired_settings()
    assert len(warnings("\n".join(logged))) == 1, logged
