"""A fake platform for the lifecycle tests: an in-memory cloud of training jobs (`Cloud`) and the
resource kind that runs on it (`FakeJobs`, a `PlatformCalls` with a spec and outputs of its own), so
that the real `Handler` and the lifecycles (`lifecycle/`) can be driven in milliseconds, with no HTTP,
no emulator and no engine.

`Cloud` is the platform: it keeps the jobs, moves them through their states one read at a time, and
answers as a platform does (its own not-found, a refusal in a state, a name already taken). Its knobs
are the platform's faults: a create whose answer is lost (with or without the job made, shown at once
or only later), a refused create, a create that answers a token to resolve after some polls (or that
fails), a mark that cannot be written, a delete that fails, a job that lingers in DELETING, a not-found
that its own listing contradicts, the engine's Cancel arriving at the n-th read. `FakeJobs` maps the
primitives of `lifecycle/protocol.py` onto it, as `alaya/training_job.py` and
`modelarts/training_job.py` map theirs onto their clients; nothing here stands in for our own code.

Waits are instant: `FakeJobs.poll` pauses at most a millisecond, and `settings()` (ambiguityGrace 0)
makes the look after an unanswered create a single one.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pulumi_mltrain import cancel, deadline
from pulumi_mltrain import spec as specs
from pulumi_mltrain.config import Settings
from pulumi_mltrain.errors import AmbiguousOutcome, ApiError, NotFound, RemoteFailure
from pulumi_mltrain.handler import Handler
from pulumi_mltrain.lifecycle import takeover
from pulumi_mltrain.lifecycle.protocol import Busy, Named, Outs, Sent, Stop
from pulumi_mltrain.ownership import STACK_KEY, URN_KEY, Mark
from pulumi_mltrain.platform_calls import PlatformCalls, Props
from pulumi_mltrain.run_control import RunControl
from pulumi_mltrain.waiter import Backoff, wait_for

PLATFORM = "Fake Cloud"
QUEUED, RUNNING, SUCCEEDED, FAILED = "QUEUED", "RUNNING", "SUCCEEDED", "FAILED"
STOPPING, STOPPED, DELETING = "STOPPING", "STOPPED", "DELETING"
GONE = "(gone)"  # the platform has forgotten the job: its reads answer not found
LIVE = frozenset({QUEUED, RUNNING})  # a stop applies
BUSY = frozenset({QUEUED, RUNNING, STOPPING})  # a delete is refused
NEVER = frozenset({FAILED, STOPPED})
DUPLICATE_NAME = "FC.0409"
REFUSED_IN_STATE = "FC.0410"

# Polls as fast as a test wants: at most a millisecond apart.
QUICK = Backoff(first=0.0, maximum=0.001)

URN = "urn:pulumi:dev::infra::fake:TrainingJob::train"
MINE = Mark("st-fake", URN)
OWNER: Props = {STACK_KEY: MINE.stack, URN_KEY: MINE.urn}
OTHER = Mark("st-other", URN)

# What a create does when it is sent (`Cloud.answers`, one per submit, then "ok"):
# ok       the job is made and the answer arrives;
# lost     the job is made, the answer is lost (the listing shows it);
# lagging  the job is made, the answer is lost, and the next `lag_looks` listings do not show it yet;
# late     the answer is lost and the job appears only after the next create was sent (a slow first request);
# unsent   the answer is lost and no job is made;
# refused  the platform refuses the create (400).
Answer = Literal["ok", "lost", "lagging", "late", "unsent", "refused"]


@dataclass
class Job:
    """A job as the platform keeps it. `ahead`: the states its next reads show, one per read."""

    id: str
    name: str
    image: str
    mark: Mark | None
    state: str
    ahead: deque[str]
    created_at: float
    accuracy: float | None = None
    reason: str = ""
    started: bool = False
    hidden_looks: int = 0  # listings that do not show it yet
    hidden_until: int = 0  # the number of creates sent from which anything shows it


@dataclass(frozen=True)
class Seen:
    """A job as one read answers it: the platform's answer type of `FakeJobs`."""

    id: str
    name: str
    image: str
    state: str
    created_at: float
    started: bool
    accuracy: float | None
    reason: str
    mark: Mark | None


@dataclass
class Request:
    """A create answered with a token (`Cloud.tokens`): the job it made, or makes once the token resolves."""

    name: str
    mark: Mark | None
    job_id: str | None
    polls_left: int
    fails: bool


@dataclass
class Cloud:
    """The platform: its jobs, every call made to it, and its faults (see the module)."""

    jobs: dict[str, Job] = field(default_factory=dict)
    calls: list[tuple[str, str]] = field(default_factory=list)  # (call, job ID or name), in order
    answers: deque[Answer] = field(default_factory=deque)
    lag_looks: int = 1  # listings that miss the job of a "lagging" create
    run: tuple[str, ...] = (RUNNING,)  # the states a new job shows, one per read; the last one stays
    tokens: int | None = None  # a create answers a token that resolves after this many polls
    token_fails: bool = False  # ... and then fails
    token_makes_job: bool = True  # whether a create answered with a token makes its job (at once)
    unique_names: bool = False  # a create of a name a job holds is refused (ModelArts)
    mark_in_create: bool = True  # the create carries the owner mark (Alaya NeW); else only `tag` writes it
    marks_unread: bool = False  # listings do not return the mark
    mark_fails: bool = False
    delete_fails: bool = False
    stopping_reads: int = 1  # reads that show a stopped job STOPPING before STOPPED
    deleting_reads: int = 0  # reads that show a deleted job DELETING before it is gone (listings show it too)
    not_found: set[str] = field(default_factory=set)  # IDs whose own reads say not found, though listed
    queued_since: float = 0.0  # seconds before now that the platform dates a new job's create
    reports_start: bool = True  # whether a job's answers say that it has run (a start time)
    accuracy: float | None = None  # the final accuracy a job reports
    reason: str = ""  # the reason a job's answers give (a failure's, or why it is pending)
    cancel_at: tuple[str, int] | None = None  # the engine cancels at the n-th call of this kind
    slow: dict[str, float] = field(default_factory=dict)  # seconds a call of this kind takes to answer
    counts: Counter[str] = field(default_factory=Counter)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _requests: dict[str, Request] = field(default_factory=dict)

    # ----- the platform's API -----------------------------------------------------------------
    def create(self, name: str, image: str, mark: Mark | None) -> Job | str:
        """POST a job: the job, or the token of the request (`tokens`)."""
        self._called("submit", name)
        answer = self.answers.popleft() if self.answers else "ok"
        if answer == "refused":
            raise ApiError(PLATFORM, "POST", "/jobs", 400, "FC.0400", f"image {image!r} is not allowed")
        if answer == "unsent":
            raise AmbiguousOutcome("POST /jobs: the connection dropped before the platform answered")
        if self.unique_names and any(j.name == name for j in self.jobs.values() if j.state != DELETING):
            raise ApiError(PLATFORM, "POST", "/jobs", 409, DUPLICATE_NAME, f"a job named {name!r} exists")
        made = None
        if self.tokens is None or self.token_makes_job:
            made = self.put(name, mark if self.mark_in_create else None, image=image)
        if answer == "lagging" and made is not None:
            made.hidden_looks = self.lag_looks
        if answer == "late" and made is not None:
            made.hidden_until = self.counts["submit"] + 1
        if answer != "ok":
            raise AmbiguousOutcome("POST /jobs: the answer was lost after the platform had the request")
        if self.tokens is None:
            assert made is not None
            return made
        token = f"req-{next(self._ids)}"
        self._requests[token] = Request(name, mark if self.mark_in_create else None,
                                        made.id if made is not None else None, self.tokens, self.token_fails)
        return token

    def result(self, token: str) -> tuple[str, str | None]:
        """The request's status (PROCESSING, SUCCESS, FAILED) and, on success, its job's ID."""
        self._called("result", token)
        request = self._requests[token]
        if request.polls_left > 0:
            request.polls_left -= 1
            return "PROCESSING", None
        if request.fails:
            return "FAILED", None
        if request.job_id is None:  # made only now
            request.job_id = self.put(request.name, request.mark).id
        return "SUCCESS", request.job_id

    def read(self, job_id: str) -> Seen:
        """GET one job: as it is now; its next read shows its next state."""
        self._called("get", job_id)
        job = self._job(job_id)
        seen = Seen(job.id, job.name, job.image, job.state, job.created_at, job.started and self.reports_start,
                    job.accuracy, job.reason, job.mark)
        if job.ahead:
            self._enter(job, job.ahead.popleft())
        return seen

    def listing(self, name: str) -> list[Job]:
        """The jobs of a name, those being deleted included."""
        self._called("list", name)
        shown = []
        for job in self.jobs.values():
            if job.name != name or self.counts["submit"] < job.hidden_until:
                continue
            if job.hidden_looks > 0:
                job.hidden_looks -= 1
                continue
            shown.append(job)
        return shown

    def stop(self, job_id: str) -> Literal["asked", "stopping", "ended"]:
        self._called("stop", job_id)
        job = self._job(job_id)
        if job.state == STOPPING:
            return "stopping"
        if job.state not in LIVE:
            return "ended"
        self._enter(job, STOPPING if self.stopping_reads > 0 else STOPPED)
        job.ahead = deque([STOPPING] * max(0, self.stopping_reads - 1) + [STOPPED])
        return "asked"

    def delete(self, job_id: str) -> None:
        self._called("delete", job_id)
        job = self._job(job_id)
        if self.delete_fails:
            raise ApiError(PLATFORM, "DELETE", f"/jobs/{job_id}", 500, "FC.0500", "internal error")
        if job.state in BUSY:
            raise ApiError(PLATFORM, "DELETE", f"/jobs/{job_id}", 409, REFUSED_IN_STATE,
                           f"a job cannot be deleted while {job.state}")
        if self.deleting_reads == 0:
            del self.jobs[job_id]
            return
        self._enter(job, DELETING)
        job.ahead = deque([DELETING] * (self.deleting_reads - 1) + [GONE])

    def tag(self, job_id: str, mark: Mark) -> None:
        """Write the owner mark (a call of its own: ModelArts' job tags)."""
        self._called("tag", job_id)
        job = self._job(job_id)
        if self.mark_fails:
            raise ApiError(PLATFORM, "POST", f"/jobs/{job_id}/tags", 403, "FC.0403", "not allowed to tag")
        job.mark = mark

    # ----- for the tests ------------------------------------------------------------------------
    def put(self, name: str, mark: Mark | None, *, image: str = "img:1", states: tuple[str, ...] | None = None,
            job_id: str | None = None) -> Job:
        """A job on the platform, made by anyone (this create, another stack, a person)."""
        first, *ahead = states or self.run
        job = Job(job_id or f"j-{next(self._ids)}", name, image, mark, first, deque(ahead),
                  time.time() - self.queued_since, self.accuracy, self.reason)
        self._enter(job, first)
        self.jobs[job.id] = job
        return job

    def ids(self) -> list[str]:
        """The jobs the platform holds (a job being deleted still counts)."""
        return sorted(self.jobs)

    def state(self, job_id: str) -> str:
        return self.jobs[job_id].state

    def made(self, call: str) -> list[str]:
        """What the calls of one kind were made on, in order."""
        return [what for name, what in self.calls if name == call]

    def _job(self, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None or job_id in self.not_found:
            raise NotFound(PLATFORM, "GET", f"/jobs/{job_id}", 404, "FC.0404", f"job {job_id} does not exist")
        return job

    def _enter(self, job: Job, state: str) -> None:
        if state == GONE:
            del self.jobs[job.id]
            return
        job.state = state
        job.started = job.started or state == RUNNING

    def _called(self, call: str, what: str) -> None:
        self.calls.append((call, what))
        self.counts[call] += 1
        if call in self.slow:
            time.sleep(self.slow[call])
        if self.cancel_at == (call, self.counts[call]):
            cancel.signal()  # the engine's Cancel arrives while this call is answered


class FakeJobSpec(RunControl):
    """The inputs of a job of the fake platform."""

    name: str = specs.spec_field(description="Job name; when unset, chosen from the resource name.", min_length=1)
    image: str = specs.spec_field(description="Container image.", min_length=1)
    description: str | None = specs.spec_field(None, description="Recorded only.", on_change="record")
    wait_for: Literal["created", "running", "completed"] = specs.spec_field(
        "running", description="What create waits for.", on_change="local")
    max_pending_minutes: float | None = specs.spec_field(
        None, description="Minutes the job may stay QUEUED while create waits.", on_change="local", gt=0)
    min_accuracy: float | None = specs.spec_field(
        None, description="A gate on the final accuracy of a completed job.", on_change="local")


class FakeJobOutputs(specs.Output):
    job_id: str | None = specs.output_field(description="The job's ID.", is_id=True)
    status: str | None = specs.output_field(description="The job's state.", always=True)
    reason: str | None = specs.output_field(description="Why the job is in its state.")
    accuracy: float | None = specs.output_field(description="The final accuracy the gate read.")
    gate_met: bool | None = specs.output_field(description="Whether the gate held.")
    run_reason: str | None = specs.output_field(description="Why the run exists.")


class FakeJobs(PlatformCalls[FakeJobSpec, FakeJobOutputs, Seen]):
    """A job of the fake platform, as the lifecycles run it (bound to one `Cloud` by `jobs_on`)."""

    kind: ClassVar[str] = "TrainingJob"
    noun: ClassVar[str] = "job"
    platform: ClassVar[str] = PLATFORM
    runs: ClassVar[bool] = True
    spec_type = FakeJobSpec
    output_type = FakeJobOutputs
    default_timeouts: ClassVar[dict[str, float]] = {"create": 10.0, "update": 10.0, "delete": 10.0}
    recorded_once: ClassVar[tuple[str, ...]] = ("accuracy", "gate_met")
    poll: ClassVar[Backoff] = QUICK
    pending_states: ClassVar[frozenset[str]] = frozenset({QUEUED})
    cloud: ClassVar[Cloud]

    @classmethod
    def configured(cls, settings: Any) -> bool:
        return True

    # ----- the job --------------------------------------------------------------------------------
    def get(self, object_id: str) -> Seen:
        return self.cloud.read(object_id)

    def state_of(self, remote: Seen) -> str:
        return remote.state

    def stop(self, object_id: str) -> Stop:
        answer = self.cloud.stop(object_id)
        return {"asked": Stop.ASKED, "stopping": Stop.STOPPING, "ended": Stop.ENDED}[answer]

    def delete(self, object_id: str) -> None:
        try:
            self.cloud.delete(object_id)
        except ApiError as err:
            if err.code == REFUSED_IN_STATE:
                raise Busy(str(err)) from None
            raise

    def live(self, state: str) -> bool:
        return state in LIVE

    def settled(self, state: str) -> bool:
        return state not in BUSY

    def listing(self, name: str) -> list[tuple[str, str]]:
        return [(job.id, job.state) for job in self.cloud.listing(name)]

    def named(self, name: str) -> list[Named]:
        return [Named(job.id, None if self.cloud.marks_unread else job.mark)
                for job in self.cloud.listing(name) if job.state != DELETING]

    def read(self, object_id: str, spec: FakeJobSpec) -> tuple[Props, Props | None] | None:
        seen = self.cloud.read(object_id)
        if seen.state == DELETING:
            return None
        return _outputs(seen), {"name": seen.name, "image": seen.image}

    # ----- its create ------------------------------------------------------------------------------
    def submit(self, spec: FakeJobSpec, owner: Mark | None) -> Sent:
        made = self.cloud.create(spec.name, spec.image, owner)
        if isinstance(made, str):
            return Sent(pending=made)
        return Sent(object_id=made.id)

    def resolve(self, spec: FakeJobSpec, owner: Mark | None, pending: str) -> str:
        status, job_id = wait_for(lambda: self.cloud.result(pending), lambda r: r[0] != "PROCESSING",
                                  until=deadline.operation(), what=f"request {pending} of job {spec.name!r}",
                                  state_of=lambda r: r[0], backoff=self.poll).value
        if status != "SUCCESS" or job_id is None:
            raise RemoteFailure(f"{PLATFORM} could not create the job (request {pending} ended {status})")
        return job_id

    def duplicate(self, err: ApiError) -> bool:
        return err.code == DUPLICATE_NAME

    def mark(self, object_id: str, spec: FakeJobSpec, owner: Mark | None) -> None:
        if owner is not None and self.cloud.jobs[object_id].mark != owner:
            self.cloud.tag(object_id, owner)

    def accept(self, object_id: str, spec: FakeJobSpec) -> None:
        seen = self.cloud.read(object_id)
        takeover.require_match(spec, self.noun, object_id, {"name": seen.name, "image": seen.image})

    # ----- the run ---------------------------------------------------------------------------------
    def goal(self, spec: FakeJobSpec) -> tuple[frozenset[str], frozenset[str]] | None:
        if spec.wait_for == "created":
            return None
        return (frozenset({RUNNING, SUCCEEDED}) if spec.wait_for == "running" else frozenset({SUCCEEDED})), NEVER

    def what(self, spec: FakeJobSpec, object_id: str) -> str:
        return f"job {spec.name!r} ({object_id})"

    def recorded(self, spec: FakeJobSpec, remote: Seen) -> Outs:
        return _outputs(remote)

    def unread(self, object_id: str) -> Outs:
        return {"job_id": object_id, "status": "UNKNOWN"}

    def ended(self, spec: FakeJobSpec, object_id: str, remote: Seen) -> tuple[str, str]:
        return remote.reason or "no reason given", ""

    def gate(self, spec: FakeJobSpec, object_id: str, remote: Seen, recorded: Outs) -> tuple[Outs, str | None]:
        if spec.min_accuracy is None:
            return {}, None
        if remote.accuracy is None:
            return {"gate_met": False}, f"{remote.state} but reported no accuracy; the gate is >= {spec.min_accuracy:g}"
        if remote.accuracy < spec.min_accuracy:
            return ({"accuracy": remote.accuracy, "gate_met": False},
                    f"{remote.state} but missed its gate: accuracy was {remote.accuracy:g}, the gate is "
                    f">= {spec.min_accuracy:g}")
        return {"accuracy": remote.accuracy, "gate_met": True}, None

    def created_at(self, remote: Seen) -> float | None:
        return remote.created_at

    def has_started(self, remote: Seen) -> bool:
        return remote.started

    def pending_reason(self, remote: Seen) -> str:
        return remote.reason


def _outputs(seen: Seen) -> Props:
    return {"job_id": seen.id, "status": seen.state, "reason": seen.reason or None}


FakeHandler = Handler[FakeJobSpec, FakeJobOutputs, Seen]


def jobs_on(cloud: Cloud, *, poll: Backoff = QUICK) -> type[FakeJobs]:
    """The platform calls of the fake job kind on `cloud` (each handler operation makes one instance)."""

    class OnCloud(FakeJobs):
        pass

    OnCloud.cloud = cloud
    OnCloud.poll = poll
    return OnCloud


def handler_on(cloud: Cloud, settings: Settings | None = None, *, poll: Backoff = QUICK) -> FakeHandler:
    """The real handler of the fake job kind on `cloud`, configured like a provider process
    (`Handler(calls)`, as the registry builds one, minus the registry)."""
    made: FakeHandler = Handler(jobs_on(cloud, poll=poll))
    made.configure(settings if settings is not None else configured())
    return made


def configured(**config: str) -> Settings:
    """The provider's settings from stack config (`mltrain:` keys without the prefix), no environment;
    an unanswered create is looked for once (`ambiguityGrace` 0) unless `config` says otherwise."""
    return Settings.load({"ambiguityGrace": "0", **config}, env={})


def declared(**args: Any) -> Props:
    """What the program sends for a job: the owner mark, a name and an image, and `args`."""
    return {**OWNER, "name": "train", "image": "img:1", **args}


def checked(jobs: FakeHandler, props: Props, olds: Props | None = None) -> Props:
    """The inputs `check` passes on (against the stored inputs `olds`); fails on any check failure."""
    result = jobs.check(olds or {}, props)
    assert result.failures == (), result.failures
    return dict(result.inputs)


def stored(props: Props, outputs: Props) -> Props:
    """What the engine stores for a resource of the dynamic form: its inputs merged into its outputs."""
    return {**props, **outputs}
