"""The emulator's API gateway checks AK/SK signatures as Huawei's does; token auth keeps working."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from pulumi_mltrain.modelarts.wire import signer
from support.loopback import LOOPBACK

FLAVORS = f"/v2/{d.DEFAULT_PROJECT_ID}/training-job-flavors"
SEARCHES = f"/v2/{d.DEFAULT_PROJECT_ID}/training-job-searches"
PROJECTS = "/v3/projects"


def keys(emulator: EmulatorHandle, secret: str | None = None, **kwargs: Any) -> signer.Signer:
    return signer.Signer(emulator.access_key, secret or emulator.secret_key, **kwargs)


def send(emulator: EmulatorHandle, auth: httpx.Auth, method: str = "GET", path: str = FLAVORS,
         **kwargs: Any) -> httpx.Response:
    with httpx.Client(base_url=emulator.url, auth=auth, **LOOPBACK) as http:
        return http.request(method, path, **kwargs)


def refused(response: httpx.Response, reason: str) -> None:
    """The gateway's refusal: 401, APIGW.0301, its message, a request ID."""
    assert response.status_code == 401, response.text
    body = response.json()
    assert body["error_code"] == "APIGW.0301"
    assert body["error_msg"].startswith("Incorrect IAM authentication information: ")
    assert reason in body["error_msg"] and body["request_id"]


def test_a_signed_call_is_served(emulator: EmulatorHandle) -> None:
    response = send(emulator, keys(emulator, project_id=d.DEFAULT_PROJECT_ID), params={"flavor_type": "GPU"})
    assert response.status_code == 200, response.text
    assert {f["flavor_type"] for f in response.json()["flavors"]} == {"GPU"}
    body = {"offset": 0, "limit": 10, "filters": [{"key": "name", "operator": "like", "value": ["x"]}]}
    posted = send(emulator, keys(emulator, project_id=d.DEFAULT_PROJECT_ID), "POST", SEARCHES, json=body)
    assert posted.status_code == 200, posted.text


def test_a_wrong_secret_key_is_refused(emulator: EmulatorHandle) -> None:
    refused(send(emulator, keys(emulator, "not-the-secret-key", project_id=d.DEFAULT_PROJECT_ID)),
            "verify aksk signature fail")


def test_an_unknown_access_key_is_refused(emulator: EmulatorHandle) -> None:
    auth = signer.Signer("NOSUCHACCESSKEY00000", emulator.secret_key, project_id=d.DEFAULT_PROJECT_ID)
    refused(send(emulator, auth), "ak:NOSUCHACCESSKEY00000, err:ak not exist")


def test_a_body_changed_after_signing_is_refused(emulator: EmulatorHandle) -> None:
    auth = keys(emulator, project_id=d.DEFAULT_PROJECT_ID)
    signed = httpx.Request("POST", emulator.url + SEARCHES, json={"offset": 0, "limit": 10})
    auth.sign(signed)
    tampered = {k: v for k, v in signed.headers.items() if k.lower() != "content-length"}
    with httpx.Client(**LOOPBACK) as http:
        answer = http.post(emulator.url + SEARCHES, content=b'{"offset": 0, "limit": 50}', headers=tampered)
        same = http.post(emulator.url + SEARCHES, content=signed.content, headers=tampered)
    refused(answer, "verify aksk signature fail")
    assert same.status_code == 200, same.text  # the untouched body passes with the same headers


@pytest.mark.parametrize("skew", [-16 * 60, 16 * 60])
def test_a_date_more_than_15_minutes_off_is_refused(emulator: EmulatorHandle, skew: int) -> None:
    auth = keys(emulator, project_id=d.DEFAULT_PROJECT_ID, clock=lambda: time.time() + skew)
    refused(send(emulator, auth), "signature expired")
    near = keys(emulator, project_id=d.DEFAULT_PROJECT_ID, clock=lambda: time.time() + skew * 13 / 16)
    assert send(emulator, near).status_code == 200  # 13 minutes off is inside the window


def test_the_gateway_clock_is_the_emulator_clock(emulator: EmulatorHandle) -> None:
    emulator.admin.advance(16 * 60)
    refused(send(emulator, keys(emulator, project_id=d.DEFAULT_PROJECT_ID)), "signature expired")


def test_a_malformed_or_unsigned_date_is_refused(emulator: EmulatorHandle) -> None:
    auth = keys(emulator, project_id=d.DEFAULT_PROJECT_ID)
    request = httpx.Request("GET", emulator.url + FLAVORS)
    auth.sign(request)
    signed = {k.lower(): v for k, v in request.headers.items()}
    with httpx.Client(**LOOPBACK) as http:
        bad_date = http.get(emulator.url + FLAVORS, headers={**signed, "x-sdk-date": "yesterday"})
        bad_header = http.get(emulator.url + FLAVORS, headers={**signed, "authorization": "SDK-HMAC-SHA256 x"})
        unsigned = signed["authorization"].replace("SignedHeaders=host;x-project-id;x-sdk-date",
                                                   "SignedHeaders=host;x-project-id")
        no_date = http.get(emulator.url + FLAVORS, headers={**signed, "authorization": unsigned})
    refused(no_date, "x-sdk-date is not in SignedHeaders")
    refused(bad_date, "x-sdk-date not found or invalid")
    refused(bad_header, "Authorization format incorrect")


def test_temporary_keys_need_their_security_token(emulator: EmulatorHandle) -> None:
    without = signer.Signer(d.TEMP_ACCESS_KEY, d.TEMP_SECRET_KEY, project_id=d.DEFAULT_PROJECT_ID)
    refused(send(emulator, without), "verify security token fail")
    wrong = signer.Signer(d.TEMP_ACCESS_KEY, d.TEMP_SECRET_KEY, "not-the-token", project_id=d.DEFAULT_PROJECT_ID)
    refused(send(emulator, wrong), "verify security token fail")
    right = signer.Signer(d.TEMP_ACCESS_KEY, d.TEMP_SECRET_KEY, d.TEMP_SECURITY_TOKEN, project_id=d.DEFAULT_PROJECT_ID)
    assert send(emulator, right).status_code == 200


def test_the_project_header_must_match_the_url(emulator: EmulatorHandle) -> None:
    response = send(emulator, keys(emulator, project_id=d.OTHER_PROJECT_ID))
    assert response.status_code == 403 and response.json()["error_code"] == "ModelArts.0210"
    assert send(emulator, keys(emulator)).status_code == 403  # no X-Project-Id at all


def test_iam_lists_projects_by_name_for_signed_callers(emulator: EmulatorHandle) -> None:
    response = send(emulator, keys(emulator), path=PROJECTS, params={"name": d.OTHER_PROJECT_NAME})
    assert response.status_code == 200, response.text
    assert [(p["id"], p["name"]) for p in response.json()["projects"]] == [(d.OTHER_PROJECT_ID, d.OTHER_PROJECT_NAME)]
    refused(send(emulator, keys(emulator, "wrong"), path=PROJECTS, params={"name": d.DEFAULT_PROJECT_NAME}),
            "verify aksk signature fail")
    with httpx.Client(**LOOPBACK) as http:
        assert http.get(emulator.url + PROJECTS).status_code == 401  # neither a token nor a signature


def test_token_auth_keeps_working(emulator: EmulatorHandle) -> None:
    login = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": emulator.iam_user, "password": emulator.iam_password, "domain": {"name": emulator.iam_domain}}}},
        "scope": {"project": {"name": emulator.project_name}}}}
    with httpx.Client(base_url=emulator.url, **LOOPBACK) as http:
        token = http.post("/v3/auth/tokens", json=login).headers["X-Subject-Token"]
        assert http.get(FLAVORS, headers={"X-Auth-Token": token}).status_code == 200
        assert http.get(PROJECTS, headers={"X-Auth-Token": token}).status_code == 200






