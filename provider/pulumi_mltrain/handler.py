"""The resource logic, the same for every resource and for both faces (the dynamic provider in
`dynamic_provider.py`, the native plugin in `plugin/provider.py`): a `Handler` with typed operations.

A handler serves one resource type, whose `PlatformCalls` (`platform_calls.py`) declares its `Spec`
(inputs), its `Output` model and the platform's primitives (create, read, update, delete, ...). For each
operation the handler makes that type's calls with the operation's `Context` (the account, ...), and
turns them into check, diff, create (and resume), read, update, delete, import and the look for a failed
create's object, returning the small result types below. Nothing subclasses it, and the calls never
call back into it. It prefixes every error with the resource it concerns, merges inputs
into outputs, and opens one deadline for each operation (`deadline.py`): from the `timeouts` input, else
the timeout the engine gives (`timeout=`), else its defaults; a check, diff, refresh, import and the look
for a failed create's object, which neither times, from the resource's fixed budgets
(`PlatformCalls.fixed_timeouts`). It imports nothing of `pulumi.dynamic`.

It also holds the guarantees every resource shares in accounts that several stacks use:
- ownership: creates carry an owner mark (`ownership.py`) and idempotent look-ups adopt only marked objects;
- names: a name the user did not set is chosen once, in `check`, and kept through aliases and refreshes;
- truth: "not found" drops a resource only after a second look (a listing) agrees, and refresh reads back
  every declared input through the spec's wire mapping, so drift on any field shows in the next preview.

The rules of a state are its own too, so both adapters only translate: a state keeps no null output-only
field (`_present`), an imported state's diff leaves out what the declaration leaves to the platform
(`takeover.imported_unchanged`), a preview of a run's create marks the run's start (`preview_create`), and
a create that the engine records as partially created is finished by the next update (`partial`).

A handler holds no client, lock or secret of its own: clients are built lazily inside the provider
process after `configure()` (`Context.client`), and shared by the handlers of a process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, cast

from pydantic import ValidationError

from . import checkpoints, deadline
from . import spec as specs
from .accounts import ACCOUNT_KEY, explicit_settings
from .checkpoints import RESUMED_FROM, Lineage, Resume
from .config import Settings
from .errors import MltrainError, NotFound, for_resource
from .lifecycle import in_place, records, removal, takeover
from .lifecycle.create import create
from .lifecycle.protocol import Keeps, Runs
from .lifecycle.record import Held, Recorder, RunSpec, Unfinished
from .ownership import (
    ATTEMPT_KEY,
    EXISTS_KEY,
    FAILED_KEY,
    IMPORTED_KEY,
    INTERNAL_PREFIX,
    MARK_KEYS,
    PARTIAL_KEY,
    PREVIEW_KEY,
    REMOVED_KEY,
    STACK_KEY,
    UNFINISHED_KEY,
    URN_KEY,
    Mark,
    held_failure,
    internal,
    internal_outputs,
    owns,
    physical_name,
    resource_of,
)
from .platform_calls import Context, OutT, PlatformCalls, Props, RemoteT, SpecT
from .progress import Label
from .runs import RUN_REASON, RUN_STARTS, Replacement, Replacements, RunReason, refuse_stopped_run, replaced_by

# The state of a run (held failure, unfinished wait, attempt), which a diff never compares as inputs.
RUN_STATE_KEYS = (FAILED_KEY, UNFINISHED_KEY, ATTEMPT_KEY, REMOVED_KEY)

# What to do when the deadline of an operation that customTimeouts do not time runs out, by operation.
UNTIMED = {
    "check": "check the platform; customTimeouts do not cover a check",
    "diff": "check the platform; customTimeouts do not cover a diff",
    "read": "check the platform, then refresh again; customTimeouts do not cover a refresh",
    "import": "check the platform; customTimeouts do not cover an import (adopt_id takes an object over under "
              "the create's customTimeouts)",
    "survivor": "check the platform",
}


@dataclass(frozen=True)
class Failure:
    """An input the check refuses: the field (empty for the whole resource) and a message naming both."""

    property: str
    reason: str


@dataclass(frozen=True)
class Checked:
    """The inputs to store (defaults and the chosen name filled in, derived outputs added) and the failures."""

    inputs: Props
    failures: tuple[Failure, ...] = ()


@dataclass(frozen=True)
class Diff:
    """What a change of inputs does: the changed keys, those that replace the object, and the order of
    a replace (always delete first, see `Handler.diff`)."""

    changed: tuple[str, ...]
    replaces: tuple[str, ...]
    delete_before_replace: bool = True

    @property
    def changes(self) -> bool:
        return bool(self.changed)


class Outcome:
    """What the recorded outputs say of the run: `failed` (a held failure, FAILED_KEY) or `unfinished`
    (a wait the engine cancelled, UNFINISHED_KEY); both are recorded and still fail the operation."""

    outputs: Props

    @property
    def failed(self) -> str | None:
        return held_failure(self.outputs)

    @property
    def unfinished(self) -> str | None:
        text = self.outputs.get(UNFINISHED_KEY)
        return str(text) if text else None

    @property
    def problem(self) -> str | None:
        """The error the operation ends with although its object is recorded."""
        return self.unfinished or self.failed


@dataclass(frozen=True)
class Created(Outcome):
    """A recorded object: its ID and outputs (see `Outcome` for a held failure or an unfinished wait)."""

    id: str
    outputs: Props


@dataclass(frozen=True)
class Updated(Outcome):
    """The outputs to store after an update in place (or the resume of an unfinished create)."""

    outputs: Props


@dataclass(frozen=True)
class Read:
    """What a refresh stores: the outputs, and the inputs with any drift read back from the platform."""

    id: str
    outputs: Props
    # None: the stored inputs stand as they are (the engine keeps them when a read gives none).
    inputs: Props | None


@dataclass(frozen=True)
class Imported:
    """What `pulumi import` stores: the declaration of the object as the platform holds it, and its outputs."""

    id: str
    outputs: Props
    inputs: Props


class Handler(Generic[SpecT, OutT, RemoteT]):
    """The resource logic of one resource type, whose inputs are `SpecT` and outputs `OutT`, on the
    platform that its `PlatformCalls` type answers for."""

    def __init__(self, calls: type[PlatformCalls[SpecT, OutT, RemoteT]]) -> None:
        self.calls = calls
        self.kind = calls.kind
        self.noun = calls.described or calls.noun
        self.spec_type: type[SpecT] = calls.spec_type
        self.output_type: type[OutT] = calls.output_type
        self.import_id_fields = calls.import_id_fields
        self.runs = RunReason(self.noun, calls.spec_type) if calls.runs else None
        self.replacements = Replacements()
        self.lineage = Lineage()  # the run a replace removes, for its new run's `resumed_from` (checkpoints.py)
        self._settings: Settings | None = None

    # ----- configuration -------------------------------------------------------------------------
    def configure(self, settings: Settings) -> None:
        """The settings of the stack's (or plugin's) provider configuration."""
        self._settings = settings

    @property
    def settings(self) -> Settings:
        """The configured settings (loaded from the environment when nothing configured them)."""
        if self._settings is None:
            self._settings = Settings.load()
        return self._settings

    def account(self, props: Mapping[str, object]) -> Settings:
        """The settings of the explicit provider the inputs name, else the configured ones."""
        values = explicit_settings(dict(props))
        return Settings.load(values) if values is not None else self.settings

    def platform(self, props: Mapping[str, object],
                 resume: Resume | None = None, run_reason: str | None = None) -> PlatformCalls[SpecT, OutT, RemoteT]:
        """The platform calls of one operation on the resource whose inputs are `props`; a create's: how its
        run begins (`resume`) and why it starts (`run_reason`)."""
        return self.calls(Context(self.account(props), owner=Mark.from_props(props), resume=resume or Resume(),
                                  run_reason=run_reason))

    # ----- operations ----------------------------------------------------------------------------
    def check(self, olds: Props, news: Props) -> Checked:
        """Validate `news` (the resource's stored inputs are `olds`, empty for a new one)."""
        name = self._label_of({**olds, **news})
        try:
            with deadline.scope(self._untimed("check", f"checking {self._called(name, news)}")):
                return self._check(self.platform(news), olds, news)
        except MltrainError as err:  # the platform, not the inputs (those are failures): name the resource
            raise for_resource(self.kind, name, err) from None

    def _check(self, calls: PlatformCalls[SpecT, OutT, RemoteT], olds: Props, news: Props) -> Checked:
        default = calls.settings.replace_running
        if default and "replace_running" in self.spec_type.model_fields and news.get("replace_running") is None:
            news = {**news, "replace_running": default}  # the stack-wide default (mltrain:replaceRunning)
        if news.get("on_failure") is None and olds.get("on_failure") and "on_failure" in self.spec_type.model_fields:
            # The value the state recorded stays until the program sets one: 0.1 recorded its default then
            # ("delete"), and a job created then keeps what it was created with.
            news = {**news, "on_failure": olds["on_failure"]}
        news, default_failures = calls.with_defaults(news)
        declared = news
        news, name_pending = self._with_name(olds, news)
        spec, failures = specs.validate(self.spec_type, news)
        failures = default_failures + failures
        changed, replaces = specs.diff(self.spec_type, olds, spec.props()) if olds and spec else ([], [])
        if replaces and news.get("name") != declared.get("name") and not olds.get(IMPORTED_KEY):
            # A kept autoname (from the state) is not the replacement's: that is a new object, whose
            # create is checked without the state and named from the URN, so the preview shows that name.
            # (An imported state keeps the platform's name: see `takeover.imported_unchanged`.)
            news, name_pending = self._with_name({}, declared)
            renamed = self._run_name(calls, olds, declared)
            if renamed is not None:
                news = {**news, "name": renamed}
            spec, failures = specs.validate(self.spec_type, news)
            changed, replaces = specs.diff(self.spec_type, olds, spec.props()) if spec else ([], [])
            if renamed is not None:  # the new run's own name follows from the replace: no reason of it
                replaces = [f for f in replaces if f != "name"]
        if spec is not None:
            # Catalogue checks only for new or changed inputs: a no-change preview makes no API call.
            unchanged = bool(olds) and not changed
            if not unchanged:
                failures = failures + calls.check_remote(spec) + self._replace_guard(calls, olds, spec, replaces)
        inputs = {k: v for k, v in news.items() if k.startswith("__")}
        if olds and (changed or olds.get(EXISTS_KEY)):
            # A create with these inputs can only be a replacement. Unchanged inputs stay exactly the stored
            # ones (the engine writes its checkpoint after every step whose inputs differ, the whole state
            # each time): a create of them finds what this check leaves instead (below).
            inputs[EXISTS_KEY] = True
        if olds.get(ATTEMPT_KEY) is not None:
            inputs[ATTEMPT_KEY] = olds[ATTEMPT_KEY]  # a replacement's check set it (below): kept as stored
        if spec is not None:
            inputs.update(spec.props())
            urn = news.get(URN_KEY)
            # The check of a replacement (the engine gives it no stored inputs) takes what the check
            # against the state left: the create then knows it replaces an object of the state.
            replacing = None if olds else self.replacements.take(urn, spec)
            diffed = None if olds or replacing is not None else self.replacements.take_diffed(urn)
            replacing = replacing or diffed
            if replacing is not None:
                inputs[EXISTS_KEY] = True
                if replacing.name is not None and declared.get("name") is None:
                    inputs["name"] = replacing.name  # the new run's own name (a platform of unique names)
                if self.runs is not None:
                    inputs.update(_attempt(replacing.attempt))
            if not failures:  # outputs derived from inputs that fail a check would fail in turn
                try:
                    kept = self.calls.derived_kept
                    derived = {k: olds[k] for k in kept if k in olds} if unchanged and kept else calls.derived(spec)
                    inputs.update(derived)
                    if diffed is not None and self.runs is not None:  # its reason, with this check's GPUs and cost
                        replacing = Replacement(self.runs.if_replaced(spec, inputs, list(diffed.fields), None),
                                                diffed.attempt, diffed.name)
                    if self.runs is not None:
                        inputs.update(self.runs.at_check(spec, olds, inputs, replacing, replaces, None))
                    if olds:  # what a replace would be, for its check or create (runs.Replacements)
                        reason = self.runs.if_replaced(spec, inputs, replaces, None) if self.runs is not None else None
                        renamed = self._run_name(calls, olds, declared)
                        self.replacements.leave(urn, spec, Replacement(reason, name=renamed))
                except ValidationError as err:
                    failures = specs.failures_of(self.spec_type, err)
        else:
            inputs.update(specs.user_props(news, self.spec_type))
        if name_pending:
            from pulumi.output import Unknown

            inputs["name"] = Unknown()  # type: ignore[no-untyped-call]  # chosen once the identity exists
        inputs.pop(PREVIEW_KEY, None)  # read above (`RunReason.at_check`); never part of what is stored
        label = self.kind
        return Checked(inputs, tuple(Failure(f, f"{label}: {f} {r}" if f else f"{label}: {r}")
                                     for f, r in failures))

    def _replace_guard(self, calls: PlatformCalls[SpecT, OutT, RemoteT], olds: Props, spec: SpecT,
                       replaces: list[str]) -> list[tuple[str, str]]:
        """What a preview refuses of a change that replaces the object (`replaces`: the fields whose change
        replaces it): a live job under `replace_running="refuse"`, a run started with `stopped=True`.

        check() is where a preview can fail cleanly; it gets the old inputs, so the state is looked up."""
        failures = self.runs.guard(olds, spec, replaces) if self.runs is not None else []
        if not olds or getattr(spec, "replace_running", "allow") != "refuse" or not replaces:
            return failures
        try:
            state = calls.last_state(olds)
        except MltrainError as err:
            state = f"unknown ({err})"
        if state is None:
            return failures
        return [("replace_running", f"refuses to replace job {olds.get('name')!r}: it is {state}, and "
                 f"{replaced_by(replaces, 'it')} (delete, then create). Revert those fields, stop "
                 "the job first, or set replace_running=\"allow\""), *failures]

    def _run_name(self, calls: PlatformCalls[SpecT, OutT, RemoteT], olds: Props, declared: Props) -> str | None:
        """The name of a new run that replaces the run of `olds`, where it needs one of its own: a name the
        provider chose (`declared` sets none), on a platform whose names are unique among all its jobs,
        kept records too (`ownership.Mark.run_name`), while records are kept; None otherwise (the URN's
        name, as before)."""
        previous, owner = olds.get("name"), Mark.from_props(declared)
        own = declared.get("keep_runs")
        kept = _whole(own, 0) if own is not None else calls.settings.keep_runs
        if not (calls.unique_names and calls.keeps_records and kept) or declared.get("name") is not None \
                or owner is None:
            return None  # keep_runs 0: the old run's job is deleted first, and its name is free again
        return owner.run_name(previous) if isinstance(previous, str) and previous else None

    def _with_name(self, olds: Props, news: Props) -> tuple[Props, bool]:
        """Autonaming: a name the user did not set is chosen once and then kept (renames, aliases, refresh).

        Returns the inputs with the name, and whether the name is still to be chosen: in the first
        preview of a stack its identity does not exist yet, so the checks run on a stand-in name.
        """
        if "name" not in self.spec_type.model_fields or news.get("name") is not None:
            return news, False
        news = dict(news)
        previous = olds.get("name")
        if isinstance(previous, str) and previous:
            news["name"] = previous
            return news, False
        stack, urn = news.get(STACK_KEY), news.get(URN_KEY)
        known = isinstance(stack, str) and bool(stack)
        resource = resource_of(urn) if isinstance(urn, str) and urn else self.kind
        news["name"] = physical_name(resource, f"{stack}/{urn}" if known else "pending")
        return news, not known

    def diff(self, olds: Props, news: Props, object_id: str = "") -> Diff:
        """What changes from the stored state `olds` to the checked inputs `news` of object `object_id`.

        The state of a run is no input: an unfinished create is resumed (an update), and a held failure
        is replaced only when its inputs change, or when `_run_again` says it runs again."""
        with deadline.scope(self._untimed("diff", f"diffing {self._called(self._label_of(news), news)}")):
            return self._diff(olds, news, object_id)

    def _diff(self, olds: Props, news: Props, object_id: str) -> Diff:
        try:
            changed, replaces = specs.diff(self.spec_type, olds, news)
        except MltrainError as err:
            raise for_resource(self.kind, self._label_of(news), err) from None
        keys = {k for k in (*olds, *news) if k.startswith(INTERNAL_PREFIX)
                and k not in (STACK_KEY, URN_KEY, IMPORTED_KEY, *RUN_STATE_KEYS)}
        for key in sorted(keys):
            old, new = olds.get(key), news.get(key)
            if old is None or old == new:
                continue  # state from before the key existed: nothing to compare
            changed.append(key)
            if key == ACCOUNT_KEY:
                replaces.append(key)  # another account, region or endpoint: delete there, create here
        if olds.get(UNFINISHED_KEY):
            changed.append(UNFINISHED_KEY)  # the create was cancelled while it waited: go on waiting
        elif olds.get(FAILED_KEY) and not replaces:
            again = self._run_again(olds, news, object_id)
            if again is not None:
                changed.append(FAILED_KEY)
                replaces.append(FAILED_KEY)
        if olds.get(IMPORTED_KEY):
            # The imported inputs are the platform's complete copy: what the declaration leaves to the
            # platform (and the platform's spelling of declared values) is no change.
            same = takeover.imported_unchanged(self.spec_type, olds, news, changed)
            changed = [k for k in changed if k not in same]
            replaces = [k for k in replaces if k not in same]
        if replaces and object_id and self.runs is not None:
            self.lineage.note(object_id, urn=news.get(URN_KEY))  # the run a new run of a checkpoint resumes
            self._leave_diffed(olds, news, replaces)
        # Always delete first, also when the engine forces a replace that this diff did not ask for
        # (`replacement_trigger`, `pulumi up --replace`): a new object of the same name created first
        # would find the old one by its owner mark and take it over, and the delete would then remove it.
        return Diff(tuple(changed), tuple(replaces), delete_before_replace=True)

    def _leave_diffed(self, olds: Props, news: Props, replaces: list[str]) -> None:
        """What the check of a job the engine recreates after deleting it first (a resource it depends on is
        replaced delete-first) goes by: the fields this diff says replace it, and its new run's own name."""
        owner, name = Mark.from_props(news), news.get("name")
        declared = {k: v for k, v in news.items() if k != "name"} if _chosen(owner, name) else news
        try:
            renamed = self._run_name(self.platform(news), olds, declared)
        except MltrainError:
            renamed = None  # no settings to go by: the name the URN gives, as before
        fields = tuple(f for f in replaces if f in self.spec_type.model_fields)
        self.replacements.leave_diffed(news.get(URN_KEY), Replacement(None, name=renamed, fields=fields))

    def _run_again(self, olds: Props, news: Props, object_id: str) -> Replacement | None:
        """A held failure of unchanged inputs runs again when `mltrain:rerunFailed` names its run, or while
        it has attempts left (`max_attempts`); what the replace is then left for the replacement's check."""
        if self.runs is None:
            return None
        attempt = _whole(olds.get(ATTEMPT_KEY), 1)
        budget = _whole(news.get("max_attempts"), 1)
        if object_id and object_id in self.settings.rerun_runs | self.account(news).rerun_runs:
            why, next_attempt = f"run again after failed run {object_id} (mltrain:rerunFailed)", 1
        elif attempt < budget:
            why, next_attempt = f"attempt {attempt + 1} of {budget} after failed run {object_id}", attempt + 1
        else:
            return None
        spec, _ = specs.validate(self.spec_type, specs.user_props(news, self.spec_type))
        again = Replacement(self.runs.if_replaced(spec, news, [], why), next_attempt)
        if spec is not None:
            self.replacements.leave(news.get(URN_KEY), spec, again)
        return again

    def create(self, props: Props, *, timeout: float | None = None) -> Created:
        """Create (or take over by `adopt_id`) the object of the checked inputs `props`, waited for.
        `timeout` is the engine's create timeout in seconds, used when the inputs set none."""
        return self._present_created(self._create_op(props, timeout))

    def resume(self, object_id: str, props: Props, *, timeout: float | None = None, attempt: int = 1) -> Created:
        """Finish the create of this resource's own `object_id` (an unfinished create, the plugin's
        partially created resource): taken over, waited for and judged like a fresh create. `attempt`: the
        attempt its state records."""
        return self._present_created(self._create_op(props, timeout, resume=object_id, attempt=attempt))

    def partial(self, props: Props, timeout: float | None) -> Props:
        """The state of a create that failed (see `survivor`) or was cancelled after its object came to
        exist, where the engine records it as partially created (the plugin): the next update finishes the
        create. The engine's create `timeout` is kept, since that update is given only the update timeout."""
        return {**props, PARTIAL_KEY: timeout or True}

    def preview_create(self) -> Props:
        """What the preview of a create adds to its checked inputs: a training job's create starts a run (its
        first, or a replacement), marked for the policy new-run-budget, which is given no step (RUN_STARTS).
        The plugin's preview calls it; the dynamic form's preview calls no create, and its check marks the
        step instead (`RunReason.at_check`)."""
        return {RUN_STARTS: True} if self.runs is not None else {}

    def _create_op(self, props: Props, timeout: float | None, resume: str | None = None,
                   attempt: int | None = None) -> Created:
        spec = self._parse(props)
        owner = Mark.from_props(props)
        budget = self._deadline(spec, "create", timeout, f"creating {self.kind} '{self._label(spec)}'")
        # A create of inputs that a check against the state gave back unchanged takes what that check left
        # (any other replacement's second check took it already): it says this create replaces a resource
        # of the state when those inputs carry no EXISTS_KEY. (A `pulumi up --replace` is checked without
        # the stored inputs, so nothing is left for it: its run records `first run`, docs/runs.md.)
        replacing = None if resume else self.replacements.take(props.get(URN_KEY), spec)
        new_run = (bool(props.get(EXISTS_KEY)) or replacing is not None) and not resume
        if attempt is None:
            attempt = replacing.attempt if replacing is not None else _whole(props.get(ATTEMPT_KEY), 1)
        run: Props = _attempt(attempt) if self.runs is not None else {}
        reason = self._run_recorded(props, replacing).get(RUN_REASON)
        try:
            why = reason if isinstance(reason, str) else None
            calls = self.platform(props, run_reason=why)
        except Exception as err:
            raise for_resource(self.kind, self._label(spec), err) from None
        try:
            with deadline.scope(budget):
                if self.runs is not None and not resume and not spec.adopt_id:
                    starts = self._resume(calls, spec, props, owner, new_run)
                    calls = self.platform(props, resume=starts, run_reason=why)
                    run.update(starts.outputs())
                if resume and resume != spec.adopt_id:
                    object_id, outs = resume, self._resumed(calls, resume, spec, owner)
                elif spec.adopt_id:
                    object_id, outs = spec.adopt_id, self._adopt(calls, spec.adopt_id, spec, owner)
                else:
                    if self.runs is not None:
                        refuse_stopped_run(self.noun, spec)
                    label, kept = Label.of(self.kind, spec, owner), self._keep_runs(calls, spec)
                    keeps = cast("Keeps[RemoteT]", calls)

                    def keep(found: str) -> None:  # an unrecorded run of ours: kept as a record, not deleted
                        records.keep(keeps, found, label, name=self._label(spec), reason=None, keep_runs=kept)

                    object_id, outs = create(calls, spec, owner, name=self._label(spec),
                                             grace=calls.settings.ambiguity_grace, label=label, operation=budget,
                                             keep=keep if kept else None)
                    if new_run and kept:  # a replacement: note and prune the earlier runs' records
                        records.after_run(keeps, object_id, owner, self._label(spec), kept)
                    if calls.runs:
                        outs = {**outs, **self._record(calls, spec, object_id, owner, ours=True)}
        except Held as err:
            held = self._held(spec, props, err, attempt)
            return Created(err.object_id, {**self._outs(calls, spec, err.outs, props),
                                           **self._run_recorded(props, replacing), **run, **held})
        except Unfinished as err:
            # The error is FAILED_KEY's too: the one mark a dynamic program reads to fail the step (an Output
            # per mark and resource costs the program CPU that grows with the stack); UNFINISHED_KEY says the
            # next `up` goes on waiting, and nothing takes the pair for a held failure (`Outcome.failed`).
            text = str(for_resource(self.kind, self._label(spec), err))
            return Created(err.object_id, {**self._outs(calls, spec, err.outs, props),
                                           **self._run_recorded(props, replacing), **run, UNFINISHED_KEY: text,
                                           FAILED_KEY: text})
        except Exception as err:
            raise for_resource(self.kind, self._label(spec), err) from None
        return Created(object_id, {**self._outs(calls, spec, outs, props), **self._run_recorded(props, replacing),
                                   **run})

    def _resume(self, calls: PlatformCalls[SpecT, OutT, RemoteT], spec: SpecT, props: Props, owner: Mark | None,
                new_run: bool) -> Resume:
        """How the run this create starts begins (checkpoints.py): from the checkpoint when it is a new run of
        a resource with one, naming the run it replaced. `new_run`: the checked inputs say this create
        replaces a job of the state. The engine does not always say so (a targeted `--replace`, a job it
        deleted first because a resource it depends on was replaced delete-first): the previous run's removal
        in this process (a replace's diff, the old job's delete) says it too, and a replacement created
        first finds that run as its own job of the name, which its create removes before it submits."""
        name = getattr(spec, "name", None)
        replaced = self.lineage.take(urn=props.get(URN_KEY))
        removed = self.lineage.take(name=_run_line(name, owner))
        previous = replaced or removed
        if not checkpoints.resuming(spec, True):
            return Resume()
        if previous is None and isinstance(name, str) and name:
            previous = next((n.object_id for n in calls.named(name) if owns(owner, n.mark, name)), None)
        return Resume(resuming=True, previous=previous) if new_run or previous is not None else Resume()

    def _held(self, spec: SpecT, props: Props, err: Held, attempt: int) -> Props:
        """The state keys of a held failure: what failed, and what runs it again (none by itself)."""
        budget = _whole(getattr(spec, "max_attempts", 1), 1)
        if err.removed:
            job = "its job was deleted (on_failure=\"delete\")"
        elif getattr(spec, "on_failure", None) == "delete":
            job = "its job stays on the platform, ended, until its delete succeeds"
        else:
            job = "its job stays on the platform, ended, as the run's record (on_failure=\"keep\")"
        if attempt < budget:
            then = f"the next `pulumi up` starts attempt {attempt + 1} of {budget}"
        else:
            urn = props.get(URN_KEY)
            replace = f", or `pulumi up --replace '{urn}'`" if isinstance(urn, str) and urn else ""
            then = (f"no `pulumi up` starts it again while its inputs and replacement_trigger stay as they are: to "
                    f"run it again, `pulumi config set mltrain:rerunFailed {err.object_id}` (or "
                    f"MLTRAIN_RERUN_FAILED={err.object_id}, or an explicit provider's rerunFailed) then `pulumi up`"
                    f"{replace}")
        text = (f"{err.failure}. Run {err.object_id} (attempt {attempt} of {budget}) is held: {job}; {then}; "
                f"`pulumi destroy` removes it from the stack and keeps its job as a record (keep_runs){err.details}")
        return {FAILED_KEY: str(for_resource(self.kind, self._label(spec), MltrainError(text))),
                REMOVED_KEY: True if err.removed else None}

    def _resumed(self, calls: PlatformCalls[SpecT, OutT, RemoteT], object_id: str, spec: SpecT,
                 owner: Mark | None) -> Props:
        """Our own object by its ID (an unfinished create, the plugin's partially created resource):
        accepted and marked, then recorded like a fresh create (rolled back when it failed meanwhile)."""
        try:
            calls.accept(object_id, spec)
            calls.mark(object_id, spec, owner)
        except NotFound as err:
            raise MltrainError(
                f"{self.noun} {object_id}, recorded as partially created, is not found ({err}): `pulumi refresh` "
                "drops it from the state once a listing agrees, and the next `pulumi up` then creates it anew"
            ) from None
        return self._record(calls, spec, object_id, owner, ours=True)

    def _adopt(self, calls: PlatformCalls[SpecT, OutT, RemoteT], object_id: str, spec: SpecT,
               owner: Mark | None) -> Props:
        """An existing object named by `adopt_id` or `pulumi import`: not this resource's own, so it is
        marked as ours only once it has reached its target (a run that fails first stays someone else's)."""
        calls.accept(object_id, spec)
        outs = self._record(calls, spec, object_id, owner, ours=False)
        calls.mark(object_id, spec, owner)
        return outs

    def _record(self, calls: PlatformCalls[SpecT, OutT, RemoteT], spec: SpecT, object_id: str, owner: Mark | None, *,
                ours: bool) -> Props:
        """A run once it has reached its `wait_for` (lifecycle/record.py); anything else as it is now."""
        if calls.runs:
            recorder = Recorder(self.kind, with_reason=True)
            # A kind that runs (`runs`) has a spec with the run's inputs (run_control.RunControl).
            run, kind = cast(RunSpec, spec), cast("Runs[RunSpec, RemoteT]", calls)
            return recorder.record(kind, run, object_id, owner, ours=ours)
        found = calls.read(object_id, spec)
        if found is None:
            raise MltrainError(f"{self.noun} {object_id} is on its way out")
        return found[0]

    def _run_recorded(self, props: Props, replacing: Replacement | None = None) -> Props:
        return self.runs.recorded(props, replacing) if self.runs is not None else {}

    def survivor(self, props: Props) -> str | None:
        """After a failed create of the checked inputs `props`: the ID of this resource's own object if
        one exists (it carries this resource's mark, found the way a create's first look finds it), else None."""
        spec, _ = specs.validate(self.spec_type, specs.user_props(props, self.spec_type))
        name = getattr(spec, "name", None) if spec is not None else None
        if spec is None or not isinstance(name, str) or not name:
            return None
        owner = Mark.from_props(props)
        what = f"looking for the {self.noun} of the failed create of {self.kind} '{self._label(spec)}'"
        try:
            calls = self.platform(props)
            if not calls.removes:
                return None
            with deadline.scope(self._deadline(spec, "survivor", None, what)):
                mine = [n.object_id for n in calls.named(name) if not n.record and owns(owner, n.mark, name)]
                return mine[0] if mine and calls.read(mine[0], spec) is not None else None
        except Exception:  # not found, not ours, unreachable: nothing to record
            return None

    def read(self, object_id: str, props: Props) -> Read | None:
        """The object as the platform holds it now (refresh), or None once it is gone (a listing agrees).
        A held failure whose job was deleted (`on_failure="delete"`) is its state: nothing to read."""
        found = self._refresh(object_id, props)
        return None if found is None else Read(found.id, self._present(found.outputs), found.inputs)

    def _refresh(self, object_id: str, props: Props) -> Read | None:
        spec = self._parse(props, strict=False)
        kept = self._run_recorded(props)
        run = _run_state(props, unfinished=True)
        if props.get(FAILED_KEY) and props.get(REMOVED_KEY):
            inputs = {**specs.user_props(props, self.spec_type), **_without_run_state(internal(props)), **kept}
            return Read(object_id, {k: v for k, v in props.items() if k not in MARK_KEYS}, inputs)
        budget = self._deadline(spec, "read", None, f"refreshing {self.kind} '{self._label(spec)}' ({object_id})")
        try:
            with deadline.scope(budget):
                return self._read(object_id, props, spec, kept, run)
        except Exception as err:
            raise for_resource(self.kind, self._label(spec), err) from None

    def _read(self, object_id: str, props: Props, spec: SpecT, kept: Props, run: Props) -> Read | None:
        calls = self.platform(props)
        try:
            found = calls.read(object_id, spec)
        except NotFound as err:
            self._confirm_gone(calls, object_id, spec, str(err))
            found = None
        if found is None:
            return None  # gone: the engine drops it from the state
        outs, remote = {**calls.derived(spec), **found[0]}, found[1]
        # The stored inputs' run_reason stays with them, as check put it there: a later preview of a
        # change in place shows the reason of the run it keeps.
        # The derived inputs check added stay as recorded (a refresh is no change of the declaration).
        derived = {k: props.get(k, v) for k, v in calls.derived(spec).items()}
        drift = self._drift(calls, spec, remote)
        inputs = {**specs.user_props(props, self.spec_type), **derived, **drift,
                  **_without_run_state(internal(props)), **kept}
        kept_outputs = (*self.calls.recorded_once, RESUMED_FROM) if self.runs is not None else self.calls.recorded_once
        once = {k: props[k] for k in kept_outputs if props.get(k) is not None}
        recorded = {k: v for k, v in inputs.items() if k not in MARK_KEYS}  # the owner mark stays in the inputs
        outputs = {**recorded, **once, **self._only_outputs(outs), **run}
        if not drift and Mark.from_props(props) is None:
            # The dynamic form's refresh: its read is handed the outputs alone, which repeat the stored inputs
            # but for the owner mark. Those inputs stand (the engine keeps them when a read gives none):
            # inputs without the mark would make the next check add it back to every resource, and the
            # engine write its whole checkpoint once per step of that preview or `up`.
            return Read(object_id, outputs, None)
        return Read(object_id, outputs, inputs)

    def import_object(self, object_id: str, owner: Props) -> Imported:
        """`pulumi import`: the object's inputs as the platform holds them (the spec's own read-back),
        then taken over as `adopt_id` takes an object (marked as this resource's where the platform
        allows it). `owner` holds the internal inputs (owner mark, account, ...); the result's inputs
        are the declaration of the object with them, and its outputs carry them too."""
        seed: Props = dict.fromkeys(self.spec_type.model_fields)
        fields = self.import_id_fields
        if fields:
            parts = object_id.split(":", len(fields) - 1)
            if len(parts) != len(fields):
                raise MltrainError(f"{self.kind}: an import ID is {':'.join(f'<{f}>' for f in fields)}")
            seed.update(zip(fields, parts, strict=True))
        blank = self.spec_type.model_construct(None, **seed)
        # One deadline for the whole import, the create's (its take-over may wait for a run as a create
        # does); its first read has no more than a refresh's read.
        budget = self._deadline(blank, "create", None, f"importing {self.kind} {object_id}", untimed="import")
        with deadline.scope(budget):
            first = budget.within(self.calls.timeout(blank, "read"), f"reading {self.kind} {object_id} to import it")
            with deadline.scope(first):
                # Derived outputs are computed from the read-back inputs afterwards, in `_outs`.
                found = self.platform(owner).read(object_id, blank)
            if found is None or found[1] is None:
                raise MltrainError(f"{self.kind} {object_id}: the platform has no object to import "
                                   "under this ID (or it is being deleted)")
            spec = specs.from_wire(self.spec_type, found[1], blank)
            if spec is None:
                raise MltrainError(f"{self.kind} {object_id}: the platform's copy does not read back "
                                   "as valid inputs, so it cannot be imported")
            inputs = {**spec.as_declared().props(), **owner}
            calls = self.platform(owner)
            outs = self._adopt(calls, object_id, spec, Mark.from_props(owner))
            return Imported(object_id, self._outs(calls, spec, {**found[0], **outs}, inputs), inputs)

    def _drift(self, calls: PlatformCalls[SpecT, OutT, RemoteT], spec: SpecT, remote: Props | None) -> Props:
        """Declared inputs the platform now holds differently, as the platform holds them.

        Read through the spec's own wire mapping; what the declaration leaves to the platform (unset
        optionals, keys the platform completes) is not drift (see `spec.differing`).
        """
        if remote is None or not isinstance(spec, specs.Spec):
            return {}
        theirs = specs.from_wire(self.spec_type, remote, spec)
        if theirs is None:
            calls.context.say(f"{self.kind} {self._label(spec)!r}: the platform's copy does not read back as "
                              "valid inputs; drift is not reported this time")
            return {}
        values = theirs.props()
        return calls.drift(spec, {name: values.get(name) for name in specs.differing(spec, theirs) if name in values})

    def _confirm_gone(self, calls: PlatformCalls[SpecT, OutT, RemoteT], object_id: str, spec: SpecT, said: str) -> None:
        """Believe "not found" only when a listing agrees (`lifecycle.removal.confirm_gone`)."""
        name = getattr(spec, "name", None)
        if calls.removes and isinstance(name, str):
            removal.confirm_gone(calls, object_id, name, said)

    def update(self, object_id: str, olds: Props, news: Props, *,
               timeout: float | None = None) -> Updated:
        """Change the object in place from the stored state `olds` to the checked inputs `news`, or go on
        with a create the engine cancelled (`olds` unfinished) or left partially created (`partial`), as a
        create of this resource's own object (waited for, and rolled back when it failed meanwhile); a failed
        update keeps the partial state. `timeout` is the engine's update timeout,
        used when the inputs set none. A held failure stays held (its outputs say so)."""
        return Updated(self._present(self._update(object_id, olds, news, timeout).outputs))

    def _update(self, object_id: str, olds: Props, news: Props, timeout: float | None) -> Updated:
        partial = olds.get(PARTIAL_KEY)
        if partial or olds.get(UNFINISHED_KEY):
            # A partial create is finished within the create timeout its state kept, else the update's.
            kept = float(partial) if isinstance(partial, int | float) and not isinstance(partial, bool) else 0.0
            resumed = self.resume(object_id, news, timeout=kept if kept > 0 else timeout,
                                  attempt=_whole(olds.get(ATTEMPT_KEY), 1))
            lineage = {RESUMED_FROM: olds[RESUMED_FROM]} if olds.get(RESUMED_FROM) else {}
            # Cancelled again: the next update goes on, still within the create's timeout.
            return Updated({**resumed.outputs, **lineage, PARTIAL_KEY: partial} if partial and resumed.unfinished
                           else {**resumed.outputs, **lineage})
        old, new = self._parse(olds, strict=False), self._parse(news)
        changed, _ = specs.diff(self.spec_type, olds, news)
        budget = self._deadline(new, "update", timeout, f"updating {self.kind} '{self._label(new)}'")
        try:
            calls = self.platform(news)
            if olds.get(FAILED_KEY) and olds.get(REMOVED_KEY):  # its job was deleted when it failed
                return Updated({**self._outs(calls, new, self._only_outputs(olds), news), **_run_state(olds)})
            owner = Mark.from_props(news) or Mark.from_props(olds)
            with deadline.scope(budget):
                outs = in_place.before_update(calls, self.kind, object_id, new, changed, owner)
                outs = {**outs, **calls.update(object_id, old, new, changed, owner)}
        except Exception as err:
            raise for_resource(self.kind, self._label(new), err) from None
        previous = self._only_outputs(olds)
        return Updated({**self._outs(calls, new, {**previous, **outs}, news), **_run_state(olds)})

    def delete(self, object_id: str, props: Props, *, timeout: float | None = None) -> None:
        """Remove the object (and wait until it is gone). `timeout` is the engine's delete timeout."""
        spec = self._parse(props, strict=False)
        if self.runs is not None:  # the run a replace's new run resumes from (its checkpoint outlives its job)
            self.lineage.note(object_id, name=_run_line(props.get("name"), Mark.from_props(props)))
        if props.get(FAILED_KEY) and props.get(REMOVED_KEY):
            return  # a held failure whose job was deleted when it failed (on_failure="delete")
        budget = self._deadline(spec, "delete", timeout, f"deleting {self.kind} '{self._label(spec)}'")
        try:
            calls = self.platform(props)
            kept = self._keep_runs(calls, spec)
            try:
                with deadline.scope(budget):
                    label = Label.of(self.kind, spec, object_id=object_id)
                    if kept:
                        reason = props.get(RUN_REASON)
                        records.keep(cast("Keeps[RemoteT]", calls), object_id, label, name=self._label(spec),
                                     reason=reason if isinstance(reason, str) else None, keep_runs=kept)
                        return
                    confirmed = removal.remove(calls, object_id, label) if calls.removes else True
            except NotFound as err:
                self._confirm_gone(calls, object_id, spec, str(err))
                return
            if not confirmed:
                self._confirm_gone(calls, object_id, spec, "not found before the platform accepted its delete")
        except Exception as err:
            raise for_resource(self.kind, self._label(spec), err) from None

    # ----- helpers -------------------------------------------------------------------------------
    def _keep_runs(self, calls: PlatformCalls[SpecT, OutT, RemoteT], spec: SpecT) -> int:
        """How many ended runs of this resource stay as records (0: a delete deletes its job): the
        resource's `keep_runs`, else the account's `mltrain:keepRuns`; 0 for kinds that keep none."""
        if not calls.keeps_records:
            return 0
        own = getattr(spec, "keep_runs", None)
        return _whole(own, 0) if own is not None else calls.settings.keep_runs

    def _parse(self, props: Props, strict: bool = True) -> SpecT:
        data = specs.user_props(props, self.spec_type)
        spec, failures = specs.validate(self.spec_type, data)
        if spec is None and not strict:
            spec = self.spec_type.model_construct(**data)
        if spec is None:
            reasons = "; ".join(f"{f} {r}" for f, r in failures)
            raise MltrainError(f"{self.kind}: invalid inputs: {reasons}")
        return spec

    def _label(self, spec: SpecT) -> str:
        return self.calls.label(vars(spec))  # a pydantic model's fields are its __dict__

    def _label_of(self, props: Props) -> str:
        """`_label` of inputs that may not be valid (the fields it reads, unchecked)."""
        return self.calls.label(props)

    def _deadline(self, spec: SpecT, op: str, engine: float | None, what: str,
                  untimed: str | None = None) -> deadline.Deadline:
        """The one deadline of this operation (`deadline.py`): `op`'s timeout, with the resource's delete
        timeout as the budget of a clean-up after it (a roll-back). `untimed`: the operation, when its
        timeout is not `op`'s own (an import takes the create's), for what its messages advise."""
        return deadline.Deadline.after(self.calls.timeout(spec, op, engine), what, fix=UNTIMED.get(untimed or op),
                                       cleanup=self.calls.timeout(spec, "delete"))

    def _untimed(self, op: str, what: str) -> deadline.Deadline:
        """The deadline of a check or diff: the resource's fixed budget (`PlatformCalls.fixed_timeouts`)."""
        return deadline.Deadline.after(self.calls.fixed_timeouts[op], what, fix=UNTIMED[op])

    def _called(self, name: str, props: Props) -> str:
        """The resource in an operation's deadline: its kind and name (its Pulumi name before it has one)."""
        urn = props.get(URN_KEY)
        shown = name or (resource_of(urn) if isinstance(urn, str) and urn else "")
        return f"{self.kind} '{shown}'" if shown else self.kind

    def _present(self, outs: Props) -> Props:
        """Outputs as a state keeps them: without the absent values (None) of output-only fields and of
        `adopt_id`. Every SDK reads a property missing from the outputs as it reads a null one (unknown in
        a preview; in an update the value the program gave, None here), so a null costs state and says nothing."""
        inputs = self.spec_type.model_fields
        return {k: v for k, v in outs.items() if v is not None or (k in inputs and k != "adopt_id")}

    def _present_created(self, created: Created) -> Created:
        return Created(created.id, self._present(created.outputs))

    def _only_outputs(self, values: Props) -> Props:
        return {k: v for k, v in values.items() if k in self.output_type.model_fields}

    def _outs(self, calls: PlatformCalls[SpecT, OutT, RemoteT], spec: SpecT, outs: Props, props: Props) -> Props:
        return {**spec.props(), **calls.derived(spec), **internal_outputs(props), **self._only_outputs(outs)}


def _whole(value: object, default: int) -> int:
    """A count from a state or the engine (numbers arrive as floats), else `default`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value)


def _attempt(attempt: int) -> Props:
    """A run's attempt number as state keeps it: none for a first attempt, which every reader takes a
    missing number for (as 0.1's states, which never wrote one)."""
    return {ATTEMPT_KEY: attempt} if attempt > 1 else {}


def _run_state(props: Props, *, unfinished: bool = False) -> Props:
    """The run's state a state keeps through updates and (with the `unfinished` mark) refreshes: a refresh
    does not end an unfinished create, which the next `up` goes on with."""
    if props.get(UNFINISHED_KEY) and not unfinished:  # its error went into FAILED_KEY too: both go
        props = {k: v for k, v in props.items() if k not in (UNFINISHED_KEY, FAILED_KEY)}
    return {k: props[k] for k in RUN_STATE_KEYS if props.get(k) is not None}


def _without_run_state(props: Props) -> Props:
    return {k: v for k, v in props.items() if k not in RUN_STATE_KEYS}


def _chosen(owner: Mark | None, name: object) -> bool:
    """Whether `name` is one the provider chose for `owner`'s resource (a name the user sets is every run's)."""
    return owner is not None and isinstance(name, str) and (name == owner.default_name() or owner.is_run_name(name))


def _run_line(name: object, owner: Mark | None) -> object:
    """What every run of a resource shares in its name: a provider-chosen name's stem (each ModelArts run
    kept as a record gets a name of its own, `Mark.run_name`), else the name itself."""
    return owner.name_stem(name) if owner is not None and isinstance(name, str) and name else name
