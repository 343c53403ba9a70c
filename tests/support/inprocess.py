"""The in-process tier: a provider object configured like the engine's provider process would hold it,
pointed at the emulator over loopback HTTP.

What `create` returns is what the engine records, an exception records nothing; `diff` gives the
replaces and changes a preview shows, `read` what a refresh stores. Tests of the provider's own logic
run here, and the engine tests keep only what the engine decides.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pulumi_mltrain import cache, registry
from pulumi_mltrain.config import Settings
from pulumi_mltrain.dynamic_provider import MltrainProvider
from pulumi_mltrain.handler import Handler
from pulumi_mltrain.modelarts import iam

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


def fresh_process() -> None:
    """Forget what a provider process caches (tokens, catalogues): each command starts a new one."""
    iam.forget_tokens()
    cache.forget()


def settings(platform: str, emulator: Any, **config: str) -> Settings:
    """The settings `stacks.alaya_stack`/`stacks.modelarts_stack` give a stack of `platform`, plus `config`."""
    platform_config = alaya_config(emulator) if platform == "alaya" else modelarts_config(emulator)
    return Settings.load({**platform_config, **BASE_CONFIG, **config}, env={})


def configured(provider: P, platform: str, emulator: Any, **config: str) -> P:
    """`provider` with `settings(platform, emulator, **config)`; a fresh process's view: no cached
    token, no cached catalogue."""
    fresh_process()
    provider.handler.configure(settings(platform, emulator, **config))
    return provider


def handler(kind: str, emulator: Any, **config: str) -> Handler[Any, Any, Any]:
    """The handler of `kind` ("alaya:TrainingJob") from the registry, as both faces build it, configured
    like `configured` configures a provider."""
    entry = registry.resource(f"{registry.PACKAGE}:{kind}")
    assert entry is not None, kind
    fresh_process()
    made = entry.handler()
    made.configure(settings(entry.family, emulator, **config))
    return made


def check(handler: Handler[Any, Any, Any], props: dict[str, Any], olds: dict[str, Any] | None = None) -> dict[str, Any]:
    """The handler's checked inputs for `props`; fails the test on any check failure."""
    result = handler.check(olds or {}, props)
    assert result.failures == (), result.failures
    return dict(result.inputs)


def checked(provider: Any, props: dict[str, Any], olds: dict[str, Any] | None = None) -> dict[str, Any]:
    """The inputs `check` passes on; fails the test on any check failure."""
    result = provider.check(olds or {}, props)
    assert result.failures == [], [(f.property, f.reason) for f in result.failures]
    return dict(result.inputs)


def failures(provider: Any, props: dict[str, Any]) -> list[tuple[str, str]]:
    """What `check` refuses in `props`, as (property, reason): what a preview prints."""
    return failures_against(provider, {}, props)


def failures_against(provider: Any, olds: dict[str, Any], props: dict[str, Any]) -> list[tuple[str, str]]:
    """What `check` refuses in `props` for a resource whose stored inputs are `olds`."""
    return [(f.property, f.reason) for f in provider.check(olds, props).failures]


def platform_ids(emulator: Any, platform: str) -> list[str]:
    state = emulator.admin.state()
    if platform == "alaya":
        return sorted(str(t["id"]) for t in state["alaya"]["tasks"])
    return sorted(str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"])


class Created:
    """A resource created in-process, and the state the engine would then hold for it.

    `refresh`, `preview` and `up` are the provider calls those commands make, each in a fresh process
    (nothing cached from the command before), in the engine's order:
    check against the stored inputs, diff against the stored outputs, then update in place or
    (delete-before-replace, as the providers ask) delete and create again.
    """

    def __init__(self, provider: MltrainProvider, props: dict[str, Any], name: str | None = "job") -> None:
        self.provider = provider
        self.declared = {**OWNER, **({} if name is None else {"name": name}), **props}
        self.inputs = checked(provider, self.declared)
        result = provider.create(self.inputs)
        self.id, self.state = str(result.id), {**self.inputs, **dict(result.outs or {})}

    def refresh(self) -> dict[str, Any]:
        """What `pulumi refresh` stores as the inputs (the read's outputs become the state)."""
        fresh_process()
        read = self.provider.read(self.id, self.state)
        assert read.id == self.id, "refresh dropped the resource"
        self.state = dict(read.outs or {})
        self.inputs = dict(getattr(read, "inputs", None) or self.state)
        return self.inputs

    def preview(self) -> tuple[dict[str, Any], Any]:
        """(what check passes on for the declared inputs, the diff a preview shows)."""
        fresh_process()
        news = checked(self.provider, self.declared, olds=self.inputs)
        return news, self.provider.diff(self.id, self.state, news)

    def up(self) -> Any:
        """Puts the declared inputs back, as `pulumi up` does; returns the diff it acted on."""
        news, diff = self.preview()
        if diff.replaces:
            self.provider.delete(self.id, self.state)
            result = self.provider.create(news)
            self.id, self.state = str(result.id), {**news, **dict(result.outs or {})}
        elif diff.changes:
            self.state = {**news, **dict(self.provider.update(self.id, self.state, news).outs or {})}
        self.inputs = news
        return diff
