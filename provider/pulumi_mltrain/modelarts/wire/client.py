"""Huawei ModelArts v2 client: one method per endpoint, AK/SK or IAM token auth, errors for people.

ModelArts answers errors as `{error_code, error_msg, error_solution}`; "not found" is HTTP 400 with
ModelArts.2775 (job) or ModelArts.2755 (algorithm), and only those become NotFound, so that refresh
and delete treat them as "gone". Any other error that does not carry a ModelArts.xxxx code (a plain
404, an API gateway's APIG.xxxx, an HTML page) did not come from ModelArts: EndpointError, naming the
URL and `mltrain:modelartsEndpoint`. 429 (ModelArts.2799, APIG.0308) and 5xx are retried by the
transport. Answers are checked against `answers.py` before they leave the client.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from ... import transport
from ...answers import (
    MAX_TEXT,
    NOT_JSON,
    Answer,
    M,
    body_summary,
    bound,
    cut,
    full_url,
    json_body,
    looks_like_a_page,
    parse,
    plain,
    read,
)
from ...config import Settings
from ...errors import AmbiguousOutcome, ApiError, EndpointError, NotFound, Retryable, UnexpectedAnswer
from . import answers, contract
from .iam import AKSK_KEYS, AkSkAuth, IamTokenAuth

ENDPOINT_KEY = "mltrain:modelartsEndpoint"


def decode_for(platform: str, own_prefix: str, credentials: str, prometheus: bool = False) -> transport.Decoder:
    """A decoder for a Huawei API whose own error codes start with `own_prefix` (`prometheus`: and whose
    errors may be Prometheus' `{status: "error", errorType, error}`, as AOM's are); a 401/403 says to check
    `credentials` (the keys of the auth in use)."""

    def decode(response: httpx.Response, method: str, path: str) -> Any:
        url, status, body = full_url(response, path), response.status_code, json_body(response)
        if response.is_success:
            if status == 204 or not response.content.strip():
                return None
            if body is not NOT_JSON:
                return body
            if looks_like_a_page(response):
                raise EndpointError(platform, method, url, status, None, body_summary(response, body), ENDPOINT_KEY)
            raise Retryable(platform, method, path, status, None, f"unreadable response body: {response.text[:200]!r}")
        code: str | None = None
        message = response.reason_phrase or "error"
        if isinstance(body, dict):
            raw_code = body.get("error_code") or body.get("code") or body.get("errorType")
            code = str(raw_code) if isinstance(raw_code, str | int) and raw_code else None
            raw_message = body.get("error_msg") or body.get("message") or body.get("error")
            message = cut(str(raw_message).strip(), MAX_TEXT) if isinstance(raw_message, str) else message
        message = message.rstrip(".")
        own = prometheus and isinstance(body, dict) and body.get("status") == "error"
        if code in contract.NOT_FOUND_CODES:
            raise NotFound(platform, method, path, status, code, message)
        if status in transport.RETRY_STATUSES or code in contract.RETRYABLE_CODES:
            raise Retryable(platform, method, path, status, code, message)
        if own or (code is not None and code.startswith(own_prefix)):
            raise ApiError(platform, method, path, status, code, message)
        if status in (401, 403):  # a gateway refusing the credentials (APIG.1002 ...) still means "auth"
            raise ApiError(platform, method, path, status, code,
                           f"{message} ({url}); check {credentials} and `{ENDPOINT_KEY}`")
        raise EndpointError(platform, method, url, status, code, body_summary(response, body), ENDPOINT_KEY)

    return decode


AOM_PLATFORM = "Huawei AOM"


def aom_endpoint(modelarts_endpoint: str) -> str:
    """AOM's endpoint beside ModelArts': the same URL with the host's `modelarts.` label made `aom.`
    (https://modelarts.cn-north-4.myhuaweicloud.com -> https://aom.cn-north-4.myhuaweicloud.com); an
    endpoint of another form (a gateway, the emulator) is taken to serve AOM's paths too."""
    url = httpx.URL(modelarts_endpoint)
    if url.host.startswith("modelarts."):
        return str(url.copy_with(host="aom." + url.host.removeprefix("modelarts."))).rstrip("/")
    return modelarts_endpoint.rstrip("/")


class ModelArtsClient:
    """Thread-safe: one per settings in a provider process, shared by its threads."""

    def __init__(self, settings: Settings, http: httpx.Client | None = None) -> None:
        self.policy = transport.Policy.of(settings)
        endpoint = settings.require("modelarts_endpoint", "Huawei ModelArts")
        # AK/SK when set (signed calls, no token fetched); otherwise IAM password tokens.
        self.auth: AkSkAuth | IamTokenAuth = (AkSkAuth if settings.uses_aksk else IamTokenAuth)(settings, self.policy)
        credentials = AKSK_KEYS if settings.uses_aksk else "the Huawei credentials"
        self._decode = decode_for(contract.PLATFORM, "ModelArts.", credentials)
        self.http = http or transport.new_client(endpoint, self.policy, self.auth)
        self._aom_endpoint = aom_endpoint(endpoint)
        self._aom_http = self.http if http is not None or self._aom_endpoint == endpoint.rstrip("/") else None
        self._decode_aom = decode_for(AOM_PLATFORM, "AOM.", credentials, prometheus=True)
        self._project_id: str | None = None
        self._lock = threading.Lock()

    @property
    def project_id(self) -> str:
        with self._lock:
            if self._project_id is None:
                self._project_id = self.auth.resolve_project_id()
            return self._project_id

    def _path(self, template: str, **parts: str) -> str:
        return template.format(project_id=self.project_id, **parts)

    def _call(self, method: str, path: str, *, idempotent: bool = True, **kwargs: Any) -> Any:
        return transport.call(self.http, method, path, self._decode, self.policy, idempotent=idempotent, **kwargs)

    def _read(self, model: type[Answer], method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """Call and check the answer against `model` (UnexpectedAnswer naming the field if it does not fit)."""
        return read(model, self._call(method, path, **kwargs), platform=contract.PLATFORM, call=f"{method} {path}")

    def _create(self, model: type[Answer], path: str, body: dict[str, Any], noun: str) -> dict[str, Any]:
        """POST a create, never retried blindly; an answer that cannot be read may hide a committed create:
        AmbiguousOutcome, so the caller looks the object up by name before sending it again."""
        try:
            return self._read(model, "POST", path, json=body, idempotent=False)
        except (UnexpectedAnswer, EndpointError) as err:
            if isinstance(err, EndpointError) and not 200 <= err.http_status < 300:
                raise
            raise AmbiguousOutcome(f"{err}; the {noun} may or may not have been created") from None

    # ----- catalogues ----------------------------------------------------------------------------
    def flavors(self, flavor_type: str | None = None) -> list[dict[str, Any]]:
        params = {"flavor_type": flavor_type} if flavor_type else None
        return list(self._read(answers.FlavorList, "GET", self._path(contract.FLAVORS), params=params)["flavors"])

    def engines(self) -> list[dict[str, Any]]:
        return list(self._read(answers.EngineList, "GET", self._path(contract.ENGINES))["items"])

    # ----- algorithms ----------------------------------------------------------------------------
    def create_algorithm(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._create(answers.Algorithm, self._path(contract.ALGORITHMS), body, "algorithm")

    def algorithm(self, algorithm_id: str) -> dict[str, Any]:
        return self._read(answers.Algorithm, "GET", self._path(contract.ALGORITHM, id=algorithm_id))

    def update_algorithm(self, algorithm_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Full-body PUT (lists sent empty are cleared); answers 201 with the algorithm (or nothing)."""
        path = self._path(contract.ALGORITHM, id=algorithm_id)
        data = self._call("PUT", path, json=body)
        return {} if data in (None, {}) else read(answers.Algorithm, data, platform=contract.PLATFORM,
                                                  call=f"PUT {path}")

    def delete_algorithm(self, algorithm_id: str) -> None:
        self._call("DELETE", self._path(contract.ALGORITHM, id=algorithm_id))

    def find_algorithms(self, name: str) -> list[dict[str, Any]]:
        """Algorithms named exactly `name` (the list's `searches=name:` matches substrings)."""
        pages = self._listed(answers.AlgorithmPage, "GET", self._path(contract.ALGORITHMS), lambda n: {"params": {
            "offset": n * contract.PAGE_LIMIT, "limit": contract.PAGE_LIMIT, "searches": f"name:{name}"}})
        return [a for a in pages if a["metadata"].get("name") == name]

    # ----- training jobs -------------------------------------------------------------------------
    def create_job(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._create(answers.Job, self._path(contract.JOBS), body, "training job")

    def job(self, job_id: str) -> dict[str, Any]:
        return self._read(answers.Job, "GET", self._path(contract.JOB, id=job_id))

    def update_job_description(self, job_id: str, description: str) -> None:
        self._call("PUT", self._path(contract.JOB, id=job_id), json={"description": description})

    def delete_job(self, job_id: str) -> None:
        self._call("DELETE", self._path(contract.JOB, id=job_id))

    def terminate_job(self, job_id: str) -> dict[str, Any] | None:
        """POST terminate; the job as answered (202), None when the answer carries no job."""
        data = self._call("POST", self._path(contract.JOB_ACTIONS, id=job_id),
                          json={"action_type": contract.TERMINATE})
        return bound(data) if isinstance(data, dict) else None

    def job_tags(self, job_id: str) -> list[dict[str, Any]]:
        data = self._call("GET", self._path(contract.JOB_TAGS, id=job_id))
        tags = data.get("tags") if isinstance(data, dict) else None
        return [bound(t) for t in tags if isinstance(t, dict)] if isinstance(tags, list) else []

    def tag_job(self, job_id: str, tags: list[dict[str, str]]) -> None:
        self._call("POST", self._path(contract.JOB_TAGS_CREATE, id=job_id), json={"tags": tags})

    def untag_job(self, job_id: str, tags: list[dict[str, str]]) -> None:
        """Remove tags by key (the others, the owner mark among them, stay)."""
        self._call("DELETE", self._path(contract.JOB_TAGS_DELETE, id=job_id), json={"tags": tags})

    def find_jobs(self, name: str) -> list[dict[str, Any]]:
        """Jobs named exactly `name`, newest first. Raises on any answer that is not a search page: an
        empty list means "none", never "could not tell"."""
        return [job for job in self.search_jobs(name) if job["metadata"].get("name") == name]

    def search_jobs(self, name_prefix: str = "", phase: str | None = None) -> list[dict[str, Any]]:
        """Jobs whose name starts with `name_prefix` (and in `phase`: `modelarts.list_training_jobs`), newest
        first, as search rows (`offset` is a page index here). The search's `like` filter matches anywhere in
        the name: the prefix is checked here too."""
        filters = [{"key": "name", "operator": "like", "value": [name_prefix]}] if name_prefix else []
        if phase:
            filters.append({"key": "phase", "operator": "in", "value": [phase]})
        rows = self._listed(answers.JobPage, "POST", self._path(contract.JOB_SEARCHES), lambda n: {"json": {
            "offset": n, "limit": contract.PAGE_LIMIT, "sort_by": "create_time", "order": "desc", "filters": filters}})
        return [row for row in rows if str(row["metadata"].get("name") or "").startswith(name_prefix)
                and (not phase or (isinstance(row.get("status"), dict) and row["status"].get("phase") == phase))]

    def _listed(self, model: type[Answer], method: str, path: str,
                request: Callable[[int], dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """The items of a paged list, `request(n)` giving the arguments of page n, up to a short or the last
        page. Raises on any answer that is not a page: an empty list means "none", never "could not tell"."""
        for n in itertools.count():
            page = read(model, self._call(method, path, **request(n)), platform=contract.PLATFORM,
                        call=f"{method} {path}")
            yield from page["items"]
            if len(page["items"]) < contract.PAGE_LIMIT or (n + 1) * contract.PAGE_LIMIT >= (page.get("total") or 0):
                return

    def _when_ready(self, model: type[M], path: str, **kwargs: Any) -> M | None:
        """GET a task's logs or metrics, checked against `model`; None while they are not ready (ModelArts'
        2776/2777, or no body)."""
        try:
            data = self._call("GET", path, **kwargs)
        except ApiError as err:
            if err.code in contract.NOT_READY_CODES:
                return None
            raise
        return None if data is None else parse(model, data, platform=contract.PLATFORM, call=f"GET {path}")

    def log_preview(self, job_id: str, task: str) -> str | None:
        """The latest part of a task's log (the platform caps it); None while the logs are not ready."""
        page = self._when_ready(answers.LogPreview, self._path(contract.JOB_LOG_PREVIEW, id=job_id, task=task))
        return None if page is None else page.content or ""

    def events(self, job_id: str, limit: int = contract.EVENTS_LIMIT) -> list[dict[str, Any]]:
        """The job's latest `limit` events, oldest first."""
        page = self._read(answers.EventPage, "GET", self._path(contract.JOB_EVENTS, id=job_id),
                          params={"offset": 0, "limit": min(limit, contract.EVENTS_LIMIT), "order": "desc"})
        return list(reversed(page["events"]))

    def metrics(self, job_id: str, task: str) -> list[dict[str, Any]] | None:
        """Per-minute samples per metric ({metric, value[]}); None while not ready."""
        page = self._when_ready(answers.Metrics, self._path(contract.JOB_METRICS, id=job_id, task=task))
        return None if page is None else [plain(m) for m in page.metrics]

    def ft_artifacts(self, job_id: str) -> list[dict[str, Any]]:
        """A fine-tune job's artifacts (ListFtArtifacts): its final artifact names the trained model."""
        page = self._read(answers.FtArtifacts, "GET", self._path(contract.JOB_FT_ARTIFACTS, id=job_id),
                          params={"offset": 0, "limit": 100})
        return list(page.get("artifact_info") or [])

    def custom_metric(self, job_id: str, metric: str, start: float, end: float) -> float | None:
        """The latest sample of a job's custom metric in AOM between `start` and `end` (epoch seconds), of
        any of its series (one per task); None when AOM holds none."""
        with self._lock:
            if self._aom_http is None:
                self._aom_http = transport.new_client(self._aom_endpoint, self.policy, self.auth)
            http = self._aom_http
        step = max(contract.AOM_STEP, int((end - start) / contract.AOM_MAX_POINTS) + 1)
        path = contract.AOM_QUERY_RANGE.format(project_id=self.project_id)
        query = f'{metric}{{{contract.AOM_JOB_LABEL}="{job_id}"}}'
        params = {"query": query, "start": str(int(start)), "end": str(int(end) + 1), "step": str(step)}
        data = transport.call(http, "GET", path, self._decode_aom, self.policy, params=params)
        answer = parse(answers.PromAnswer, data, platform=AOM_PLATFORM, call=f"GET {path}")
        samples = [(at, value) for series in (answer.data.result if answer.data is not None else [])
                   for at, value in series.values if not math.isnan(value)]  # NaN: no data
        return max(reversed(samples), key=lambda sample: sample[0])[1] if samples else None  # the last of a time
