"""AK/SK signing: Huawei's published example, an independent computation, and the AK/SK settings."""

from __future__ import annotations

import calendar
import hashlib
import hmac
import pickle

import httpx
import pytest

from pulumi_mltrain.config import Settings
from pulumi_mltrain.errors import ConfigError
from pulumi_mltrain.modelarts.wire import signer

# The worked example of Huawei's API Request Signing Guide ("Example of the API Signature
# Authentication Mechanism"): a VPC list call at 20191115T033655Z with its documentation key pair.
DOC_AK = "QTWAOYTTINDUT2QVKYUC"
DOC_SK = "MFyfvK41ba2giqM7Uio6PznpdUKGpownRZlmVmHc"
DOC_DATE = "20191115T033655Z"
DOC_HASH = "b25362e603ee30f4f25e7858e8a7160fd36e803bb2dfe206278659d71a9bcd7a"
DOC_SIGNATURE = "7be6668032f70418fcc22abc52071e57aff61b84a1d2381bb430d6870f4f6ebe"
DOC_URL = ("https://service.region.example.com/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs"
           "?marker=13551d6b-755d-4757-b956-536f674975c0&limit=2")  # unsorted on purpose
EPOCH_2019_11_15_033655 = float(calendar.timegm((2019, 11, 15, 3, 36, 55, 0, 0, 0)))


def test_published_example_canonical_request_and_signature() -> None:
    headers = {"content-type": "application/json", "host": "service.region.example.com", "x-sdk-date": DOC_DATE}
    canonical = signer.canonical_request("get", "/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs",
                                         "marker=13551d6b-755d-4757-b956-536f674975c0&limit=2", headers,
                                         ["content-type", "host", "x-sdk-date"], b"")
    assert canonical.split("\n") == [
        "GET", "/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs/", "limit=2&marker=13551d6b-755d-4757-b956-536f674975c0",
        "content-type:application/json", "host:service.region.example.com", f"x-sdk-date:{DOC_DATE}", "",
        "content-type;host;x-sdk-date", hashlib.sha256(b"").hexdigest()]
    to_sign = signer.string_to_sign(canonical, DOC_DATE)
    assert to_sign == f"SDK-HMAC-SHA256\n{DOC_DATE}\n{DOC_HASH}"
    assert signer.signature(DOC_SK, to_sign) == DOC_SIGNATURE


def test_the_auth_signs_an_httpx_request_like_the_example() -> None:
    request = httpx.Request("GET", DOC_URL, headers={"Content-Type": "application/json"})
    auth = signer.Signer(DOC_AK, DOC_SK, clock=lambda: EPOCH_2019_11_15_033655)
    flow = auth.sync_auth_flow(request)
    sent = next(flow)
    assert sent.headers["X-Sdk-Date"] == DOC_DATE
    assert sent.headers["Authorization"] == (f"SDK-HMAC-SHA256 Access={DOC_AK}, "
                                             f"SignedHeaders=content-type;host;x-sdk-date, Signature={DOC_SIGNATURE}")


def independent_signature(secret: str, method: str, uri: str, query: str, headers: dict[str, str],
                          body: bytes, date: str) -> str:
    """The guide's steps written out by hand (no code shared with the signer)."""
    names = sorted(headers)
    lines = [method, uri, query] + [f"{n}:{headers[n]}" for n in names] + ["", ";".join(names),
                                                                          hashlib.sha256(body).hexdigest()]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return hmac.new(secret.encode(), f"SDK-HMAC-SHA256\n{date}\n{digest}".encode(), hashlib.sha256).hexdigest()


def test_post_with_body_token_project_and_encoded_path_matches_an_independent_computation() -> None:
    body = b'{"kind": "job", "name": "a b"}'
    request = httpx.Request("POST", "http://127.0.0.1:8790/v2/p1/training-job-searches?b=2&a=x y&a=1",
                            content=body, headers={"Content-Type": "application/json"})
    auth = signer.Signer("AK1", "SK1", security_token="tok-1", project_id="p1", clock=lambda: 0.0)
    sent = next(auth.sync_auth_flow(request))
    assert sent.headers["X-Security-Token"] == "tok-1" and sent.headers["X-Project-Id"] == "p1"
    expected = independent_signature(
        "SK1", "POST", "/v2/p1/training-job-searches/", "a=1&a=x%20y&b=2",
        {"content-type": "application/json", "host": "127.0.0.1:8790", "x-project-id": "p1",
         "x-sdk-date": "19700101T000000Z", "x-security-token": "tok-1"}, body, "19700101T000000Z")
    assert sent.headers["Authorization"].endswith(f"Signature={expected}")
    assert "SignedHeaders=content-type;host;x-project-id;x-sdk-date;x-security-token," in sent.headers["Authorization"]
    # One changed byte of the body gives another signature.
    other = next(signer.Signer("AK1", "SK1", security_token="tok-1", project_id="p1", clock=lambda: 0.0)
                 .sync_auth_flow(httpx.Request("POST", request.url, content=body.replace(b"a b", b"a c"),
                                               headers={"Content-Type": "application/json"})))
    assert other.headers["Authorization"] != sent.headers["Authorization"]


def test_canonical_uri_and_query_encoding() -> None:
    assert signer.canonical_uri("/") == "/"
    assert signer.canonical_uri("/v1/a b/%7Ex") == "/v1/a%20b/~x/"
    assert signer.canonical_query("") == ""
    assert signer.canonical_query("z=1&name=my%2Fjob&empty=") == "empty=&name=my%2Fjob&z=1"


def test_secrets_stay_out_of_repr_and_pickle() -> None:
    auth = signer.Signer("AK1", "very-secret-sk", security_token="very-secret-token")
    assert "very-secret" not in repr(auth)
    with pytest.raises(TypeError):
        pickle.dumps(auth)


def test_region_derives_endpoints_and_project_explicit_endpoints_win() -> None:
    settings = Settings.load({"mltrain:huaweiRegion": "ap-southeast-1"}, env={})
    assert settings.iam_endpoint == "https://iam.ap-southeast-1.myhuaweicloud.com"
    assert settings.modelarts_endpoint == "https://modelarts.ap-southeast-1.myhuaweicloud.com"
    assert settings.project_name == "ap-southeast-1"
    explicit = Settings.load({"mltrain:huaweiRegion": "cn-north-4", "mltrain:huaweiProjectId": "p9",
                              "mltrain:modelartsEndpoint": "https://modelarts.example.test"}, env={})
    assert explicit.modelarts_endpoint == "https://modelarts.example.test"
    assert explicit.iam_endpoint == "https://iam.cn-north-4.myhuaweicloud.com"
    assert explicit.project_name is None and explicit.project_id == "p9"
    with pytest.raises(ConfigError, match="mltrain:huaweiRegion"):
        Settings.load({"mltrain:huaweiRegion": "evil.example.com/x"}, env={})


def test_huawei_environment_names_are_a_fallback_and_ours_win() -> None:
    env = {"HUAWEICLOUD_SDK_AK": "sdk-ak", "HW_ACCESS_KEY": "tf-ak", "HW_SECRET_KEY": "tf-sk",
           "HUAWEICLOUD_SDK_SECURITY_TOKEN": "sdk-token", "HW_REGION_NAME": "cn-south-1"}
    settings = Settings.load({}, env=env)
    assert settings.uses_aksk and settings.access_key == "sdk-ak"
    assert settings.secret_key is not None and settings.secret_key.get_secret_value() == "tf-sk"
    assert settings.security_token is not None and settings.security_token.get_secret_value() == "sdk-token"
    assert settings.region == "cn-south-1" and settings.iam_endpoint == "https://iam.cn-south-1.myhuaweicloud.com"
    ours = Settings.load({"mltrain:huaweiAccessKey": "config-ak"}, env={**env, "MLTRAIN_HUAWEI_SECRET_KEY": "m-sk"})
    assert ours.access_key == "config-ak" and ours.secret_key is not None
    assert ours.secret_key.get_secret_value() == "m-sk"
    assert "tf-sk" not in repr(settings) and "sdk-token" not in settings.model_dump_json()
    assert settings.fingerprint() != Settings.load({}, env={**env, "HW_SECRET_KEY": "other"}).fingerprint()


def test_a_missing_secret_key_names_the_setting() -> None:
    from pulumi_mltrain.modelarts.wire.client import ModelArtsClient

    settings = Settings.load({"mltrain:huaweiAccessKey": "AK1", "mltrain:huaweiRegion": "cn-north-4"}, env={})
    with pytest.raises(ConfigError, match=r"pulumi config set --secret mltrain:huaweiSecretKey"):
        ModelArtsClient(settings)
