"""One resource kind on its platform (`PlatformCalls`), and what each operation gives it (`Context`).

The handler (`handler.py`) runs every operation the same way for every resource, and the lifecycles
(`lifecycle/`) run the create, record, roll-back and removal once for all of them. What differs per
resource is one class of its platform: its declaration (inputs, outputs, timeouts, what it is), its
checks at preview, and the primitives of `lifecycle.protocol` (get, state, stop, delete, the look by
name, submit, resolve, mark, accept, and for a run what its create waits for and records). This base
holds the declaration's defaults and a "nothing to do here" answer for every primitive a kind may
lack; it holds no platform code, and a kind never calls into it for any.

The handler makes one instance per operation, given the `Context` of that operation: the account's
settings and its client, and whether the create replaces a resource of the state.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

from . import cache
from . import spec as specs
from .checkpoints import Resume
from .config import CONFIG_KEYS, Settings
from .errors import ApiError, MltrainError
from .lifecycle.protocol import Kept, MarkedRun, Named, Outs, Sent, Stop
from .ownership import Mark
from .progress import notice
from .spec import ManagedSpec
from .waiter import Backoff

SpecT = TypeVar("SpecT", bound=ManagedSpec)
OutT = TypeVar("OutT", bound=specs.Output)
RemoteT = TypeVar("RemoteT")  # the platform's answer for one object
C = TypeVar("C")
# Inputs and outputs as the engine passes them (JSON values, secrets unwrapped).
Props = dict[str, object]
# (field, reason) of an input the platform refuses; the field is empty for the whole resource.
Failures = list[tuple[str, str]]


@dataclass(frozen=True)
class Context:
    """What one operation gives a resource kind: passed, never looked up."""

    settings: Settings  # the account: the resource's explicit provider, else the configured one
    owner: Mark | None = None  # the resource's owner mark: what it says is said under its URN
    resume: Resume = field(default_factory=Resume)  # a create: does its run resume, and from which run
    run_reason: str | None = None  # a create's: why its run starts (runs.py), for a platform that keeps it

    def say(self, text: str) -> None:
        """A line for the user about this resource, shown by both forms (`progress.notice`)."""
        notice(text, self.owner)

    def client(self, family: str, build: Callable[[Settings], C]) -> C:
        """The `family` client of these settings, one per platform and settings in this process, shared by
        its threads and the program-time functions (`cache.py`); built on first use, so a preview
        without credentials builds none."""
        found: C = cache.client(family, self.settings.fingerprint(), lambda: build(self.settings))
        return found


class PlatformCalls(Generic[SpecT, OutT, RemoteT]):
    """One resource kind on its platform: the declaration and the defaults of its primitives."""

    kind: ClassVar[str] = "Resource"
    noun: ClassVar[str] = "object"  # the platform object in messages ("task")
    described: ClassVar[str] = ""  # the resource in messages, when not its noun ("training task")
    platform: ClassVar[str] = ""
    spec_type: type[SpecT]
    output_type: type[OutT]
    default_timeouts: ClassVar[dict[str, float]] = {"create": 1200.0, "update": 600.0, "delete": 1200.0}
    # The budgets of the operations that neither the engine nor the `timeouts` input time, in seconds: a
    # check (the catalogue look-ups of a preview, the state look of replace_running="refuse"), a diff
    # (nothing remote), a refresh's read (a read, and a listing before "not found" is believed), and the
    # look for a failed create's object (a listing and a read, after the create's own deadline).
    fixed_timeouts: ClassVar[dict[str, float]] = {"check": 120.0, "diff": 30.0, "read": 300.0, "survivor": 30.0}
    # The config keys whose credentials `check_remote` exercises (named when the platform refuses them).
    credential_keys: ClassVar[tuple[str, ...]] = ()
    # Types whose ID is made of inputs (no remote object of its own): the fields, in the ID's order.
    import_id_fields: ClassVar[tuple[str, ...]] = ()
    # Outputs a create records once (e.g. what a gate read) that a refresh keeps as they are: those the
    # output model declares `kept="once"` (`spec.output_field`).
    recorded_once: ClassVar[tuple[str, ...]] = ()
    # Whether the resource is a run (a training job): the create waits for it and the handler keeps its
    # `run_reason` (runs.py).
    runs: ClassVar[bool] = False
    # Whether the resource has an object of its own on the platform (a delete removes it).
    removes: ClassVar[bool] = True
    # Derived outputs read from a catalogue, which a check of unchanged inputs takes from the stored
    # state instead (a no-change preview makes no API call): those declared `kept="derived"`.
    derived_kept: ClassVar[tuple[str, ...]] = ()
    poll: ClassVar[Backoff] = Backoff()
    pending_states: ClassVar[frozenset[str]] = frozenset()
    # Whether the platform refuses a name any of its objects holds (a kept record's too): a new run of
    # a name the provider chose then gets a name of its own (`ownership.Mark.run_name`).
    unique_names: ClassVar[bool] = False
    # Whether a delete of a run keeps its job as the run's record (lifecycle/records.py, `keep_runs`).
    keeps_records: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        declared: type[specs.Output] | None = cls.__dict__.get("output_type")
        if declared is not None:
            cls.recorded_once = cls.__dict__.get("recorded_once", tuple(declared.flagged("once")))
            cls.derived_kept = cls.__dict__.get("derived_kept", tuple(declared.flagged("derived")))

    def __init__(self, context: Context) -> None:
        self.context = context
        self.settings = context.settings

    @classmethod
    def configured(cls, settings: Settings) -> bool:
        """Whether `settings` hold credentials for this platform (else nothing is asked of it)."""
        return False

    @classmethod
    def label(cls, fields: Mapping[str, object]) -> str:
        """The resource in messages (its name), from its fields as given: a check labels inputs that may
        not be valid, so no spec is built for it (a `model_construct` fills every default, which took more
        of a check's CPU than its validation)."""
        return str(fields.get("name") or "")

    @classmethod
    def timeout(cls, spec: SpecT, op: str, engine: float | None = None) -> float:
        """Seconds `op` may take: the `timeouts` input, else the engine's timeout, else the default (for
        an operation they do not time, its fixed budget: `fixed_timeouts`)."""
        chosen = getattr(spec.timeouts, op, None) if getattr(spec, "timeouts", None) else None
        given = engine if engine is not None and engine > 0 else None
        return float(chosen or given or cls.default_timeouts.get(op) or cls.fixed_timeouts[op])

    # ----- check time ----------------------------------------------------------------------------
    def check_remote(self, spec: SpecT) -> Failures:
        """Checks against the platform's catalogues, run at preview when credentials exist."""
        return []

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

    def last_state(self, olds: Props) -> str | None:
        """The state of the object of the stored name when it is occupied (a replace would end it), else None."""
        name = olds.get("name")
        if not isinstance(name, str) or not name:
            return None
        return next((f"{state} ({object_id})" for object_id, state in self.listing(name) if self.occupied(state)), None)

    def catalogues_ready(self, read: Callable[[], object]) -> Failures | None:
        """Whether a preview checks the inputs against the catalogues: None once `read` (a cached catalogue
        read) succeeds; else the failures instead: none without credentials (nothing to check) or when the
        catalogue cannot be read (the check is skipped, and said), one naming the keys the platform refuses."""
        if not self.configured(self.settings):
            return []
        try:
            read()
        except MltrainError as err:
            refused = self.refused_credentials(err)
            if refused is None:
                self.context.say(f"catalogue check skipped: {err}")
            return refused or []
        return None

    def refused_credentials(self, err: MltrainError) -> Failures | None:
        """A 401/403 while checking at preview is a failure naming the key to fix (not a skipped check)."""
        if isinstance(err, ApiError) and err.http_status in (401, 403) and not self.settings.skip_credential_check:
            keys = " / ".join(f"`{k}`" for k in self.credential_keys) or "the mltrain credentials"
            return [("", f"{err}. Fix {keys} (`pulumi config set --secret ...`); to preview without "
                         f"credentials, set `{CONFIG_KEYS['skip_credential_check']}` to true")]
        return None

    # ----- the object (lifecycle.protocol.Objects) --------------------------------------------------
    def read(self, object_id: str, spec: SpecT) -> tuple[Props, Props | None] | None:
        """(outputs, the platform object in wire shape for drift detection, or None when it has none),
        or None when the platform reports the object on its way out. Raises NotFound when it says so."""
        raise NotImplementedError

    def update(self, object_id: str, old: SpecT, new: SpecT, changed: list[str], owner: Mark | None) -> Props:
        return {}

    def listing(self, name: str) -> list[tuple[str, str]]:
        """(ID, state) of each object a listing by `name` shows: one call, no detail read."""
        return []

    def named(self, name: str) -> list[Named]:
        return []

    def listed(self, object_id: str, name: str) -> bool:
        return any(found == object_id for found, _ in self.listing(name))

    def get(self, object_id: str) -> RemoteT:
        raise NotImplementedError

    def state_of(self, remote: RemoteT) -> str:
        return "present"

    def stop(self, object_id: str) -> Stop:
        return Stop.ENDED

    def delete(self, object_id: str) -> None:
        raise NotImplementedError

    def live(self, state: str) -> bool:
        return False

    def occupied(self, state: str) -> bool:
        """Whether an object in `state` holds what a replace would end (a preview names it): live by default."""
        return self.live(state)

    def settled(self, state: str) -> bool:
        return True

    # ----- its create (lifecycle.protocol.Creates) -------------------------------------------------
    def submit(self, spec: SpecT, owner: Mark | None) -> Sent:
        raise NotImplementedError

    def resolve(self, spec: SpecT, owner: Mark | None, pending: str) -> str:
        raise MltrainError(f"{self.kind} answers its create with its ID; nothing to resolve")

    def duplicate(self, err: ApiError) -> bool:
        return False

    def mark(self, object_id: str, spec: SpecT, owner: Mark | None) -> None:
        return None

    def accept(self, object_id: str, spec: SpecT) -> None:
        return None

    # ----- a run (lifecycle.protocol.Runs): the kinds that run give these -----------------------------
    def goal(self, spec: SpecT) -> tuple[frozenset[str], frozenset[str]] | None:
        return None

    def what(self, spec: SpecT, object_id: str) -> str:
        return f"{self.noun} {object_id}"

    def recorded(self, spec: SpecT, remote: RemoteT) -> Outs:
        return {}

    def unread(self, object_id: str) -> Outs:
        return {}

    def ended(self, spec: SpecT, object_id: str, remote: RemoteT) -> tuple[str, str]:
        return "no reason given", ""

    def gate(self, spec: SpecT, object_id: str, remote: RemoteT, recorded: Outs) -> tuple[Outs, str | None]:
        return {}, None

    def created_at(self, remote: RemoteT) -> float | None:
        return None

    def has_started(self, remote: RemoteT) -> bool:
        return False

    def pending_reason(self, remote: RemoteT) -> str:
        return ""

    def notes(self, spec: SpecT, object_id: str) -> Callable[[RemoteT], str | None] | None:
        return None

    def marked(self, recorded: Collection[str], keep: Callable[[str, Mark], bool], now: float, *,
               full: bool = False) -> list[MarkedRun]:
        """The account's jobs of this kind that carry an owner mark (abandoned.py, the run history); none
        for others."""
        return []

    # ----- kept run records (lifecycle.protocol.Keeps): the kinds that keep records give these ---------
    def owner_of(self, object_id: str) -> Mark | None:
        return None

    def keep(self, object_id: str, owner: Mark, reason: str | None) -> None:
        return None

    def records(self, owner: Mark, name: str) -> list[Kept]:
        return []

    def replaced(self, object_id: str, by: str) -> None:
        return None
