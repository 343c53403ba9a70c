"""The Alaya NeW client over real HTTP against the emulator."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_mltrain.alaya.client import AlayaClient
from pulumi_mltrain.config import Settings
from pulumi_mltrain.errors import ApiError, ConfigError, NotFound


def client(emulator: Any, key: str | None = None) -> AlayaClient:
    return AlayaClient(Settings.load({"mltrain:alayaEndpoint": emulator.url,
                                      "mltrain:alayaApiKey": key or emulator.alaya_api_key,
                                      "mltrain:maxRetries": "1"}, env={}))


def test_wrong_key_is_a_clear_error_without_the_key(emulator: Any) -> None:
    with pytest.raises(ApiError) as err:
        client(emulator, "wrong-key-0123456789").products()
    text = str(err.value)
    assert "401 Unauthorized" in text and "mltrain:alayaApiKey" in text
    assert "wrong-key-0123456789" not in text


def test_missing_key_names_the_config_key() -> None:
    with pytest.raises(ConfigError) as err:
        AlayaClient(Settings.load({"mltrain:alayaEndpoint": "http://127.0.0.1:9"}, env={}))
    assert "pulumi config set --secret mltrain:alayaApiKey" in str(err.value)
    assert "MLTRAIN_ALAYA_API_KEY" in str(err.value)


def test_settings_never_print_secrets() -> None:
    settings = Settings.load({"mltrain:alayaApiKey": "s3cr3t-value", "mltrain:huaweiPassword": "pw-value"}, env={})
    assert "s3cr3t-value" not in repr(settings) and "pw-value" not in str(settings)


def test_create_then_detail_and_not_found(emulator: Any) -> None:
    api = client(emulator)
    key = api.create_task({"name": "t1", "createType": "DIRECT", "productCode": "PRD-QTT", "workerCount": 1,
                           "image": "harbor.zetyun.cn/x:1"})
    assert api.result(key)["status"] == "PROCESSING"
    emulator.admin.advance(5)
    task_id = api.result(key)["trainingTaskId"]
    assert api.task(task_id)["name"] == "t1"
    assert [t["id"] for t in api.find_tasks("t1")] == [task_id]
    with pytest.raises(NotFound):
        api.task("tt-000000000000")
    rows = api.storages()
    assert any(r["storageId"] == "72a2a885-e45e-4c79-aaf3-e1fa05abdb92" for r in rows)
