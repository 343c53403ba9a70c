"""The dynamic provider face: a thin adapter from `pulumi.dynamic` to a resource's `Handler`.

Each resource module defines its provider as `class XProvider(MltrainProvider[XHandler])` with
`handler_type = XHandler`; that class path is the registry's `target`, which the states of existing
stacks name (through `program.LazyProvider`), so it stays. The adapter converts the handler's results
into `CheckResult`, `DiffResult`, ... and nothing else: every rule lives in `handler.py`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar, cast

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

H = TypeVar("H", bound=Handler[Any, Any])


class MltrainProvider(ResourceProvider, Generic[H]):
    """A `pulumi.dynamic` provider serving one `Handler`."""

    serialize_as_secret_always = False  # the pickled provider is a class path: nothing secret in it
    handler_type: ClassVar[type[Handler[Any, Any]]] = Handler

    def __init__(self) -> None:
        self.handler: H = cast(H, self.handler_type())

    def configure(self, req: ConfigureRequest) -> None:
        self.handler.configure(Settings.load({key: req.config.get(key) for key in CONFIG_KEYS.values()}))

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        checked = self.handler.check(olds, news)
        return CheckResult(checked.inputs, [CheckFailure(f.property, f.reason) for f in checked.failures])

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        found = self.handler.diff(olds, news)
        return DiffResult(changes=found.changes, replaces=list(found.replaces),
                          delete_before_replace=found.delete_before_replace)

    def create(self, props: dict[str, Any]) -> CreateResult:
        # A job kept by on_failure="keep" is recorded with its FAILED_KEY: the program side raises it.
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
