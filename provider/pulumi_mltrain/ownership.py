"""Who owns a platform object: a mark of the stack and resource that made it, kept on the object.

Accounts are shared by stacks, teams and forks, so a name is no proof of ownership. Every object the
provider creates carries a `Mark`: the stack identity (a random value made once per stack and kept in
its state, see `program/stack_identity.py`) and the resource's URN. The look-ups that make creates
idempotent adopt an object only when its mark is this stack's and this resource's; anything else that holds
the name is refused with a message that names it, its owner, and how to take it over on purpose (`adopt_id`).

Where each platform keeps the mark is written in its contract file (`alaya/wire/contract.py`,
`modelarts/wire/contract.py`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import MltrainError

# The prefix of every internal resource input and state key (never an input of the user's): owner
# marks, account identity and settings, and the marks of states (failed, partial, imported).
INTERNAL_PREFIX = "__mltrain_"
# Internal resource inputs that carry the owner from the program to the provider.
STACK_KEY = "__mltrain_stack"
URN_KEY = "__mltrain_urn"
# Marks the state of a held failed run (lifecycle/record.py): a job whose run failed during its create's
# wait, kept on the platform as its record or deleted (`on_failure`); its value says what failed and how
# to run it again. No later `pulumi up` starts the same run again unless asked (handler.py), and every
# `up` fails on it: the plugin answers with a partially created resource, and the dynamic form's program
# side raises the error once the outputs arrive (see program.resource.MltrainResource).
FAILED_KEY = "__mltrain_failed"
# Marks the state of a job whose create (or resume) the engine cancelled while it waited: recorded as it
# was last seen, and the next `pulumi up` goes on waiting for it (an update that resumes the create). Its
# error is FAILED_KEY's too, the one mark the dynamic form's program fails the step on (`held_failure`).
UNFINISHED_KEY = "__mltrain_unfinished"
# The attempt of the run a training job's state holds (1 for a first run or a new declaration), against
# its `max_attempts`: a held failure with attempts left is replaced by the next `pulumi up`.
ATTEMPT_KEY = "__mltrain_attempt"
# Set on a held failure whose job was deleted (`on_failure="delete"`): a refresh keeps the record.
REMOVED_KEY = "__mltrain_removed"
# Set by check when the resource is already in the state: a create with it is a replacement, which
# must never take the old object over (see lifecycle/takeover.py).
EXISTS_KEY = "__mltrain_exists"
# Set by the dynamic form's program side on a training job's inputs in a preview (a dry run) only, so
# that check can mark the step that starts a run (runs.RUN_STARTS). Never in a state: the program of
# `pulumi up`'s update does not set it, and a diff ignores a key the state lacks.
PREVIEW_KEY = "__mltrain_preview"
# Marks a state whose inputs were read back by `pulumi import` (the platform's complete copy); its next
# diff leaves out what the declaration leaves to the platform (`takeover.imported_unchanged`).
IMPORTED_KEY = "__mltrain_imported"
# Marks the plugin's state of a create that failed or was cancelled after its object came to exist, which
# the engine records as partially created: the next update finishes the create (`Handler.update`), within
# the create's timeout, its value (True when the engine gave none; see `Handler.partial`).
PARTIAL_KEY = f"{INTERNAL_PREFIX}partial"


# The length of the token of a run name (`Mark.run_name`).
RUN_TOKEN = 6


@dataclass(frozen=True)
class Mark:
    stack: str
    urn: str

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> Mark | None:
        stack, urn = props.get(STACK_KEY), props.get(URN_KEY)
        if isinstance(stack, str) and stack and isinstance(urn, str) and urn:
            return cls(stack, urn)
        return None

    def text(self) -> str:
        """One string, for platforms that keep a single value (an environment variable)."""
        return f"{self.stack} {self.urn}"

    @classmethod
    def parse(cls, text: Any) -> Mark | None:
        if not isinstance(text, str):
            return None
        stack, _, urn = text.strip().partition(" ")
        return cls(stack, urn) if stack and urn else None

    def describe(self) -> str:
        return f"resource {self.urn} of stack identity {self.stack}"

    def default_name(self) -> str:
        """The physical name this resource gets when the user sets none (see `physical_name`)."""
        return physical_name(resource_of(self.urn), f"{self.stack}/{self.urn}")

    def run_name(self, previous: str) -> str:
        """The name of a run that replaces the run named `previous`, on a platform whose names are unique
        among all its jobs, kept records too (ModelArts): this resource's stem and a token of the previous
        name. Chosen once per run (a preview and the update choose the same), kept in the state."""
        token = hashlib.sha256(f"{self.stack}/{self.urn}/{previous}".encode()).hexdigest()[:RUN_TOKEN]
        return f"{self.run_stem()}-{token}"

    def run_stem(self) -> str:
        """`default_name` shortened to leave room for a run token."""
        return physical_name(resource_of(self.urn), f"{self.stack}/{self.urn}", 64 - RUN_TOKEN - 1)

    def is_run_name(self, name: str) -> bool:
        """Whether `name` is one `run_name` gives this resource (its stem and a token)."""
        stem = self.run_stem()
        token = name[len(stem) + 1:]
        return name.startswith(f"{stem}-") and len(token) == RUN_TOKEN and all(c in "0123456789abcdef" for c in token)

    def name_stem(self, name: str) -> str:
        """What the names of every run of this resource start with, when `name` is one the provider chose
        (`default_name` or a `run_name`); else `name` itself (a name the user chose is every run's)."""
        if name == self.default_name() or self.is_run_name(name):
            default, stem = self.default_name(), self.run_stem()
            return next((default[:i] for i in range(min(len(default), len(stem))) if default[i] != stem[i]),
                        default[:len(stem)])
        return name


def physical_name(resource_name: str, seed: str, max_len: int = 64) -> str:
    """The resource name and a suffix that is unique to this stack (identity) and resource (URN)."""
    suffix = hashlib.sha256(seed.encode()).hexdigest()[:8]
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", resource_name).strip("-")[: max_len - 9] or "job"
    return f"{base}-{suffix}"


def owns(ours: Mark | None, found: Mark | None, name: str) -> bool:
    """Whether an object named `name` that carries `found` (None: no mark can be read) is this resource's.

    Its mark decides. An object without a readable mark is ours only under the name this resource
    alone would give it (`Mark.default_name` or a `Mark.run_name`: a hash of the stack's random identity and
    the URN): the mark of a create interrupted between its POST and its mark (ModelArts marks a job by a call of its
    own), or a platform that does not return the mark in its answers. A name the user chose proves
    nothing, and is never enough.
    """
    if ours is None:
        return False
    return found == ours or (found is None and (name == ours.default_name() or ours.is_run_name(name)))


def held_failure(props: Mapping[str, Any]) -> str | None:
    """The held failure a state records: FAILED_KEY's error, unless it is an unfinished wait's."""
    text = props.get(FAILED_KEY)
    return str(text) if text and not props.get(UNFINISHED_KEY) else None


def internal(props: Mapping[str, Any]) -> dict[str, Any]:
    """The internal keys of inputs or a state (INTERNAL_PREFIX)."""
    return {k: v for k, v in props.items() if k.startswith(INTERNAL_PREFIX)}


# The owner mark's keys: kept once per resource, in its inputs (which the program sends and check
# returns, so create, update and the look for a failed create's object read them there), never
# repeated in its outputs. Nothing reads the mark from outputs: delete and diff never use it, and a
# refresh keeps the inputs' copy: the plugin's read is handed the inputs, and the dynamic form's read, handed
# the outputs alone, gives no inputs unless the platform's copy drifted (the engine keeps the stored ones).
MARK_KEYS = (STACK_KEY, URN_KEY)


def internal_outputs(props: Mapping[str, Any]) -> dict[str, Any]:
    """The internal keys of inputs that the outputs keep: all but the owner mark (`MARK_KEYS`)."""
    return {k: v for k, v in props.items() if k.startswith(INTERNAL_PREFIX) and k not in MARK_KEYS}


def resource_of(urn: str) -> str:
    """The resource name at the end of a URN (`urn:pulumi:stack::project::type::name`)."""
    return urn.rsplit("::", 1)[-1]


def type_of(urn: str) -> str:
    """The type token of a URN (`urn:pulumi:stack::project::type::name`; a child's is the last of
    its `parent$child` chain)."""
    return urn.rsplit("::", 2)[-2].rsplit("$", 1)[-1] if urn.count("::") >= 2 else ""


def project_and_stack(urn: str) -> tuple[str, str]:
    """`urn:pulumi:STACK::PROJECT::TYPE::NAME` -> (PROJECT, STACK)."""
    head, _, rest = urn.partition("::")
    return rest.partition("::")[0], head.removeprefix("urn:pulumi:")


def derived_stack_identity(urn: str, configured: str | None = None) -> str:
    """The stack identity of a stack that keeps none in its state (the plugin's, which cannot register a
    resource of its own): `pl-` and a hash of the `stackIdentity` setting, else of the URN's
    `project/stack`. `abandoned.py` derives it again to recognise such a stack's jobs."""
    if configured:
        seed = f"setting:{configured}"
    else:
        project, stack = project_and_stack(urn)
        seed = f"{project}/{stack}"
    return f"pl-{hashlib.sha256(seed.encode()).hexdigest()[:16]}"


def claim(noun: str, object_id: str, name: str, found: Mark | None, ours: Mark | None) -> None:
    """Accept an object found by name only if it is ours (`owns`); else say whose it is and what to do."""
    if owns(ours, found, name):
        return
    if found is None:
        owner = "it carries no owner mark, so it was made outside this stack (by hand, another tool or an " \
                "older version of this provider), or a create of this resource was interrupted before it could " \
                "mark it; a name chosen in the program cannot tell these apart (a name left to the provider can)"
    elif ours is not None and found.stack == ours.stack:
        owner = f"it belongs to another resource of this stack ({found.urn})"
    else:
        owner = f"it belongs to {found.describe()}"
    raise MltrainError(
        f"the {noun} name {name!r} is already taken by {noun} {object_id}, and {owner}. The provider never "
        f"takes over an object that is not its own: choose another name (or leave `name` unset for a unique "
        f"one), or, to manage that {noun} from this stack on purpose, set adopt_id=\"{object_id}\""
    )
