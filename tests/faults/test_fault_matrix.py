"""Whatever the network or the platform does, after a create the state and the platform agree.

Each case injects one fault kind into the emulator and then checks: the IDs recorded equal the objects
on the platform (no duplicates, no orphans), and a failure names its cause. Every case ends with a
fault-free delete that must leave the platform empty.

The provider's own logic decides all of that, so every case runs in-process (the provider against the
emulator over loopback HTTP: what `create` returns is what the engine records, and an exception
records nothing). The engine adds only "a failed create records nothing, a successful one its ID" and a
destroy through faults: three cases run as three jobs of one stack through one `pulumi up`, and one
`pulumi destroy` of that stack meets 5xx and malformed answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from mltrain_emulator import defaults as d
from pulumi_mltrain.alaya.training_job import TrainingJobProvider as AlayaJobs
from pulumi_mltrain.config import Settings
from pulumi_mltrain.dynamic_provider import MltrainProvider
from pulumi_mltrain.modelarts import iam
from pulumi_mltrain.modelarts.training_job import TrainingJobProvider as ModelArtsJobs
from support import stacks
from support.pulumi_cli import Stack

CREATE = "/v1/subscription/training/create"
RESULT = "/v1/subscription/training/result"
DETAIL = "/v1/training/instance/*/detail"
JOBS = "/v2/*/training-jobs"


@dataclass(frozen=True)
class Case:
    name: str
    platform: str
    faults: list[dict[str, Any]]
    error: str | None = None  # None: `up` must succeed; else text the failure must contain
    job: dict[str, Any] = field(default_factory=dict)
    config: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    timeouts: dict[str, float] = field(default_factory=dict)  # customTimeouts, as seconds


CASES = [
    Case("429 with Retry-After on create", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "status", "status": 429, "retry_after": 1, "times": 2}]),
    Case("500 on the subscription result", "alaya",
         [{"method": "GET", "path": RESULT, "kind": "status", "status": 500, "times": 2}]),
    Case("502 on the task detail", "alaya",
         [{"method": "GET", "path": DETAIL, "kind": "status", "status": 502, "times": 2}]),
    Case("503 on create (not committed)", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "status", "status": 503, "times": 1}]),
    Case("HTTP 200 with business status 500 on create", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "business_500", "times": 1}]),
    Case("latency beyond the client timeout", "alaya",
         [{"method": "GET", "path": RESULT, "kind": "latency", "seconds": 2.5, "times": 1}],
         config={"mltrain:requestTimeout": "1"}),
    Case("connection dropped after the create was committed", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "drop_after_commit", "times": 1}]),
    Case("answer slower than the timeout after the create was committed", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "slow_after_commit", "seconds": 2.5, "times": 1}],
         config={"mltrain:requestTimeout": "1"}),
    Case("malformed JSON", "alaya", [{"method": "GET", "path": RESULT, "kind": "malformed", "times": 2}]),
    Case("a subscription that never resolves", "alaya",
         [{"method": "POST", "path": CREATE, "kind": "never_resolve"}],
         error="still PROCESSING after", timeouts={"create": 4}),
    # Transient errors during a wait are retried until the create deadline, then named in the error.
    Case("persistent 503 on the subscription result", "alaya",
         [{"method": "GET", "path": RESULT, "kind": "status", "status": 503}],
         error="503 Service Unavailable", timeouts={"create": 8}),
    Case("403 for a product the key may not use", "alaya", [], error="403 Forbidden",
         settings={"alaya_forbidden_products": [d.PRODUCT_TRAIN_2]}),
    Case("ModelArts token expiry mid-run", "modelarts",
         [{"method": "*", "path": f"{JOBS}*", "kind": "token_expiry", "times": 1, "after": 1}]),
    Case("ModelArts 429 with Retry-After on create", "modelarts",
         [{"method": "POST", "path": JOBS, "kind": "status", "status": 429, "retry_after": 1, "times": 2}]),
    Case("ModelArts connection dropped after the create was committed", "modelarts",
         [{"method": "POST", "path": JOBS, "kind": "drop_after_commit", "times": 1}]),
    Case("ModelArts 500 on create (not committed)", "modelarts",
         [{"method": "POST", "path": JOBS, "kind": "status", "status": 500, "times": 1}]),
]


def platform_ids(emulator: Any, platform: str) -> list[str]:
    state = emulator.admin.state()
    if platform == "alaya":
        return sorted(str(t["id"]) for t in state["alaya"]["tasks"])
    return sorted(str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"])


def stack_ids(stack: Stack, platform: str) -> list[str]:
    return sorted(str(r["id"]) for r in stack.resources(f"dynamic/{platform}:TrainingJob"))


# Secret values every case sets (besides the platform credentials): none may appear in any output.
SECRET_ENV = {"WANDB_API_KEY": "wandb-fault-matrix-secret-4711"}


def secret_values(emulator: Any) -> list[str]:
    return [*SECRET_ENV.values(), emulator.alaya_api_key, emulator.iam_password]


MODELARTS_JOB = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
                 "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}
# The settings every stack of tests/support/stacks.py sets.
BASE_CONFIG = {"mltrain:requestTimeout": "5", "mltrain:maxRetries": "3", "mltrain:ambiguityGrace": "5"}
OWNER = {"__mltrain_stack": "st-faults", "__mltrain_urn": "urn:pulumi:test::faults::TrainingJob::job"}


def _prepare(case: Case, emulator: Any) -> None:
    if case.settings:
        emulator.admin.set_settings(**case.settings)
    if case.platform == "modelarts":
        emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=0.8, delete_delay=0.2)


def make_provider(case: Case, emulator: Any) -> MltrainProvider[Any]:
    """The provider as the engine's provider process holds it, configured like `make_stack`'s stack."""
    _prepare(case, emulator)
    provider: MltrainProvider
    if case.platform == "alaya":
        provider = AlayaJobs()
        config = {"mltrain:alayaEndpoint": emulator.url, "mltrain:alayaApiKey": emulator.alaya_api_key}
    else:
        iam.forget_tokens()
        provider = ModelArtsJobs()
        config = {"mltrain:huaweiIamEndpoint": emulator.url, "mltrain:modelartsEndpoint": emulator.url,
                  "mltrain:huaweiProjectName": emulator.project_name, "mltrain:huaweiProjectId": emulator.project_id,
                  "mltrain:huaweiUser": emulator.iam_user, "mltrain:huaweiDomain": emulator.iam_domain,
                  "mltrain:huaweiPassword": emulator.iam_password}
    provider.handler.configure(Settings.load({**config, **BASE_CONFIG, **case.config}, env={}))
    return provider


def job_props(case: Case) -> dict[str, Any]:
    if case.platform == "alaya":
        args = stacks.alaya_job_args(**case.job)
        args["env"] = {**args.get("env", {}), **SECRET_ENV}
    else:
        args = {**MODELARTS_JOB, "environments": dict(SECRET_ENV), **case.job}
    return {**OWNER, "name": "job", **args, **({"timeouts": case.timeouts} if case.timeouts else {})}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fault(case: Case, emulator: Any) -> None:
    provider = make_provider(case, emulator)
    checked = provider.check({}, job_props(case))
    assert checked.failures == [], [(f.property, f.reason) for f in checked.failures]
    emulator.admin.set_faults(case.faults)

    recorded: list[str] = []
    try:
        recorded.append(str(provider.create(dict(checked.inputs)).id))
        output = ""
    except Exception as err:  # what the engine shows the user; nothing is recorded
        output = str(err)
    if case.error is None:
        assert output == "" and len(recorded) == 1, output
    else:
        assert not recorded, "the create was expected to fail"
        assert case.error in output, output
        assert output.startswith("TrainingJob 'job"), "the error names the resource"
    leaked = [v for v in secret_values(emulator) if v in output]
    assert not leaked, f"secret values in the output: {leaked}"
    if case.faults:
        assert emulator.admin.requests()["faults"]["total"] >= 1, "the fault was injected"
    assert platform_ids(emulator, case.platform) == sorted(recorded), \
        "no duplicate and no orphan: what is recorded and the platform hold the same jobs"

    emulator.admin.clear_faults()
    for job_id in recorded:
        provider.delete(job_id, dict(checked.inputs))
    assert platform_ids(emulator, case.platform) == []


ENGINE_CASES = {c.name: c for c in CASES if c.name in ("connection dropped after the create was committed",
                                                        "403 for a product the key may not use",
                                                        "ModelArts connection dropped after the create was committed")}


@pytest.mark.engine
def test_faults_through_the_engine(emulator: Any, mixed: Callable[..., Stack]) -> None:
    """What the engine records after creates the provider recovered (or refused) is what the platform holds;
    then a `destroy` meeting 5xx and malformed answers still empties the platform.

    One `up` of three jobs, one case of the matrix each: an Alaya NeW create whose connection drops after the
    commit, a ModelArts one likewise, and an Alaya NeW create refused with 403 (it starts once the first
    Alaya NeW job is recorded, so the dropped connection is the first job's)."""
    dropped, refused, ma_dropped = (ENGINE_CASES[n] for n in ("connection dropped after the create was committed",
                                                              "403 for a product the key may not use",
                                                              "ModelArts connection dropped after the create was "
                                                              "committed"))
    emulator.admin.set_settings(**refused.settings)
    stack = mixed({
        "job-dropped": {"kind": "alaya", "args": stacks.alaya_job_args(product_code=d.PRODUCT_TRAIN_1)},
        "job-ma-dropped": {"kind": "modelarts", "args": MODELARTS_JOB},
        "job-refused": {"kind": "alaya", "args": stacks.alaya_job_args(), "dependsOn": ["job-dropped"]},
    }, {"secretEnv": SECRET_ENV})
    emulator.admin.set_faults([*dropped.faults, *ma_dropped.faults])

    result = stack.up("--continue-on-error", check=False)
    output = result.stdout + result.stderr
    assert emulator.admin.requests()["faults"]["total"] == 2, "both connections were dropped after the commit"
    # The recovered creates (both platforms): each records its one job.
    assert len(stack_ids(stack, "alaya")) == 1 and len(stack_ids(stack, "modelarts")) == 1, output[-4000:]
    # The refused create: the command fails, naming the cause and the resource.
    assert result.returncode != 0
    assert str(refused.error) in output and "TrainingJob 'job-refused" in output, output[-4000:]
    leaked = [v for v in secret_values(emulator) if v in output]
    assert not leaked, f"secret values in the output: {leaked}"
    for platform in ("alaya", "modelarts"):
        assert platform_ids(emulator, platform) == stack_ids(stack, platform), \
            f"no duplicate and no orphan on {platform}: the stack and the platform hold the same jobs"

    # A destroy that meets 5xx and malformed answers (was test_destroy_survives_faults).
    emulator.admin.set_faults([
        {"method": "POST", "path": "/v1/training/instance/*/stop", "kind": "status", "status": 503, "times": 1},
        {"method": "DELETE", "path": "/v1/training/instance/*/delete", "kind": "status", "status": 500, "times": 2},
        {"method": "GET", "path": DETAIL, "kind": "malformed", "times": 1},
    ])
    stack.destroy()
    assert emulator.admin.requests()["faults"]["total"] > 2, "the destroy met faults"
    for platform in ("alaya", "modelarts"):
        assert platform_ids(emulator, platform) == []
        assert stack.resources(f"dynamic/{platform}:TrainingJob") == []
