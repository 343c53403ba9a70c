"""Unknown policy names and config keys are refused, naming the known ones; valid configs pass."""

from __future__ import annotations

from mltrain_policies import PACK_NAME, POLICIES
from mltrain_policies.config_check import config_errors


def test_misspelled_key_names_the_policy_and_the_known_keys() -> None:
    errors = config_errors({"max-nodes-per-job": {"maxNode": 4}}, POLICIES, PACK_NAME)
    assert errors == ["mltrain-policies: unknown config key 'maxNode' for policy 'max-nodes-per-job'; "
                      "known keys: maxNodes, enforcementLevel"]


def test_unknown_policy_name_lists_the_policies() -> None:
    [error] = config_errors({"max-node-per-job": {"maxNodes": 4}}, POLICIES, PACK_NAME)
    assert "unknown policy 'max-node-per-job'" in error
    assert "max-nodes-per-job" in error and "gpu-hours-budget" in error


def test_known_keys_levels_and_engine_defaults_pass() -> None:
    config = {"all": "advisory", "max-nodes-per-job": {"maxNodes": 4, "enforcementLevel": "advisory"},
              "training-job-timeout": "disabled",
              "gpu-hours-budget": {"maxGpuHours": 100}}
    assert config_errors(config, POLICIES, PACK_NAME) == []
