"""The API gateway's AK/SK check (SDK-HMAC-SHA256), as IAM and ModelArts apply it before a handler.

Written from the API Request Signing Guide independently of the provider's signer, so the two check
each other. Every refusal is 401 with the gateway's body `{error_code, error_msg, request_id}` and
code APIGW.0301 ("Incorrect IAM authentication information: ..."); the messages are kept here.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import uuid
from calendar import timegm
from dataclasses import dataclass
from time import gmtime, strftime, strptime
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Request

from .. import defaults as d
from .errors import ModelArtsError

ALGORITHM = "SDK-HMAC-SHA256"
IAM_AUTH_FAILED = "APIGW.0301"
# Refusals, by cause: the message after "Incorrect IAM authentication information: ".
MESSAGES = {
    "format": "Authorization format incorrect",
    "unknown_key": "Get secretKey failed, ak:{ak}, err:ak not exist",
    "no_date": "x-sdk-date not found or invalid",
    "expired": "signature expired, signature time:{date}, server time:{now}",
    "unsigned_date": "x-sdk-date is not in SignedHeaders",
    "token": "verify security token fail",
    "signature": "verify aksk signature fail",
}
_AUTH = re.compile(r"SDK-HMAC-SHA256\s+Access=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})")


@dataclass(frozen=True)
class AccessKey:
    access_key: str
    secret_key: str
    security_token: str | None = None  # set for temporary keys: X-Security-Token must carry it


KEYS = {k.access_key: k for k in (
    AccessKey(d.DEFAULT_ACCESS_KEY, d.DEFAULT_SECRET_KEY),
    AccessKey(d.TEMP_ACCESS_KEY, d.TEMP_SECRET_KEY, d.TEMP_SECURITY_TOKEN),
)}


class GatewayError(ModelArtsError):
    """A refusal by the gateway in front of IAM and ModelArts (its own body shape)."""

    def __init__(self, cause: str, **details: str) -> None:
        super().__init__(401, IAM_AUTH_FAILED,
                         f"Incorrect IAM authentication information: {MESSAGES[cause].format(**details)}")
        self.cause = cause

    def body(self) -> dict[str, Any]:
        return {"error_code": self.code, "error_msg": self.message, "request_id": uuid.uuid4().hex}


def is_signed(request: Request) -> bool:
    return request.headers.get("authorization", "").startswith(ALGORITHM)


def _uri(path: str) -> str:
    encoded = "/".join(quote(unquote(seg), safe="~") for seg in path.split("/"))
    return encoded if encoded.endswith("/") else encoded + "/"


def _query(raw: bytes) -> str:
    pairs = []
    for part in raw.decode("latin-1").split("&") if raw else []:
        key, _, value = part.partition("=")
        pairs.append((quote(unquote(key.replace("+", " ")), safe="~"),
                      quote(unquote(value.replace("+", " ")), safe="~")))
    return "&".join(f"{k}={v}" for k, v in sorted(pairs))


def _epoch(date: str) -> float | None:
    try:
        return float(timegm(strptime(date, "%Y%m%dT%H%M%SZ")))
    except ValueError:
        return None


async def verify(request: Request, now: float) -> AccessKey:
    """The key that signed `request`, or GatewayError saying why the signature is refused."""
    found = _AUTH.fullmatch(request.headers.get("authorization", "").strip())
    if found is None:
        raise GatewayError("format")
    access, signed_text, claimed = found.groups()
    key = KEYS.get(access)
    if key is None:
        raise GatewayError("unknown_key", ak=access)
    signed = signed_text.split(";")
    date = request.headers.get("x-sdk-date", "")
    at = _epoch(date)
    if at is None:
        raise GatewayError("no_date")
    if "x-sdk-date" not in signed:
        raise GatewayError("unsigned_date")
    if abs(now - at) > d.SIGNATURE_WINDOW:
        raise GatewayError("expired", date=date, now=strftime("%Y%m%dT%H%M%SZ", gmtime(now)))
    if key.security_token is not None and request.headers.get("x-security-token") != key.security_token:
        raise GatewayError("token")
    if any(name not in request.headers for name in signed):
        raise GatewayError("signature")
    headers = "".join(f"{name}:{request.headers[name].strip()}\n" for name in signed)
    canonical = "\n".join((request.method.upper(), _uri(request.url.path), _query(request.scope["query_string"]),
                           headers, signed_text, hashlib.sha256(await request.body()).hexdigest()))
    to_sign = f"{ALGORITHM}\n{date}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    expected = hmac.new(key.secret_key.encode(), to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, claimed):
        raise GatewayError("signature")
    return key
