"""A real S3-compatible server (moto's) on 127.0.0.1, and stacks whose state lives in it.

Team state is a DIY backend in a bucket: `pulumi login s3://...` once, then every command of every
teammate reads and writes the same objects, and the backend's lock file keeps two updates of one
stack from running at the same time. These helpers let the engine tests do exactly that.
"""

from __future__ import annotations

import json
import logging
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from .pulumi_cli import BIN, PulumiFailed, Stack, engine_env

REGION = "us-east-1"
AWS_ENV = {
    # moto accepts any key; real stores take the team's access key from the same variables.
    "AWS_ACCESS_KEY_ID": "mltrain-test",
    "AWS_SECRET_ACCESS_KEY": "mltrain-test-secret",
    "AWS_REGION": REGION,
    "AWS_EC2_METADATA_DISABLED": "true",  # no instance-metadata probe for credentials
}


class S3Server:
    """moto's threaded S3 server on a free loopback port, for the lifetime of a `with` block.

    The test side talks to it with boto3 and the same dummy key as the engine: moto refuses
    unsigned reads of objects that a signed client wrote."""

    def __init__(self) -> None:
        try:
            from moto.server import ThreadedMotoServer  # dev dependency: imported only when used
        except ImportError as exc:
            raise ImportError('the team-state tests need moto\'s S3 server: .venv/bin/pip install "moto[server]" '
                              "(part of the dev extra)") from exc

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.endpoint = ""
        self._client: Any = None

    def __enter__(self) -> S3Server:
        import boto3  # comes with moto[server]

        self._server.start()
        host, port = self._server.get_host_and_port()
        self.endpoint = f"{host}:{port}"
        self._client = boto3.client("s3", endpoint_url=f"http://{self.endpoint}", region_name=REGION,
                                    aws_access_key_id=AWS_ENV["AWS_ACCESS_KEY_ID"],
                                    aws_secret_access_key=AWS_ENV["AWS_SECRET_ACCESS_KEY"])
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._server.stop()

    @property
    def client(self) -> Any:
        assert self._client is not None, "use S3Server in a `with` block"
        return self._client

    def create_bucket(self, prefix: str = "mltrain-state") -> str:
        """A new bucket with a unique name (moto's buckets are process-wide)."""
        name = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.client.create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        """Every object key under `prefix`."""
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix,
                                                                      PaginationConfig={"MaxItems": 100_000})
        return [obj["Key"] for page in pages for obj in page.get("Contents", [])]

    def get(self, bucket: str, key: str) -> bytes:
        body: bytes = self.client.get_object(Bucket=bucket, Key=key)["Body"].read()
        return body

    def backend_url(self, bucket: str) -> str:
        """The `pulumi login` URL a team would use for an S3-compatible store over plain HTTP."""
        return (f"s3://{bucket}?endpoint={self.endpoint}&disableSSL=true&s3ForcePathStyle=true"
                f"&region={REGION}")


@dataclass
class S3Stack(Stack):
    """A `Stack` whose backend is the one `pulumi login` stored in its PULUMI_HOME (not a file backend)."""

    def env(self) -> dict[str, str]:
        env = super().env()
        env.pop("PULUMI_BACKEND_URL", None)  # would override the login
        env.update(AWS_ENV)
        env.update(self.env_extra)
        return env


def login(home: Path, backend_url: str) -> subprocess.CompletedProcess[str]:
    """`pulumi login <backend_url>` into `home`'s PULUMI_HOME, as a teammate does once per machine."""
    env = engine_env(home)
    env.pop("PULUMI_BACKEND_URL", None)
    env.update(AWS_ENV)
    argv = [str(BIN / "pulumi"), "login", backend_url, "--non-interactive"]
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False,
                            cwd=home)
    if result.returncode != 0:
        raise PulumiFailed(["login", backend_url], result)
    return result


def lock_keys(server: S3Server, bucket: str) -> list[str]:
    """The lock files of every stack in the bucket (`.pulumi/locks/...`)."""
    return [k for k in server.keys(bucket, ".pulumi/locks/") if k.endswith(".json")]


def history(server: S3Server, bucket: str, stack_name: str) -> list[dict[str, Any]]:
    """The update records the backend keeps for a stack, oldest first."""
    keys = sorted(k for k in server.keys(bucket, ".pulumi/history/")
                  if k.endswith(".history.json") and f"/{stack_name}/" in k)
    return [dict(json.loads(server.get(bucket, k))) for k in keys]
