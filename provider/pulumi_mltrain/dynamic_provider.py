"""The dynamic provider face: a thin adapter from `pulumi.dynamic` to a resource's `Handler`.

`provider_for(XCalls)` builds the provider class of the platform calls that the registry names, once
per resource type. It is named after them (`pulumi_mltrain.alaya.training_job:TrainingJobProvider` for
`...:TrainingJobCalls`), the class path that states written by 0.1 name, which the platform module
resolves on first use (`registry.provider_aliases`): platform modules never import this adapter. The
adapter converts the handler's results into `CheckResult`, `DiffResult`, ... and nothing else: every
rule lives in `handler.py`.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar, Generic, TypeVar

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

from .config import CONFIG_KEYS, Settings
from .handler import Handler
from .platform_calls import PlatformCalls

P = TypeVar("P", bound=PlatformCalls[Any, Any, Any])


class MltrainProvider(ResourceProvider, Generic[P]):
    """A `pulumi.dynamic` provider serving the `Handler` of one resource type's platform calls."""

    serialize_as_secret_always = False  # the pickled provider is a class path: nothing secret in it
    calls_type: ClassVar[type[PlatformCalls[Any, Any, Any]]] = PlatformCalls

    def __init__(self) -> None:
        self._handler = Handler(self.calls_type)

    @property
    def handler(self) -> Handler[Any, Any, Any]:
        """The handler served (made here when an unpickled provider skipped `__init__`)."""
        found: Handler[Any, Any, Any] | None = self.__dict__.get("_handler")
        if found is None:
            found = self._handler = Handler(self.calls_type)
        return found

    def __getstate__(self) -> dict[str, Any]:
        return {}  # a class reference: never the handler, its settings or its clients

    def configure(self, req: ConfigureRequest) -> None:
        self.handler.configure(Settings.load({key: req.config.get(key) for key in CONFIG_KEYS.values()}))

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        checked = self.handler.check(olds, news)
        return CheckResult(checked.inputs, [CheckFailure(f.property, f.reason) for f in checked.failures])

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        found = self.handler.diff(olds, news, _id)
        return DiffResult(changes=found.changes, replaces=list(found.replaces),
                          delete_before_replace=found.delete_before_replace)

    def create(self, props: dict[str, Any]) -> CreateResult:
        # A held failure (FAILED_KEY) or a wait the engine cancelled (UNFINISHED_KEY) is recorded, and
        # the program side raises it (`program_resource.MltrainResource`).
        created = self.handler.create(props)
        return CreateResult(created.id, created.outputs)

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        found = self.handler.read(id_, props)
        if found is None:
            return ReadResult(None, {})  # gone: the engine drops it from the state
        return ReadResult(found.id, found.outputs, found.inputs)

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        return UpdateResult(self.handler.update(id_, olds, news).outputs)

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        self.handler.delete(id_, props)


_built: dict[type[PlatformCalls[Any, Any, Any]], type[MltrainProvider[Any]]] = {}
_lock = threading.Lock()


def provider_for(calls_type: type[PlatformCalls[Any, Any, Any]]) -> type[MltrainProvider[Any]]:
    """The dynamic provider class serving `calls_type`, made once: `XProvider` of the calls' module
    (for `XCalls`), so that it pickles under the path the platform module resolves."""
    with _lock:
        found = _built.get(calls_type)
        if found is None:
            name = calls_type.__name__.removesuffix("Calls") + "Provider"
            found = type(name, (MltrainProvider,), {
                "__module__": calls_type.__module__, "__qualname__": name, "calls_type": calls_type,
                "__doc__": f"The dynamic provider of {calls_type.__name__} (built by `provider_for`)."})
            _built[calls_type] = found
        return found
