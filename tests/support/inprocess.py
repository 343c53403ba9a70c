"""The in-process tier: the handler of a resource type from the registry (`mltrain:<kind>`), as both faces
build it, configured like the engine's provider process would hold it and pointed at the emulator over
loopback HTTP.

What `create` returns is what the engine records, an exception records nothing; `diff` gives the
replaces and changes a preview shows, `read` what a refresh stores (None: the object is gone). Tests of
the provider's own logic run here, and the engine tests keep only what the engine decides.
"""

from __future__ import annotations

from typing import Any

from pulumi_mltrain import cache, registry
from pulumi_mltrain.config import Settings
from pulumi_mltrain.handler import Diff, Handler, Read
from pulumi_mltrain.modelarts.wire import iam

from .platforms import PLATFORMS, job_ids

# A handler of any resource type: what the tests hold.
AnyHandler = Handler[Any, Any, Any]

# The settings every stack of tests/support/stacks.py sets. `keepRuns` 0: the suite's guarantees of deletes
# and of nothing left behind are about deleting; the tests of run records set it themselves
# (tests/inprocess/test_run_records.py, tests/engine/test_run_history.py).
BASE_CONFIG = {"mltrain:requestTimeout": "5", "mltrain:maxRetries": "3", "mltrain:ambiguityGrace": "5",
               "mltrain:keepRuns": "0"}
# The owner marks the program side adds to every resource's inputs.
OWNER = {"__mltrain_stack": "st-inprocess", "__mltrain_urn": "urn:pulumi:test::inprocess::TrainingJob::job"}


def config(platform: str, emulator: Any) -> dict[str, str]:
    """The settings that point `platform` at the emulator, its secrets included."""
    return PLATFORMS[platform].settings(emulator)


def fresh_process() -> None:
    """Forget what a provider process caches (tokens, catalogues): each command starts a new one."""
    iam.forget_tokens()
    cache.forget()


def settings(platform: str, emulator: Any, **config: str) -> Settings:
    """The settings `stacks.platform_stack` gives a stack of `platform`, plus `config`."""
    return Settings.load({**PLATFORMS[platform].settings(emulator), **BASE_CONFIG, **config}, env={})


def entry(kind: str) -> registry.Resource:
    """The registry's resource of `kind` ("alaya:TrainingJob"), under its type token `mltrain:<kind>`."""
    found = registry.resource(f"{registry.PACKAGE}:{kind}")
    assert found is not None, kind
    return found


def serving(kind: str, settings: Settings) -> AnyHandler:
    """A new handler of `kind` from the registry, configured with `settings`, in this process as it is
    (nothing cached is forgotten: another handler of the same provider process)."""
    made = entry(kind).handler()
    made.configure(settings)
    return made


def handler(kind: str, emulator: Any, **config: str) -> AnyHandler:
    """The handler of `kind` ("alaya:TrainingJob") from the registry, as both faces build it, with
    `settings(<its family>, emulator, **config)`; a fresh process's view: no cached token, no cached
    catalogue."""
    fresh_process()
    return serving(kind, settings(entry(kind).family, emulator, **config))


def checked(handler: AnyHandler, props: dict[str, Any], olds: dict[str, Any] | None = None) -> dict[str, Any]:
    """The inputs `check` passes on for `props` (against the stored inputs `olds`); fails the test on any
    check failure."""
    result = handler.check(olds or {}, props)
    assert result.failures == (), [(f.property, f.reason) for f in result.failures]
    return dict(result.inputs)


def failures(handler: AnyHandler, props: dict[str, Any]) -> list[tuple[str, str]]:
    """What `check` refuses in `props`, as (property, reason): what a preview prints."""
    return failures_against(handler, {}, props)


def failures_against(handler: AnyHandler, olds: dict[str, Any], props: dict[str, Any]) -> list[tuple[str, str]]:
    """What `check` refuses in `props` for a resource whose stored inputs are `olds`."""
    return [(f.property, f.reason) for f in handler.check(olds, props).failures]


def read(handler: AnyHandler, object_id: str, state: dict[str, Any]) -> Read:
    """What a refresh stores for the object whose state is `state`; fails the test when the read finds
    it gone (the handler answers None)."""
    found = handler.read(object_id, state)
    assert found is not None, f"the read of {object_id} found it gone"
    return found


def platform_ids(emulator: Any, platform: str) -> list[str]:
    """The IDs of the training jobs the emulator holds for `platform` ("alaya"), sorted."""
    return job_ids(emulator, platform)


class Created:
    """A resource created in-process, and the state the engine would then hold for it.

    `refresh`, `preview` and `up` are the handler calls those commands make, each in a fresh process
    (nothing cached from the command before), in the engine's order:
    check against the stored inputs, diff against the stored outputs, then update in place or
    (delete-before-replace, as the handlers ask) delete and create again.
    """

    def __init__(self, handler: AnyHandler, props: dict[str, Any], name: str | None = "job") -> None:
        self.handler = handler
        self.declared = {**OWNER, **({} if name is None else {"name": name}), **props}
        self.inputs = checked(handler, self.declared)
        result = handler.create(self.inputs)
        self.id, self.state = result.id, {**self.inputs, **result.outputs}

    def refresh(self) -> dict[str, Any]:
        """What `pulumi refresh` stores as the inputs (the read's outputs become the state)."""
        fresh_process()
        read = self.handler.read(self.id, self.state)
        assert read is not None, "refresh dropped the resource"
        self.state = dict(read.outputs)
        if read.inputs is not None:  # none: the engine keeps the stored inputs
            self.inputs = dict(read.inputs)
        return self.inputs

    def preview(self) -> tuple[dict[str, Any], Diff]:
        """(what check passes on for the declared inputs, the diff a preview shows)."""
        fresh_process()
        news = checked(self.handler, self.declared, olds=self.inputs)
        return news, self.handler.diff(self.state, news, self.id)

    def up(self) -> Diff:
        """Puts the declared inputs back, as `pulumi up` does; returns the diff it acted on."""
        news, diff = self.preview()
        if diff.replaces:
            self.handler.delete(self.id, self.state)
            result = self.handler.create(news)
            self.id, self.state = result.id, {**news, **result.outputs}
        elif diff.changes:
            self.state = {**news, **self.handler.update(self.id, self.state, news).outputs}
        self.inputs = news
        return diff

    def delete(self) -> None:
        """What `pulumi destroy` runs for the resource."""
        self.handler.delete(self.id, self.state)
