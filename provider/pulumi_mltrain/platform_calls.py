"""What a platform supplies for one resource type (`PlatformCalls`), and what it is given (`Context`).

The handler (`handler.py`) runs every operation the same way for every resource. What differs per
resource is declared here: its inputs and outputs, its timeouts, and the few primitives the platform
answers (create, read, update, delete, the look for its own object, checks against the catalogues).
The handler makes one `PlatformCalls` per operation, given the `Context` of that operation: the account
the resource names, whether derived outputs are computed, whether the create replaces a resource of
the state. A platform class reads those from `self.context` and calls down into the lifecycles
(`lifecycle/`) and its client; it never calls back into the handler, and the handler never into it
except through the methods below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from . import cache
from . import spec as specs
from .config import CONFIG_KEYS, Settings
from .errors import ApiError, MltrainError
from .lifecycle.protocol import Listing
from .ownership import Mark
from .spec import ManagedSpec

SpecT = TypeVar("SpecT", bound=ManagedSpec)
OutT = TypeVar("OutT", bound=specs.Output)
C = TypeVar("C")
# Inputs and outputs as the engine passes them (JSON values, secrets unwrapped).
Props = dict[str, object]
# (field, reason) of an input the platform refuses; the field is empty for the whole resource.
Failures = list[tuple[str, str]]


@dataclass(frozen=True)
class Context:
    """What one operation gives the platform calls: passed, never looked up."""

    settings: Settings  # the account: the resource's explicit provider, else the configured one
    replacing: bool = False  # the create replaces a resource the state holds (`lifecycle.takeover`)

    def client(self, name: str, build: Callable[[Settings], C]) -> C:
        """One client per platform and settings in this process, shared by its threads (`cache.py`)."""
        found: C = cache.client(name, self.settings.fingerprint(), lambda: build(self.settings))
        return found


class PlatformCalls(Generic[SpecT, OutT]):
    """One resource type on its platform. A subclass sets the declaration and implements `create`,
    `read` and `delete`; the other calls default to "the platform has nothing to do here"."""

    kind: ClassVar[str] = "Resource"
    noun: ClassVar[str] = "object"
    spec_type: type[SpecT]
    output_type: type[OutT]
    default_timeouts: ClassVar[dict[str, float]] = {"create": 1200.0, "update": 600.0, "delete": 1200.0}
    # The config keys whose credentials `check_remote` exercises (named when the platform refuses them).
    credential_keys: ClassVar[tuple[str, ...]] = ()
    # Types whose ID is made of inputs (no remote object of its own): the fields, in the ID's order.
    import_id_fields: ClassVar[tuple[str, ...]] = ()
    # Outputs a create records once (e.g. what a gate read) that a refresh keeps as they are.
    recorded_once: ClassVar[tuple[str, ...]] = ()
    # Whether the resource is a run (a training job): the handler keeps its `run_reason` (runs.py).
    runs: ClassVar[bool] = False
    # Derived outputs read from a catalogue, which a check of unchanged inputs takes from the stored
    # state instead: a no-change preview makes no API call.
    derived_kept: ClassVar[tuple[str, ...]] = ()

    def __init__(self, context: Context) -> None:
        self.context = context

    @property
    def settings(self) -> Settings:
        return self.context.settings

    @classmethod
    def configured(cls, settings: Settings) -> bool:
        """Whether `settings` hold credentials for this platform (else nothing is asked of it)."""
        return False

    @classmethod
    def label(cls, spec: SpecT) -> str:
        """The resource in messages (its name)."""
        return str(getattr(spec, "name", "") or "")

    @classmethod
    def timeout(cls, spec: SpecT, op: str, engine: float | None = None) -> float:
        """Seconds `op` may take: the `timeouts` input, else the engine's timeout, else the default."""
        chosen = getattr(spec.timeouts, op, None) if getattr(spec, "timeouts", None) else None
        given = engine if engine is not None and engine > 0 else None
        return float(chosen or given or cls.default_timeouts[op])

    # ----- the platform's answers ----------------------------------------------------------------
    def create(self, spec: SpecT, owner: Mark | None) -> tuple[str, Props]:
        """Make the object (once its unrecorded namesakes of this resource's mark are gone) and wait for it."""
        raise NotImplementedError

    def read(self, object_id: str, spec: SpecT) -> tuple[Props, Props | None] | None:
        """(outputs, the platform object in wire shape for drift detection, or None when it has none),
        or None when the platform reports the object on its way out. Raises NotFound when it says so."""
        raise NotImplementedError

    def delete(self, object_id: str, spec: SpecT) -> bool:
        """Remove the object; True when the platform accepted the delete and then stopped knowing the
        object (that answer needs no second look), False when it was not found before its delete was
        accepted (a listing is asked to agree first, as on read). Raises NotFound like False."""
        raise NotImplementedError

    def adopt(self, object_id: str, spec: SpecT, owner: Mark | None) -> Props:
        """Take an existing object under management (`adopt_id`, `pulumi import`): it is not this
        resource's own, so a wait that fails leaves it where it is (see `lifecycle/record.py`)."""
        raise MltrainError(f"{self.kind} cannot adopt existing objects")

    def take_over(self, object_id: str, spec: SpecT, owner: Mark | None) -> Props:
        """Finish the create of this resource's own object, whose ID the state already holds (the
        plugin's partially created resource); by default as `adopt` takes an object."""
        return self.adopt(object_id, spec, owner)

    def update(self, object_id: str, old: SpecT, new: SpecT, changed: list[str], owner: Mark | None) -> Props:
        return {}

    def objects(self) -> Listing | None:
        """The platform's objects of this kind (`lifecycle.protocol`), for the second look before
        "gone" is believed; None: the resource has no remote object of its own."""
        return None

    def check_remote(self, spec: SpecT) -> Failures:
        """Checks against the platform's catalogues, run at preview when credentials exist."""
        return []

    def last_state(self, olds: Props) -> str | None:
        """The object's state if it is live (a replace would stop it), else None."""
        return None

    def derived(self, spec: SpecT) -> Props:
        """Outputs that follow from the inputs alone: returned by `check`, so previews know them, and
        added by the handler to what a create, read or update records."""
        return {}

    def with_defaults(self, news: Props) -> tuple[Props, Failures]:
        """The inputs with the provider's defaults merged in (see ModelArts' default tags), and what
        is wrong with the merge."""
        return news, []

    def drift(self, spec: SpecT, values: Props) -> Props:
        """The drift a refresh records, of the declared inputs the platform holds differently."""
        return values

    # ----- shared by the platforms ----------------------------------------------------------------
    def refused_credentials(self, err: MltrainError) -> Failures | None:
        """A 401/403 while checking at preview is a failure naming the key to fix (not a skipped check)."""
        if isinstance(err, ApiError) and err.http_status in (401, 403) and not self.settings.skip_credential_check:
            keys = " / ".join(f"`{k}`" for k in self.credential_keys) or "the mltrain credentials"
            return [("", f"{err}. Fix {keys} (`pulumi config set --secret ...`); to preview without "
                         f"credentials, set `{CONFIG_KEYS['skip_credential_check']}` to true")]
        return None
