"""One declaration per setting (`pulumi_mltrain/settings.py`): the stack config and environment reading,
`pulumi_mltrain.Provider`'s arguments, the explicit provider's settings, schema.json and the docs all
follow the table."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from pulumi_mltrain import Provider, accounts, config
from pulumi_mltrain.settings import CONFIG, CREDENTIALS, SETTINGS

ROOT = Path(__file__).resolve().parents[2]


def test_settings_model_has_one_field_per_setting_with_its_default() -> None:
    fields = config.Settings.model_fields
    assert list(fields) == [s.name for s in CONFIG]
    for setting in CONFIG:
        assert fields[setting.name].default == setting.default, setting.name


def test_settings_load_reads_each_key_and_environment_variable() -> None:
    for setting in CONFIG:
        if setting.kind != "string" or setting.name in ("region", "replace_running") or "endpoint" in setting.name:
            continue
        from_config = config.Settings.load({setting.config_key: "x-from-config"}, env={})
        from_env = config.Settings.load({}, env={var: "x-from-env" for var in setting.environment[:1]})
        for loaded, want in ((from_config, "x-from-config"), (from_env, "x-from-env")):
            value = getattr(loaded, setting.name)
            value = value.get_secret_value() if hasattr(value, "get_secret_value") else value
            assert value == want, setting.name


def test_provider_takes_every_setting_typed() -> None:
    params = inspect.signature(Provider.__init__).parameters
    assert [n for n in params if n not in ("self", "resource_name")] == [s.name for s in CONFIG]
    for name in params:
        if name != "self":
            assert params[name].annotation, f"{name} is typed"
    made = Provider("p", alaya_api_key="k", region="cn-north-4", max_retries=3)
    assert set(made.settings) == {"alaya_api_key", "region", "max_retries"}
    assert set(accounts.SETTINGS) == {s.name for s in CONFIG}
    assert set(accounts.CREDENTIALS) == set(CREDENTIALS) == set(config.SECRETS)


def test_schema_and_docs_list_every_setting() -> None:
    schema = json.loads((ROOT / "schema.json").read_text())
    assert list(schema["config"]["variables"]) == [s.key for s in CONFIG]
    assert list(schema["provider"]["inputProperties"]) == [s.key for s in SETTINGS]
    for setting in CONFIG:
        entry = schema["config"]["variables"][setting.key]
        assert entry["description"].startswith(setting.description)
        assert entry.get("secret", False) == setting.secret
    page = (ROOT / "docs" / "installation-configuration.md").read_text()
    for setting in SETTINGS:
        assert f"| `{setting.config_key}`" in page, setting.key
