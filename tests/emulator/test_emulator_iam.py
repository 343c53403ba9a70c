"""Huawei IAM password login, and how ModelArts judges the token it issued."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d

Login = Callable[..., httpx.Response]
FLAVORS = f"/v2/{d.DEFAULT_PROJECT_ID}/training-job-flavors"


def _when(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ")


def test_password_login_returns_201_and_the_token_header(emulator: EmulatorHandle, login: Login) -> None:
    response = login()
    assert response.status_code == 201
    token = response.headers["X-Subject-Token"]
    assert token.startswith("MII") and len(token) > 500
    body = response.json()["token"]
    assert body["methods"] == ["password"]
    assert body["project"]["id"] == d.DEFAULT_PROJECT_ID and body["project"]["name"] == d.DEFAULT_PROJECT_NAME
    assert body["user"]["name"] == d.DEFAULT_IAM_USER and body["catalog"] == []
    assert (_when(body["expires_at"]) - _when(body["issued_at"])).total_seconds() == 86400
    assert token not in response.text  # only in the header
    assert login().headers["X-Subject-Token"] != token  # each login issues a new token
    assert emulator.admin.state()["iam"]["tokens"] == 2


@pytest.mark.parametrize("wrong", [{"password": "nope"}, {"user": "someone"}, {"domain": "other"}])
def test_wrong_credentials_are_401(login: Login, wrong: dict[str, str]) -> None:
    response = login(**wrong)
    assert response.status_code == 401
    assert response.json() == {"error": {"code": 401, "title": "Unauthorized",
                                         "message": "The username or password is wrong."}}
    assert "X-Subject-Token" not in response.headers


def test_unknown_project_and_bad_bodies_are_400(http: httpx.Client, login: Login) -> None:
    assert login(project="xx-nowhere-1").status_code == 400
    assert http.post(d.IAM_TOKENS, content=b"{").status_code == 400
    no_method = {"auth": {"identity": {"methods": ["token"]}}}
    assert http.post(d.IAM_TOKENS, json=no_method).json()["error"]["code"] == 400


def test_scope_by_project_id(http: httpx.Client) -> None:
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": d.DEFAULT_IAM_USER, "password": d.DEFAULT_IAM_PASSWORD, "domain": {"name": d.DEFAULT_IAM_DOMAIN}}}},
        "scope": {"project": {"id": d.DEFAULT_PROJECT_ID}}}}
    response = http.post(d.IAM_TOKENS, json=body)
    assert response.status_code == 201
    assert response.json()["token"]["project"]["name"] == d.DEFAULT_PROJECT_NAME


def test_modelarts_rejects_missing_unknown_expired_and_foreign_tokens(
    emulator: EmulatorHandle, http: httpx.Client, login: Login, token: str
) -> None:
    def call(headers: dict[str, str]) -> tuple[int, str]:
        response = http.get(FLAVORS, headers=headers)
        return response.status_code, response.json().get("error_code", "")

    assert call({"X-Auth-Token": token})[0] == 200
    assert call({}) == (401, "ModelArts.0201")
    assert call({"X-Auth-Token": "MIIforged"}) == (401, "ModelArts.0203")
    foreign = login(project=d.OTHER_PROJECT_NAME).headers["X-Subject-Token"]
    assert call({"X-Auth-Token": foreign}) == (403, "ModelArts.0210")

    emulator.admin.advance(86400)
    assert call({"X-Auth-Token": token}) == (401, "ModelArts.0208")
    body = http.get(FLAVORS, headers={"X-Auth-Token": token}).json()
    assert set(body) == {"error_code", "error_msg", "error_solution"}
    fresh = login().headers["X-Subject-Token"]
    assert call({"X-Auth-Token": fresh})[0] == 200


def test_token_ttl_is_a_setting(emulator: EmulatorHandle, http: httpx.Client, login: Login) -> None:
    emulator.admin.set_settings(token_ttl=60)
    token = login().headers["X-Subject-Token"]
    emulator.admin.advance(59)
    assert http.get(FLAVORS, headers={"X-Auth-Token": token}).status_code == 200
    emulator.admin.advance(1)
    assert http.get(FLAVORS, headers={"X-Auth-Token": token}).json()["error_code"] == "ModelArts.0208"
