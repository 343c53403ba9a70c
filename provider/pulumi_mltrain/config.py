"""Endpoints and credentials: from stack config (`mltrain:*`) or the environment, never from inputs.

They are read in the dynamic provider's `configure()`, so they stay out of resource inputs,
outputs, the pickled provider and therefore the state file.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from . import settings as table
from .errors import ConfigError

# From the one table of settings (`settings.py`).
CONFIG_KEYS = {s.name: s.config_key for s in table.CONFIG}
ENV_VARS = {s.name: s.env for s in table.CONFIG}
SECRETS = frozenset(table.CREDENTIALS)
# The names Huawei's own tools read (its SDKs, then its Terraform provider), after ours.
FALLBACK_ENV: dict[str, tuple[str, ...]] = {s.name: s.fallback_env for s in table.CONFIG if s.fallback_env}


def env_value(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """A setting from the environment: our MLTRAIN_* name first, then Huawei's own names."""
    env = os.environ if env is None else env
    for var in (ENV_VARS[name], *FALLBACK_ENV.get(name, ())):
        if env.get(var):
            return env[var]
    return None


_REGION = re.compile(r"[a-z]{2,}(-[a-z]+)+-[0-9]+")  # cn-north-4, ap-southeast-1, eu-west-101
_ENDPOINTS = ("alaya_endpoint", "iam_endpoint", "modelarts_endpoint")


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost: plain HTTP there never leaves the machine."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def endpoint_problem(url: str) -> str | None:
    """What is wrong with an endpoint URL (scheme parsed, any case), or None if it is usable."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        parts.port  # noqa: B018 -- raises ValueError on a malformed port
    except ValueError as err:
        return f"is not a valid URL ({err}); use https://<host>[/path]"
    if parts.scheme.lower() not in ("http", "https"):
        shown = f"scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        return f"has {shown}; use https://<host>[/path]"
    if not host:
        return "has no host; use https://<host>[/path]"
    return None


class Settings(BaseModel):
    """Everything the platform clients need; secrets are SecretStr so they never print. One field per
    setting of `settings.CONFIG` (its defaults; tests/unit/test_settings_table.py checks they agree)."""

    model_config = ConfigDict(frozen=True)
    _fingerprint: str | None = PrivateAttr(default=None)

    alaya_endpoint: str = table.DEFAULTS["alaya_endpoint"]
    alaya_api_key: SecretStr | None = None
    iam_endpoint: str | None = None
    modelarts_endpoint: str | None = None
    project_id: str | None = None
    project_name: str | None = None
    user: str | None = None
    domain: str | None = None
    password: SecretStr | None = None
    # AK/SK signing (recommended by Huawei): a permanent key, or a temporary one with its token.
    access_key: str | None = None
    secret_key: SecretStr | None = None
    security_token: SecretStr | None = None
    # Derives https://iam.{region}.myhuaweicloud.com and https://modelarts.{region}.myhuaweicloud.com
    # (explicit endpoints win) and, without a project, the region's default project of the same name.
    region: str | None = None
    insecure_skip_tls_verify: bool = table.DEFAULTS["insecure_skip_tls_verify"]
    # Plain http:// to a host other than loopback sends API keys and passwords in the clear.
    allow_insecure_http: bool = table.DEFAULTS["allow_insecure_http"]
    request_timeout: float = Field(table.DEFAULTS["request_timeout"], gt=0, allow_inf_nan=False)
    max_retries: int = Field(table.DEFAULTS["max_retries"], ge=0, le=20)
    # How long to look for an object whose create call went unanswered before sending it again.
    ambiguity_grace: float = Field(table.DEFAULTS["ambiguity_grace"], ge=0)
    # Previews normally fail when the platform refuses the credentials; CI previews without secrets
    # (or with read-only keys) can switch that off.
    skip_credential_check: bool = table.DEFAULTS["skip_credential_check"]
    # The stack-wide default of every training job's `replace_running` (a job's own value wins), so a
    # team can make refusing to replace a live job the rule.
    replace_running: Literal["allow", "refuse"] | None = None
    # Tags merged into every ModelArts training job's and algorithm's `tags` (the resource's own win on
    # the same key), like pulumi-aws's defaultTags: a JSON map {key: value}.
    default_tags: dict[str, str] | None = None
    # IDs of held failed runs that the next `pulumi up` runs again (`rerun_runs`), as the setting gives them.
    rerun_failed: str | None = None
    # How many ended runs of a training job stay on the platform as records (a job's `keep_runs` wins).
    keep_runs: int = Field(table.DEFAULTS["keep_runs"], ge=0, le=100)

    @property
    def rerun_runs(self) -> frozenset[str]:
        """The run IDs `rerun_failed` names: separated by commas or spaces, or a JSON list."""
        text = (self.rerun_failed or "").strip()
        if text.startswith("["):
            try:
                items = json.loads(text)
            except ValueError:
                items = None
            if isinstance(items, list):
                return frozenset(str(item).strip() for item in items if str(item).strip())
        return frozenset(part for part in re.split(r"[\s,]+", text) if part)

    @field_validator("default_tags", mode="before")
    @classmethod
    def _tag_map(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = json.loads(value) if value.strip() else None
            except ValueError:
                raise ValueError(f"must be a JSON map of tags such as {{\"team\": \"ml\"}}, got {value!r}") from None
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise ValueError(f"must be a map of tags {{key: value}}, got {value!r}")
        out: dict[str, str] = {}
        for key, item in value.items():
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                raise ValueError(f"tag {key!r} has the value {item!r}; tag values are strings")
            out[str(key)] = item if isinstance(item, str) else str(item)
        problems = default_tag_problems(out)
        if problems:
            raise ValueError("; ".join(problems))
        return out

    @field_validator("max_retries", "keep_runs", mode="before")
    @classmethod
    def _whole_number(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
        if isinstance(value, float) and value.is_integer():
            return int(value)  # numbers cross the engine's RPC as floats (explicit provider settings)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be a whole number, got {value!r}")
        return value

    @model_validator(mode="before")
    @classmethod
    def _from_region(cls, values: Any) -> Any:
        region = values.get("region") if isinstance(values, dict) else None
        if not isinstance(region, str) or not region:
            return values
        region = region.strip()
        if not _REGION.fullmatch(region):
            raise ValueError(f"`{CONFIG_KEYS['region']}` ({ENV_VARS['region']}) = {region!r} is not a Huawei "
                             f"Cloud region name such as cn-north-4 or ap-southeast-1")
        derived = {"region": region, "iam_endpoint": f"https://iam.{region}.myhuaweicloud.com",
                   "modelarts_endpoint": f"https://modelarts.{region}.myhuaweicloud.com"}
        if not values.get("project_id") and not values.get("project_name"):
            derived["project_name"] = region
        return {**values, **{k: v for k, v in derived.items() if k == "region" or not values.get(k)}}

    @property
    def uses_aksk(self) -> bool:
        """AK/SK signing instead of password tokens: whenever an access key or secret key is set."""
        return bool(self.access_key or self.secret_key)

    @model_validator(mode="after")
    def _check_endpoints(self) -> Settings:
        for name in _ENDPOINTS:
            url: str | None = getattr(self, name)
            if url is None:
                continue
            key = f"`{CONFIG_KEYS[name]}` ({ENV_VARS[name]})"
            problem = endpoint_problem(url)
            if problem:
                raise ValueError(f"{key} = {url!r} {problem}")
            parts = urlsplit(url.strip())
            if parts.scheme.lower() == "http" and not is_loopback(parts.hostname or "") \
                    and not self.allow_insecure_http:
                raise ValueError(
                    f"{key} = {url!r} is plain http to a host that is not loopback, which would send credentials "
                    f"unencrypted; change {CONFIG_KEYS[name]} to https://, or set "
                    f"`pulumi config set {CONFIG_KEYS['allow_insecure_http']} true` "
                    f"({ENV_VARS['allow_insecure_http']}=true) to allow it"
                )
        return self

    @classmethod
    def load(cls, config: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> Settings:
        """Stack config first, then the environment; keys may come with or without `mltrain:`."""
        config = config or {}
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for setting in table.CONFIG:
            value = config.get(setting.config_key, config.get(setting.key))
            if value in (None, ""):
                value = env_value(setting.name, env)
            if value not in (None, ""):
                values[setting.name] = value
        try:
            return cls(**values)
        except ValidationError as err:
            problems = "; ".join(_describe(e) for e in err.errors())
            raise ConfigError(f"invalid mltrain configuration: {problems}") from None

    def fingerprint(self) -> str:
        """Tells settings apart, credentials included (a dump masks them), without holding them; made
        once per (frozen) settings object, since every operation looks its clients up by it."""
        found = self._fingerprint
        if found is None:
            secrets = "|".join(v.get_secret_value() if isinstance(v, SecretStr) else "" for v in
                               (self.alaya_api_key, self.password, self.secret_key, self.security_token))
            found = self._fingerprint = self.model_dump_json() + hashlib.sha256(secrets.encode()).hexdigest()
        return found

    def require(self, name: str, purpose: str) -> str:
        value = getattr(self, name)
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if not value:
            secret = "--secret " if name in SECRETS else ""
            raise ConfigError(
                f"{purpose} needs `{CONFIG_KEYS[name]}`: run `pulumi config set {secret}{CONFIG_KEYS[name]} ...` "
                f"or set {ENV_VARS[name]}"
            )
        return str(value)


# ModelArts' limit on the tags of one job or algorithm (the owner mark's two not counted).
MAX_TAGS = 20


def default_tag_problems(tags: Mapping[str, str]) -> list[str]:
    """What ModelArts or the owner mark would refuse in the default tags, one sentence each: the rules of
    a resource's `tags` (`modelarts.models.tag_problems`)."""
    from .modelarts.models import tag_problems

    return [f"tag {field.removeprefix('tags.')!r}: {why}" if field != "tags" else f"{why} on a job or algorithm"
            for field, why in tag_problems(dict(tags))]


def _describe(error: Any) -> str:
    """One pydantic error as `mltrain:key` (ENV): message — the key is what people change."""
    loc = error.get("loc") or ()
    message = str(error.get("msg", "")).removeprefix("Value error, ")
    name = loc[0] if loc else None
    if isinstance(name, str) and name in CONFIG_KEYS:
        return f"`{CONFIG_KEYS[name]}` ({ENV_VARS[name]}): {message}"
    return message
