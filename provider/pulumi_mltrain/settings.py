"""Every `mltrain:*` setting, declared once: its python name, stack config key, environment variable,
default, whether it is secret, and what it does.

Import-light (the standard library only): the program side reads it too. From this table come the
stack config and environment reading (`config.Settings.load`), the explicit provider's settings and the
default account's identity (`accounts.py`), the typed arguments of `pulumi_mltrain.Provider` (generated
by `python -m tools.generate` into `program/explicit_provider.py`), schema.json's `config` and `provider`
sections and the settings table of docs/installation-configuration.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["string", "boolean", "number", "integer", "map"]


@dataclass(frozen=True)
class Setting:
    name: str  # the python name: a field of config.Settings, an argument of pulumi_mltrain.Provider
    key: str  # the stack config key, without `mltrain:`
    env: str  # our environment variable (the fallback after the stack config)
    kind: Kind
    description: str  # one sentence or more, for schema.json, the Provider's docstring and the docs
    default: Any = None
    secret: bool = False
    fallback_env: tuple[str, ...] = ()  # the names Huawei's own tools read (its SDKs, its Terraform provider)
    shown_default: str | None = None  # what the docs say when the default is derived, not a value
    plugin_only: bool = False  # a setting of the native plugin's provider only (not stack config)
    see: str = ""  # a page of docs/ (with its anchor) the docs' table links to

    @property
    def config_key(self) -> str:
        return f"mltrain:{self.key}"

    @property
    def default_text(self) -> str:
        """The default as the docs write it ("" when there is none)."""
        if self.shown_default is not None:
            return self.shown_default
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, float):
            return f"{self.default:g}"
        return "" if self.default is None else str(self.default)

    @property
    def environment(self) -> tuple[str, ...]:
        """The environment variables read, in order (ours, then Huawei's own names)."""
        return (self.env, *self.fallback_env) if self.env else ()


# The order is schema.json's and the docs'.
SETTINGS: tuple[Setting, ...] = (
    Setting("alaya_endpoint", "alayaEndpoint", "MLTRAIN_ALAYA_ENDPOINT", "string",
            "The Alaya NeW Open API (some deployments prefix `/api/osm`: set `https://.../api/osm`).",
            default="https://api.alayanew.com"),
    Setting("alaya_api_key", "alayaApiKey", "MLTRAIN_ALAYA_API_KEY", "string",
            "The Alaya NeW Open API key (Bearer).", secret=True),
    Setting("iam_endpoint", "huaweiIamEndpoint", "MLTRAIN_HUAWEI_IAM_ENDPOINT", "string",
            "The Huawei IAM endpoint, e.g. `https://iam.cn-north-4.myhuaweicloud.com`.",
            shown_default="from the region"),
    Setting("modelarts_endpoint", "modelartsEndpoint", "MLTRAIN_MODELARTS_ENDPOINT", "string",
            "The ModelArts endpoint, e.g. `https://modelarts.cn-north-4.myhuaweicloud.com`.",
            shown_default="from the region"),
    Setting("project_id", "huaweiProjectId", "MLTRAIN_HUAWEI_PROJECT_ID", "string",
            "The Huawei project scope, by ID."),
    Setting("project_name", "huaweiProjectName", "MLTRAIN_HUAWEI_PROJECT_NAME", "string",
            "The Huawei project scope, by name.", shown_default="the region"),
    Setting("user", "huaweiUser", "MLTRAIN_HUAWEI_USER", "string",
            "The IAM user (password authentication)."),
    Setting("domain", "huaweiDomain", "MLTRAIN_HUAWEI_DOMAIN", "string",
            "The IAM account (domain) of the user (password authentication)."),
    Setting("password", "huaweiPassword", "MLTRAIN_HUAWEI_PASSWORD", "string",
            "The IAM password (used when no AK/SK is set).", secret=True),
    Setting("access_key", "huaweiAccessKey", "MLTRAIN_HUAWEI_ACCESS_KEY", "string",
            "The access key (AK) of AK/SK request signing, the recommended authentication.",
            fallback_env=("HUAWEICLOUD_SDK_AK", "HW_ACCESS_KEY")),
    Setting("secret_key", "huaweiSecretKey", "MLTRAIN_HUAWEI_SECRET_KEY", "string",
            "The secret key (SK) of AK/SK request signing.", secret=True,
            fallback_env=("HUAWEICLOUD_SDK_SK", "HW_SECRET_KEY")),
    Setting("security_token", "huaweiSecurityToken", "MLTRAIN_HUAWEI_SECURITY_TOKEN", "string",
            "The security token of a temporary AK/SK.", secret=True,
            fallback_env=("HUAWEICLOUD_SDK_SECURITY_TOKEN", "HW_SECURITY_TOKEN")),
    Setting("region", "huaweiRegion", "MLTRAIN_HUAWEI_REGION", "string",
            "A Huawei Cloud region such as `cn-north-4`: derives the IAM and ModelArts endpoints (explicit "
            "endpoints win) and, with no project set, the project name.", fallback_env=("HW_REGION_NAME",)),
    Setting("insecure_skip_tls_verify", "insecureSkipTlsVerify", "MLTRAIN_INSECURE_SKIP_TLS_VERIFY", "boolean",
            "Skip TLS certificate verification (an explicit opt-out).", default=False),
    Setting("allow_insecure_http", "allowInsecureHttp", "MLTRAIN_ALLOW_INSECURE_HTTP", "boolean",
            "Allow `http://` endpoints that are not loopback (credentials would travel unencrypted).",
            default=False),
    Setting("request_timeout", "requestTimeout", "MLTRAIN_REQUEST_TIMEOUT", "number",
            "The total time of one request in seconds: connect and the whole answer.", default=30.0),
    Setting("max_retries", "maxRetries", "MLTRAIN_MAX_RETRIES", "integer",
            "Retries of one request after an error, 0 to 20. A throttled request (429) is sent again, "
            "after the platform's Retry-After, until the operation's deadline.", default=5),
    Setting("ambiguity_grace", "ambiguityGrace", "MLTRAIN_AMBIGUITY_GRACE", "number",
            "Seconds to look for an object whose create went unanswered before sending the create again.",
            default=30.0, see="reliability.md"),
    Setting("skip_credential_check", "skipCredentialCheck", "MLTRAIN_SKIP_CREDENTIAL_CHECK", "boolean",
            "Previews without working credentials: do not fail on a refused key.", default=False),
    Setting("replace_running", "replaceRunning", "MLTRAIN_REPLACE_RUNNING", "string",
            "`refuse` or `allow`: the default of every training job's `replace_running` (a job's own value "
            "wins), so refusing to replace a live job can be the rule.", shown_default="(`allow`)"),
    Setting("default_tags", "defaultTags", "MLTRAIN_DEFAULT_TAGS", "map",
            "Tags merged into every ModelArts training job's and algorithm's tags (a resource's own win on "
            "the same key); the environment variable holds them as a JSON map.", see="#default-tags"),
    Setting("rerun_failed", "rerunFailed", "MLTRAIN_RERUN_FAILED", "string",
            "IDs of held failed runs to run again (comma- or space-separated): the next `pulumi up` replaces each "
            "training job whose held failure is one of them with a new run, once (the new run has another ID). "
            "Works from every language and from CI without changing the program.", see="runs.md#held-failures"),
    Setting("keep_runs", "keepRuns", "MLTRAIN_KEEP_RUNS", "integer",
            "How many ended runs of each training job stay on the platform as records after a replace or "
            "`pulumi destroy` (stopped first, never deleted until pruned); the oldest records beyond it are "
            "deleted. 0 deletes a replaced or destroyed run's job, as 0.2 did. A job's own `keep_runs` wins.",
            default=5, see="runs.md#run-history"),
    Setting("stack_identity", "stackIdentity", "", "string",
            "Native plugin only: the stack identity in owner marks and default names (default: the URN's "
            "project/stack). Set it when stacks of the same project and stack name in different backends "
            "share an account.", shown_default="a hash of the project and stack names", plugin_only=True,
            see="ownership.md#the-plugins-stack-identity"),
)

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
# The settings of the stack config, the environment and `pulumi_mltrain.Provider` (the dynamic form).
CONFIG: tuple[Setting, ...] = tuple(s for s in SETTINGS if not s.plugin_only)
CREDENTIALS: tuple[str, ...] = tuple(s.name for s in CONFIG if s.secret)
DEFAULTS: dict[str, Any] = {s.name: s.default for s in CONFIG if s.default is not None}
