"""The in-process tier: a provider object configured like the engine's provider process would hold it,
pointed at the emulator over loopback HTTP.

What `create` returns is what the engine records, an exception records nothing; `diff` gives the
replaces and changes a preview shows, `read` what a refresh stores. Tests of the provider's own logic
run here, and the engine tests keep only what the engine decides.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pulumi_mltrain import cache
from pulumi_mltrain.config import Settings
from pulumi_mltrain.modelarts import iam
from pulumi_mltrain.resource import MltrainProvider

P = TypeVar("P", bound=MltrainProvider)

# The settings every stack of tests/support/stacks.py sets.
BASE_CONFIG = {"mltrain:requestTimeout": "5", "mltrain:maxRetries": "3", "mltrain:ambiguityGrace": "5"}
# The owner marks the program side adds to every resource's inputs.
OWNER = {"__mltrain_stack": "st-inprocess", "__mltrain_urn": "urn:pulumi:test::inprocess::TrainingJob::job"}


def alaya_config(emulator: Any) -> dict[str, str]:
    return {"mltrain:alayaEndpoint": emulator.url, "mltrain:alayaApiKey": emulator.alaya_api_key}


def modelarts_config(emulator: Any) -> dict[str, str]:
    return {"mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
            "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiProjectId": emulator.project_id,
            "mltrain:huaweiUser": emulator.iam_user, "mltrain:huaweiDomain": emulator.iam_domain,
            "mltrain:huaweiPassword": emulator.iam_password}


def configured(provider: P, platform: str, emulator: Any, **config: str) -> P:
    """`provider` with the settings `stacks.alaya_stack`/`stacks.modelarts_stack` give a stack, plus
    `config`; a fresh process's view: no cached token, no cached catalogue."""
    iam.forget_tokens()
    cache._cache.clear()
    platform_config = alaya_config(emulator) if platform == "alaya" else modelarts_config(emulator)
    provider._settings = Settings.load({**platform_config, **BASE_CONFIG, **config}, env={})
    return provider


def checked(provider: Any, props: dict[str, Any], olds: dict[str, Any] | None = None) -> dict[str, Any]:
    """The inputs `check` passes on; fails the test on any check failure."""
    result = provider.check(olds or {}, props)
    assert result.failures == [], [(f.property, f.reason) for f in result.failures]
    return dict(result.inputs)


def failures(provider: Any, props: dict[str, Any]) -> list[tuple[str, str]]:
    """What `check` refuses in `props`, as (property, reason): what a preview prints."""
    return [(f.property, f.reason) for f in provider.check({}, props).failures]


def platform_ids(emulator: Any, platform: str) -> list[str]:
    state = emulator.admin.state()
    if platform == "alaya":
        return sorted(str(t["id"]) for t in state["alaya"]["tasks"])
    return sorted(str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"])
