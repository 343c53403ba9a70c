"""The provider's contract (``pulumi_mltrain.{alaya,modelarts}.contract``) against the emulator's own
statement of the platforms (``mltrain_emulator.{alaya,modelarts}.contract``), item by item.

The two are written apart on purpose: the emulator validates with its own limits and answers with its own
codes, so a wrong constant in the provider fails here instead of passing against an emulator that shares
it. Each case names what it compares. Every public name of the provider's contracts is either compared
below or listed as the provider's own (``PROVIDER_ONLY``, with the reason): a new constant must be
classified before the suite passes.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from mltrain_emulator.alaya import contract as ea
from mltrain_emulator.modelarts import contract as em
from pulumi_mltrain.alaya.training_job import TrainingJobSpec
from pulumi_mltrain.alaya.wire import contract as pa
from pulumi_mltrain.modelarts.models import NAME_RE
from pulumi_mltrain.modelarts.wire import contract as pm
from support.loopback import LOOPBACK


def _path(path: str) -> str:
    """A path with its placeholders unnamed: ``{id}`` and ``{training_job_id}`` name the same segment."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def _literals(annotation: Any) -> set[str]:
    """The string values a (possibly Optional, Annotated) Literal type of the provider's spec allows."""
    if typing.get_origin(annotation) is typing.Literal:
        return {a for a in typing.get_args(annotation) if isinstance(a, str)}
    return set().union(*(_literals(a) for a in typing.get_args(annotation)))


def _spec_values(field: str) -> Callable[[], set[str]]:
    return lambda: _literals(TrainingJobSpec.model_fields[field].annotation)


# (case id, the provider's value, the emulator's value): thunks, so that a missing name fails its own case.
Case = tuple[str, Callable[[], Any], Callable[[], Any]]

ALAYA_PATHS: list[tuple[str, str]] = [  # (provider name, emulator name)
    ("CREATE", "CREATE"), ("RESULT", "RESULT"), ("DETAIL", "TASK_DETAIL"), ("STOP", "TASK_STOP"),
    ("DELETE", "TASK_DELETE"), ("LIST", "TASK_LIST"), ("PRODUCTS", "PRODUCTS"), ("STORAGES", "STORAGES"),
]
ALAYA_TASK_STATES: list[tuple[str, str]] = [
    ("QUEUED", "TASK_QUEUED"), ("STARTING", "TASK_STARTING"), ("RUNNING", "TASK_RUNNING"),
    ("SUCCEEDED", "TASK_SUCCEEDED"), ("FAILED", "TASK_FAILED"), ("STOPPED", "TASK_STOPPED"),
    ("PAUSED", "TASK_PAUSED"), ("DELETING", "TASK_DELETING"),
]
ALAYA_SAME_NAME = [  # the same name and value on both sides
    "SUB_PROCESSING", "SUB_SUCCESS", "SUB_FAILED", "OK", "NOT_FOUND", "CONFLICT", "STORAGE_ACTIVE",
    "STORAGE_TYPES", "NAME_MAX", "DESC_MAX", "WORKER_COUNT", "PRIORITY", "MAX_RETRY_COUNT", "TIMEOUT_HOURS",
]

MODELARTS_PATHS: list[tuple[str, str]] = [
    ("FLAVORS", "FLAVORS"), ("ENGINES", "ENGINES"), ("ALGORITHMS", "ALGORITHMS"), ("ALGORITHM", "ALGORITHM"),
    ("JOBS", "JOBS"), ("JOB", "JOB"), ("JOB_ACTIONS", "JOB_ACTIONS"), ("JOB_SEARCHES", "JOB_SEARCHES"),
    ("JOB_LOG_URL", "JOB_LOG_URL"), ("JOB_LOG_PREVIEW", "JOB_LOG_PREVIEW"), ("JOB_METRICS", "JOB_METRICS"),
    ("JOB_EVENTS", "JOB_EVENTS"), ("JOB_TAGS", "JOB_TAGS"), ("JOB_TAGS_CREATE", "JOB_TAGS_CREATE"),
    ("JOB_TAGS_DELETE", "JOB_TAGS_DELETE"), ("JOB_FT_ARTIFACTS", "JOB_FT_ARTIFACTS"),
]
IAM_PATHS: list[tuple[str, str]] = [("TOKENS", "IAM_TOKENS"), ("PROJECTS", "IAM_PROJECTS")]
MODELARTS_PHASES: list[tuple[str, str]] = [
    ("CREATING", "PHASE_CREATING"), ("PENDING", "PHASE_PENDING"), ("RUNNING", "PHASE_RUNNING"),
    ("COMPLETED", "PHASE_COMPLETED"), ("FAILED", "PHASE_FAILED"), ("ABNORMAL", "PHASE_ABNORMAL"),
    ("TERMINATING", "PHASE_TERMINATING"), ("TERMINATED", "PHASE_TERMINATED"),
]
MODELARTS_SAME_NAME = [
    "TOKEN_HEADER", "AUTH_HEADER", "PREFIX", "JOB_KIND", "TERMINATE", "PAGE_LIMIT", "EVENTS_LIMIT",
    "MAX_DESCRIPTION", "MAX_ENVIRONMENTS", "RETRY_ANNOTATION", "UNCONDITIONAL_RETRY_ANNOTATION",
    "HANG_RETRY_ANNOTATION", "JOB_NOT_FOUND", "ALGORITHM_NOT_FOUND", "DUPLICATE_JOB_NAME",
    "DUPLICATE_ALGORITHM_NAME", "CANNOT_TERMINATE", "STATUS_CHANGED", "TOO_MANY_REQUESTS", "GATEWAY_THROTTLED",
    "METRIC_NO_DATA", "METRICS", "FINAL_ARTIFACT", "TRAIN_TYPES", "AOM_QUERY_RANGE", "AOM_JOB_LABEL",
    "CUSTOM_METRIC_NAME", "TAG_VALUE_MAX",
]

CASES: list[Case] = [
    *[(f"alaya-path-{p}", lambda p=p: _path(getattr(pa, p)), lambda e=e: _path(ea.PREFIX + getattr(ea, e)))
      for p, e in ALAYA_PATHS],
    *[(f"alaya-state-{p}", lambda p=p: getattr(pa, p), lambda e=e: getattr(ea, e)) for p, e in ALAYA_TASK_STATES],
    *[(f"alaya-{n}", lambda n=n: getattr(pa, n), lambda n=n: getattr(ea, n)) for n in ALAYA_SAME_NAME],
    ("alaya-states-terminal", lambda: set(pa.TERMINAL), lambda: set(ea.TERMINAL)),
    # The provider stops a task whose state is live and not paused; the emulator accepts a stop in these.
    ("alaya-states-stoppable", lambda: set(pa.LIVE - {pa.PAUSED}), lambda: set(ea.STOPPABLE)),
    ("alaya-default-priority", lambda: TrainingJobSpec.model_fields["priority"].default,
     lambda: ea.DEFAULT_PRIORITY),
    # The provider sends the field table's spellings; the emulator matches them case-insensitively.
    ("alaya-training-types", lambda: {v.lower() for v in pa.TRAINING_TYPES.values()},
     lambda: {v.lower() for v in ea.TRAINING_TYPES}),
    ("alaya-training-types-accepted", lambda: {v.lower() for v in _spec_values("training_type")()},
     lambda: {v.lower() for v in ea.TRAINING_TYPES}),
    ("alaya-create-types", _spec_values("create_type"), lambda: set(ea.CREATE_TYPES)),
    ("alaya-create-types-supported-are-create-types", lambda: set(pa.CREATE_TYPES_SUPPORTED),
     lambda: set(pa.CREATE_TYPES_SUPPORTED) & set(ea.CREATE_TYPES)),
    ("alaya-image-types", _spec_values("image_type"), lambda: set(ea.IMAGE_TYPES)),
    ("alaya-frameworks", _spec_values("training_framework"), lambda: set(ea.FRAMEWORKS)),
    *[(f"iam-path-{p}", lambda p=p: getattr(pm, p), lambda e=e: getattr(em, e)) for p, e in IAM_PATHS],
    *[(f"modelarts-path-{p}", lambda p=p: _path(getattr(pm, p)), lambda e=e: _path(em.PREFIX + getattr(em, e)))
      for p, e in MODELARTS_PATHS],
    *[(f"modelarts-phase-{p}", lambda p=p: getattr(pm, p), lambda e=e: getattr(em, e))
      for p, e in MODELARTS_PHASES],
    ("modelarts-phases", lambda: pm.PHASES, lambda: em.PHASES),
    ("modelarts-phases-terminable", lambda: set(pm.TERMINABLE), lambda: set(em.TERMINABLE)),
    ("modelarts-phases-settled", lambda: set(pm.SETTLED), lambda: set(em.ENDED)),
    *[(f"modelarts-{n}", lambda n=n: getattr(pm, n), lambda n=n: getattr(em, n)) for n in MODELARTS_SAME_NAME],
    ("modelarts-not-found-codes", lambda: set(pm.NOT_FOUND_CODES),
     lambda: {em.JOB_NOT_FOUND, em.ALGORITHM_NOT_FOUND}),
    ("modelarts-too-many-requests-codes", lambda: set(pm.RETRYABLE_CODES),
     lambda: {em.TOO_MANY_REQUESTS, em.GATEWAY_THROTTLED}),
    ("modelarts-not-ready-codes", lambda: set(pm.NOT_READY_CODES),
     lambda: {em.LOG_NOT_READY, em.METRICS_NOT_READY}),
    ("modelarts-name-pattern", lambda: NAME_RE.pattern, lambda: em.NAME_PATTERN),
]
# The provider's names the set-level cases above compare (beside those of the lists).
COMPARED_SETS = {
    pa: {"TERMINAL", "LIVE", "TRAINING_TYPES", "CREATE_TYPES_SUPPORTED"},
    pm: {"PHASES", "TERMINABLE", "SETTLED", "NOT_FOUND_CODES", "RETRYABLE_CODES", "NOT_READY_CODES"},
}

# Names of the provider's contracts that state no platform fact the emulator has, and why.
PROVIDER_ONLY = {
    pa: {
        "REACHED": "what each wait_for target accepts: the provider's semantics",
        "NEVER": "what a wait_for target never becomes: the provider's semantics",
        "BEFORE_RUNNING": "what max_pending_minutes bounds: the provider's semantics",
        "OWNER_ENV": "the provider's owner mark", "SECRET_DETAIL_KEYS": "what the provider redacts",
        "RUN_REASON_ENV": "where the provider keeps a run's reason",
        "PROVIDER_ENV": "the provider's own variables (owner mark, run reason)",
    },
    pm: {
        "PLATFORM": "a label in errors", "IAM_PLATFORM": "a label in errors",
        "ERROR_LOG_LINES": "how much the provider quotes", "ERROR_LOG_BYTES": "how much the provider quotes",
        "ERROR_EVENTS": "how much the provider quotes",
        "FAILURES": "what a wait_for target never becomes: the provider's semantics",
        "REACHED": "what each wait_for target accepts: the provider's semantics",
        "BEFORE_RUNNING": "what max_pending_minutes bounds: the provider's semantics",
        "OWNER_STACK": "the provider's owner mark", "OWNER_URN": "the provider's owner mark",
        "AOM_STEP": "the resolution the provider asks AOM for",
        "AOM_MAX_POINTS": "how many points the provider asks AOM for",
        "RECORD_KEPT": "the provider's tag of a kept run record", "RECORD_REASON": "the provider's record tag",
        "RECORD_REPLACED_BY": "the provider's record tag", "RESUMED_FROM_TAG": "the provider's lineage tag",
    },
}


@pytest.mark.parametrize(("providers", "emulators"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_provider_and_emulator_agree(providers: Callable[[], Any], emulators: Callable[[], Any]) -> None:
    assert providers() == emulators()


def _compared_names(module: Any) -> set[str]:
    if module is pa:
        pairs, same = ALAYA_PATHS + ALAYA_TASK_STATES, ALAYA_SAME_NAME
    else:
        pairs, same = MODELARTS_PATHS + IAM_PATHS + MODELARTS_PHASES, MODELARTS_SAME_NAME
    return {p for p, _ in pairs} | set(same) | COMPARED_SETS[module]


@pytest.mark.parametrize("module", [pa, pm], ids=["alaya-contract", "modelarts-contract"])
def test_every_provider_constant_is_compared_or_its_own(module: Any) -> None:
    public = {n for n in vars(module) if n.isupper()}
    unclassified = public - _compared_names(module) - set(PROVIDER_ONLY[module])
    assert not unclassified, f"compare these with the emulator's contract, or list them as the provider's own: " \
                             f"{sorted(unclassified)}"


def _unrouted(emulator: EmulatorHandle, method: str, path: str) -> bool:
    """Whether the running emulator has no route for ``method path`` (FastAPI's own 404 or 405)."""
    concrete = re.sub(r"\{[^}]*\}", "x", path.replace("{project_id}", d.DEFAULT_PROJECT_ID))
    with httpx.Client(**LOOPBACK) as client:
        answer = client.request(method, emulator.url + concrete)
    return answer.status_code in (404, 405) and answer.json() in ({"detail": "Not Found"},
                                                                    {"detail": "Method Not Allowed"})


SERVED: list[tuple[str, str, str]] = [  # (case id, method, full path of the emulator's contract)
    *[(f"alaya{prefix}-{name}", method, prefix + getattr(ea, name))
      for prefix in ea.PREFIXES
      for method, name in [("POST", "CREATE"), ("GET", "RESULT"), ("GET", "RESULT_BY_KEY"), ("GET", "TASK_DETAIL"),
                           ("POST", "TASK_STOP"), ("DELETE", "TASK_DELETE"), ("GET", "TASK_LIST"),
                           ("GET", "CHECK_ENABLED"), ("GET", "PRODUCTS"), ("GET", "STORAGES")]],
    ("iam-IAM_TOKENS", "POST", em.IAM_TOKENS), ("iam-IAM_PROJECTS", "GET", em.IAM_PROJECTS),
    *[(f"modelarts-{method}-{name}", method, em.PREFIX + getattr(em, name))
      for method, name in [("GET", "FLAVORS"), ("GET", "ENGINES"), ("GET", "ENGINES_SEED"), ("POST", "ALGORITHMS"),
                           ("GET", "ALGORITHMS"), ("GET", "ALGORITHM"), ("PUT", "ALGORITHM"),
                           ("DELETE", "ALGORITHM"), ("POST", "JOBS"), ("GET", "JOB"), ("PUT", "JOB"),
                           ("DELETE", "JOB"), ("POST", "JOB_ACTIONS"), ("POST", "JOB_SEARCHES"),
                           ("GET", "JOB_LOG_URL"), ("GET", "JOB_LOG_PREVIEW"), ("GET", "JOB_METRICS"),
                           ("GET", "JOB_EVENTS"), ("GET", "JOB_TAGS"), ("POST", "JOB_TAGS_CREATE"),
                           ("DELETE", "JOB_TAGS_DELETE"), ("GET", "JOB_FT_ARTIFACTS")]],
    ("aom-GET-AOM_QUERY_RANGE", "GET", em.AOM_QUERY_RANGE), ("aom-POST-AOM_QUERY_RANGE", "POST", em.AOM_QUERY_RANGE),
]


@pytest.mark.parametrize(("method", "path"), [s[1:] for s in SERVED], ids=[s[0] for s in SERVED])
def test_emulator_serves_its_contract(emulator: EmulatorHandle, method: str, path: str) -> None:
    """The emulator's statement of a path is a route it serves, so the comparison above is of what it serves."""
    assert not _unrouted(emulator, method, path)


@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/training/instance/list/extra"),
                                              ("PUT", em.PREFIX + em.JOB_ACTIONS)],
                         ids=["unknown-path", "wrong-method"])
def test_a_path_the_emulator_does_not_serve_is_told_apart(emulator: EmulatorHandle, method: str, path: str) -> None:
    assert _unrouted(emulator, method, path)
