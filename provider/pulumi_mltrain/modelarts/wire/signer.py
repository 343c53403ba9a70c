"""Huawei API Gateway AK/SK signing (SDK-HMAC-SHA256) as an `httpx.Auth`.

Huawei recommends AK/SK over password tokens: nothing is fetched, nothing expires mid-run, and a
temporary key (with its security token) can be scoped and short-lived. The algorithm is the one the
API Request Signing Guide documents: a canonical request (method, URI ending in "/", sorted query,
signed headers, hex SHA-256 of the body) hashed into a string to sign, HMAC-SHA256'd with the secret
key. The secret key and the token are held with `repr=False` and never put in an error.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, unquote

import httpx

ALGORITHM = "SDK-HMAC-SHA256"
DATE_HEADER = "X-Sdk-Date"
DATE_FORMAT = "%Y%m%dT%H%M%SZ"
TOKEN_HEADER = "X-Security-Token"  # temporary keys only; signed like the others
PROJECT_HEADER = "X-Project-Id"  # ModelArts calls name their project
# Headers signed when present: enough to bind the call to its host, time, body type and scope, and
# none that a transport may rewrite after signing (Connection, Accept-Encoding).
SIGNED = ("content-type", "host", DATE_HEADER.lower(), PROJECT_HEADER.lower(), TOKEN_HEADER.lower())


def _encode(text: str) -> str:
    """RFC 3986 percent-encoding: everything but unreserved characters."""
    return quote(text, safe="~")


def canonical_uri(path: str) -> str:
    """Each segment URI-encoded (after decoding what the client encoded), ending in "/"."""
    uri = "/".join(_encode(unquote(part)) for part in path.split("/"))
    return uri if uri.endswith("/") else uri + "/"


def canonical_query(query: str) -> str:
    """Parameters URI-encoded and sorted by name, then value; "" when there are none."""
    pairs = sorted((_encode(k), _encode(v)) for k, v in parse_qsl(query, keep_blank_values=True))
    return "&".join(f"{k}={v}" for k, v in pairs)


def canonical_request(method: str, path: str, query: str, headers: Mapping[str, str],
                      signed: Sequence[str], body: bytes) -> str:
    """The canonical request; `headers` keyed in lower case, `signed` sorted lower-case names."""
    lines = "".join(f"{name}:{headers[name].strip()}\n" for name in signed)
    return "\n".join((method.upper(), canonical_uri(path), canonical_query(query), lines,
                      ";".join(signed), hashlib.sha256(body).hexdigest()))


def string_to_sign(canonical: str, date: str) -> str:
    return f"{ALGORITHM}\n{date}\n{hashlib.sha256(canonical.encode()).hexdigest()}"


def signature(secret_key: str, to_sign: str) -> str:
    return hmac.new(secret_key.encode(), to_sign.encode(), hashlib.sha256).hexdigest()


@dataclass(eq=False)
class Signer(httpx.Auth):
    """Signs every request with an AK/SK pair (plus the security token of a temporary key).

    `requires_request_body`: httpx reads the body before `auth_flow`, so it can be hashed. Each
    retry passes through here again and gets a fresh `X-Sdk-Date`.
    """

    access_key: str
    secret_key: str = field(repr=False)
    security_token: str | None = field(default=None, repr=False)
    project_id: str | None = None
    clock: Callable[[], float] = field(default=time.time, repr=False)

    requires_request_body = True

    def sign(self, request: httpx.Request) -> None:
        request.headers[DATE_HEADER] = time.strftime(DATE_FORMAT, time.gmtime(self.clock()))
        if self.security_token:
            request.headers[TOKEN_HEADER] = self.security_token
        if self.project_id:
            request.headers[PROJECT_HEADER] = self.project_id
        headers = {k.lower(): v for k, v in request.headers.items()}
        signed = sorted(h for h in SIGNED if h in headers)
        url = request.url
        canonical = canonical_request(request.method, url.path, url.query.decode("ascii"), headers, signed,
                                      request.content)
        sig = signature(self.secret_key, string_to_sign(canonical, headers[DATE_HEADER.lower()]))
        request.headers["Authorization"] = (f"{ALGORITHM} Access={self.access_key}, "
                                            f"SignedHeaders={';'.join(signed)}, Signature={sig}")

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        self.sign(request)
        yield request

    def __getstate__(self) -> Any:  # never pickled with its secret (the provider object is pickled)
        raise TypeError("a Signer holds a secret key and cannot be pickled")
