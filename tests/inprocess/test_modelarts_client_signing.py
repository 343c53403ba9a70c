"""The ModelArts client with AK/SK signing against the emulator's gateway: it signs, finds its project by
name and fetches no token; a refused secret key names the setting and never the secret."""

from __future__ import annotations

import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.config import Settings
from pulumi_mltrain.errors import ApiError
from pulumi_mltrain.modelarts.wire.client import ModelArtsClient


def aksk_settings(emulator: EmulatorHandle, secret: str | None = None) -> Settings:
    return Settings.load({"mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
                          "mltrain:huaweiProjectName": emulator.project_name,
                          "mltrain:huaweiAccessKey": emulator.access_key,
                          "mltrain:huaweiSecretKey": secret or emulator.secret_key}, env={})


def test_the_client_signs_finds_its_project_by_name_and_fetches_no_token(emulator: EmulatorHandle) -> None:
    client = ModelArtsClient(aksk_settings(emulator))
    assert {f["flavor_id"] for f in client.flavors()} >= {d.FLAVOR_CPU_8U}
    assert client.find_jobs("nothing-by-this-name") == []
    assert client.project_id == emulator.project_id
    counts = emulator.admin.requests()["endpoints"]
    assert counts.get("GET /v3/projects") == 1 and "POST /v3/auth/tokens" not in counts


def test_a_refused_secret_key_names_the_setting_and_not_the_secret(emulator: EmulatorHandle) -> None:
    bad = "wrong-secret-key-value-xyz"
    with pytest.raises(ApiError) as caught:
        ModelArtsClient(aksk_settings(emulator, bad)).flavors()
    text = str(caught.value)
    assert caught.value.http_status == 401 and "APIGW.0301" in text
    assert "mltrain:huaweiSecretKey" in text and bad not in text
    signed = Settings.load({"mltrain:modelartsEndpoint": emulator.url, "mltrain:huaweiProjectId": emulator.project_id,
                            "mltrain:huaweiAccessKey": emulator.access_key, "mltrain:huaweiSecretKey": bad}, env={})
    with pytest.raises(ApiError, match="mltrain:huaweiSecretKey") as again:
        ModelArtsClient(signed).flavors()  # the project ID is configured: ModelArts itself refuses
    assert bad not in str(again.value) and "verify aksk signature fail" in str(again.value)
