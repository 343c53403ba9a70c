"""The dynamic provider face: a thin adapter from `pulumi.dynamic` to a resource's `Handler`.

`DynamicProvider` is the object Pulumi pickles into the state of every resource, twice (inputs and
outputs). A subclass names its resource by the registry's kind; the generator writes one per resource
(`pulumi_mltrain.alaya._resources:_TrainingJobProvider`, `kind = "alaya:TrainingJob"`, the class path
that the states of 0.1 and 0.2 name) and one shared instance of it beside it (`training_job`), which
the program side's resource classes use and the states now name. It is light on
purpose: the program side imports it, so it loads pulumi and the standard library only; the registry's
handler (pydantic, httpx, the platform) loads on its first call, in the provider process. The adapter
converts the handler's results into `CheckResult`, `DiffResult`, ... and nothing else: every rule lives
in `handler.py`.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any, ClassVar

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

if TYPE_CHECKING:
    from .handler import Handler


class DynamicProvider(ResourceProvider):
    """A `pulumi.dynamic` provider serving the handler of the registry's resource `kind`.

    Instances hold nothing until they run in the provider process, so the pickled form is a reference,
    the same for every resource of a kind (and carries no secret).
    """

    serialize_as_secret_always = False  # the pickled provider is a reference: nothing secret in it
    kind: ClassVar[str] = ""  # the registry's kind, "alaya:TrainingJob"
    shared_as: ClassVar[str] = ""  # the name of the kind's shared instance in the class's module
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {}  # a reference: never the handler, its settings or its clients

    def __reduce_ex__(self, protocol: Any) -> str | tuple[Any, ...]:
        """The shared instance pickles as its name in the module (63 B where the class reference,
        instance and empty state take 77), which every resource's state holds twice; any other
        instance as a class reference, the form of the states of 0.1 and 0.2, which still loads."""
        if self.shared_as and getattr(sys.modules[type(self).__module__], self.shared_as, None) is self:
            return self.shared_as
        return super().__reduce_ex__(protocol)

    @classmethod
    def shared(cls) -> DynamicProvider:
        """The kind's shared instance, the one the program side pickles."""
        found: DynamicProvider = getattr(sys.modules[cls.__module__], cls.shared_as)
        return found

    @property
    def handler(self) -> Handler[Any, Any, Any]:
        """The handler served, made by this provider's first call."""
        found: Handler[Any, Any, Any] | None = self.__dict__.get("_handler")
        if found is None:
            with self._lock:
                found = self.__dict__.get("_handler")
                if found is None:
                    found = self.__dict__["_handler"] = self._first_call()
        return found

    def _first_call(self) -> Handler[Any, Any, Any]:
        """The handler of `kind`, with the host set up for it. Imported here, not at the top: the
        program side imports this module, and the handler brings pydantic, httpx and the platform."""
        from . import registry
        from .host import cancel_on_engine_cancel, readable_errors, watch_host_engine, widen

        entry = registry.resource(f"{registry.PACKAGE}:{self.kind}")
        if entry is None:
            raise LookupError(f"{type(self).__qualname__}: the registry has no resource {self.kind!r}")
        widen()  # the first call in a dynamic provider host: one thread per call from now on
        watch_host_engine()  # and exit once the engine that started this host is gone
        readable_errors()  # and our errors reach people as their message, without our frames
        cancel_on_engine_cancel()  # and the engine's Cancel ends our waits
        return entry.handler()

    def configure(self, req: ConfigureRequest) -> None:
        from .config import CONFIG_KEYS, Settings

        self.handler.configure(Settings.load({key: req.config.get(key) for key in CONFIG_KEYS.values()}))

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        checked = self.handler.check(olds, news)
        return CheckResult(checked.inputs, [CheckFailure(f.property, f.reason) for f in checked.failures])

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        found = self.handler.diff(olds, news, _id)
        return DiffResult(changes=found.changes, replaces=list(found.replaces),
                          delete_before_replace=found.delete_before_replace)

    def create(self, props: dict[str, Any]) -> CreateResult:
        # A held failure or a wait the engine cancelled (UNFINISHED_KEY) is recorded with its error in
        # FAILED_KEY, which the program side raises (`program/resource.py`, `MltrainResource`).
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
