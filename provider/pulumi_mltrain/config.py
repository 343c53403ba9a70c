"""Endpoints and credentials: from stack config (`mltrain:*`) or the environment, never from inputs.

They are read in the dynamic provider's `configure()`, so they stay out of resource inputs,
outputs, the pickled provider and therefore the state file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from .errors import ConfigError

# One row per setting: (python name, config key, environment variable, secret?).
_KEYS: tuple[tuple[str, str, str, bool], ...] = (
    ("alaya_endpoint", "alayaEndpoint", "MLTRAIN_ALAYA_ENDPOINT", False),
    ("alaya_api_key", "alayaApiKey", "MLTRAIN_ALAYA_API_KEY", True),
    ("iam_endpoint", "huaweiIamEndpoint", "MLTRAIN_HUAWEI_IAM_ENDPOINT", False),
    ("modelarts_endpoint", "modelartsEndpoint", "MLTRAIN_MODELARTS_ENDPOINT", False),
    ("project_id", "huaweiProjectId", "MLTRAIN_HUAWEI_PROJECT_ID", False),
    ("project_name", "huaweiProjectName", "MLTRAIN_HUAWEI_PROJECT_NAME", False),
    ("user", "huaweiUser", "MLTRAIN_HUAWEI_USER", False),
    ("domain", "huaweiDomain", "MLTRAIN_HUAWEI_DOMAIN", False),
    ("password", "huaweiPassword", "MLTRAIN_HUAWEI_PASSWORD", True),
    ("insecure_skip_tls_verify", "insecureSkipTlsVerify", "MLTRAIN_INSECURE_SKIP_TLS_VERIFY", False),
    ("request_timeout", "requestTimeout", "MLTRAIN_REQUEST_TIMEOUT", False),
    ("max_retries", "maxRetries", "MLTRAIN_MAX_RETRIES", False),
    ("ambiguity_grace", "ambiguityGrace", "MLTRAIN_AMBIGUITY_GRACE", False),
    ("skip_credential_check", "skipCredentialCheck", "MLTRAIN_SKIP_CREDENTIAL_CHECK", False),
)
CONFIG_KEYS = {name: f"mltrain:{key}" for name, key, _, _ in _KEYS}
ENV_VARS = {name: env for name, _, env, _ in _KEYS}


class Settings(BaseModel):
    """Everything the platform clients need; secrets are SecretStr so they never print."""

    model_config = ConfigDict(frozen=True)

    alaya_endpoint: str = "https://api.alayanew.com"
    alaya_api_key: SecretStr | None = None
    iam_endpoint: str | None = None
    modelarts_endpoint: str | None = None
    project_id: str | None = None
    project_name: str | None = None
    user: str | None = None
    domain: str | None = None
    password: SecretStr | None = None
    insecure_skip_tls_verify: bool = False
    request_timeout: float = Field(30.0, gt=0)
    max_retries: int = Field(5, ge=0, le=20)
    # How long to look for an object whose create call went unanswered before sending it again.
    ambiguity_grace: float = Field(30.0, ge=0)
    # Previews normally fail when the platform refuses the credentials; CI previews without secrets
    # (or with read-only keys) can switch that off.
    skip_credential_check: bool = False

    @classmethod
    def load(cls, config: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> Settings:
        """Stack config first, then the environment; keys may come with or without `mltrain:`."""
        config = config or {}
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for name, key, var, _ in _KEYS:
            value = config.get(f"mltrain:{key}", config.get(key))
            if value in (None, ""):
                value = env.get(var)
            if value not in (None, ""):
                values[name] = value
        try:
            return cls(**values)
        except ValueError as err:
            raise ConfigError(f"invalid mltrain configuration: {err}") from None

    def require(self, name: str, purpose: str) -> str:
        value = getattr(self, name)
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if not value:
            secret = "--secret " if name in ("alaya_api_key", "password") else ""
            raise ConfigError(
                f"{purpose} needs `{CONFIG_KEYS[name]}`: run `pulumi config set {secret}{CONFIG_KEYS[name]} ...` "
                f"or set {ENV_VARS[name]}"
            )
        return str(value)
