"""One HTTP layer for both platforms: httpx client, deadlines, retries with backoff, error mapping.

Every request goes through httpx's own transport (its connection pool, proxies and CA bundles as httpx
finds them in the environment). Retries are tenacity's, set up once per client (`Retrying` in
``new_client``): a stop rule that honours ``max_retries`` and the operation deadline, and a wait that
honours Retry-After. Inside ``single_attempt`` (a poll of ``waiter.wait_for``) a request is sent once
and a transient error goes to the caller, whose own pacing decides when to look again.

Reads are retried on 429 (honouring Retry-After), 5xx and transport errors. Writes that create
something are never retried blindly: a transport error, 500, 502 or 504 after sending raises
AmbiguousOutcome, and the caller looks the object up before trying again; 429 and 503 mean the
request was turned away, so those are retried like reads.

Deadlines are wall-clock totals, not per-read timeouts: a server that drips a byte a second would
otherwise keep a request alive forever. Each request gets min(policy.timeout, what the operation has
left), so the request timeout setting never outlasts the operation's deadline; see `deadline.py`.
"""

from __future__ import annotations

import contextvars
import email.utils
import heapq
import itertools
import math
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from . import __version__, cancel, deadline
from .config import Settings, endpoint_problem
from .errors import AmbiguousOutcome, ConfigError, Retryable, WaitTimeout

if TYPE_CHECKING:
    import ssl  # loaded by httpx when a client is made, not by this module's import

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
USER_AGENT = f"pulumi-mltrain/{__version__}"
RETRY_AFTER_CAP = 60.0  # the longest a Retry-After hint may make us wait, whatever it says
THROTTLED_ATTEMPTS = 50  # a throttled request outside any operation's deadline gives up after this many
MAX_CONNECTIONS = 16  # requests in flight per client; more wait for a free connection (pool timeout)


@dataclass(frozen=True)
class Policy:
    """Retry and timeout policy; small in tests, generous in production."""

    timeout: float = 30.0  # total per request: connect, send, and the whole answer
    max_retries: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 20.0
    verify_tls: bool = True

    @classmethod
    def of(cls, settings: Settings) -> Policy:
        """The policy an account's settings ask for (request timeout, retries, TLS verification)."""
        return cls(timeout=settings.request_timeout, max_retries=settings.max_retries,
                   verify_tls=not settings.insecure_skip_tls_verify)


# A platform-specific reader: (response, method, path) -> parsed data, or raises ApiError.
Decoder = Callable[[httpx.Response, str, str], Any]


_SINGLE: contextvars.ContextVar[bool] = contextvars.ContextVar("mltrain_single_attempt", default=False)


@contextmanager
def single_attempt() -> Iterator[None]:
    """Send each request inside the block once, leaving a transient error (Retryable) to the caller.

    For polls: the waiter paces them (a tenth of the time waited, or the platform's Retry-After), and
    retries with their own backoff inside a poll would stretch the lag past that during an outage.
    """
    token = _SINGLE.set(True)
    try:
        yield
    finally:
        _SINGLE.reset(token)


class _Cookies(httpx.Cookies):
    """Cookies read only from answers that set one: the platforms' APIs set none, and reading every
    answer for them (urllib request and response wrappers) cost a tenth of the client's CPU."""

    def extract_cookies(self, response: httpx.Response) -> None:
        if "set-cookie" in response.headers:
            super().extract_cookies(response)


class ApiClient(httpx.Client):
    """httpx.Client with `_Cookies` and its policy's `Retrying`; everything else as httpx does it."""

    def __init__(self, policy: Policy, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.policy = policy
        self.retrying = retrying(policy)  # built once: building it costs about as much CPU as a request
        self._api_cookies = _Cookies()
        self._base = str(self.base_url).rstrip("/")
        self._urls: dict[str, httpx.URL] = {}  # path -> absolute URL: parsing one is a tenth of a request
        self.skew = 0.0  # the platform's clock minus this machine's, from its answers' Date headers
        self._date: str | None = None

    def note_date(self, value: str | None) -> None:
        """Keeps the skew of the platform's clock from an answer's `Date` (whole seconds: its midpoint,
        within half a second), parsed only when it changes; no header or a bad one keeps the last."""
        if not value or value == self._date:
            return
        self._date = value
        stamp = _http_date(value)
        if stamp is not None:
            self.skew = stamp + 0.5 - time.time()

    def url_of(self, path: str) -> httpx.URL:
        """The absolute URL of ``path``, parsed once per path (at most 1024 kept: task paths hold IDs)."""
        url = self._urls.get(path)
        if url is None:
            if len(self._urls) >= 1024:
                self._urls.clear()
            url = self._urls[path] = httpx.URL(self._base + path)
        return url

    @property
    def cookies(self) -> httpx.Cookies:
        return self._api_cookies

    @cookies.setter
    def cookies(self, cookies: Any) -> None:
        self._api_cookies = _Cookies(cookies)


# The verifying TLS contexts of this process, one per CA source that httpx reads from the environment.
_TLS: dict[tuple[str, str], ssl.SSLContext] = {}
_TLS_LOCK = threading.Lock()


def tls_context() -> ssl.SSLContext:
    """The process's verifying TLS context, as httpx builds one (`httpx.create_ssl_context`: SSL_CERT_FILE,
    else SSL_CERT_DIR, else certifi's bundle), built once per CA source and shared by every https client.

    Loading a CA bundle costs about 20 ms of CPU, and a process may hold several clients (ModelArts, its
    IAM, AOM, a project look-up with AK/SK, each account); an `SSLContext` serves any number of
    connections and threads. Keyed by the variables httpx reads, so a changed CA source is honoured.
    """
    key = (os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))
    with _TLS_LOCK:
        found = _TLS.get(key)
        if found is None:
            found = _TLS[key] = httpx.create_ssl_context()
        return found


def new_client(base_url: str, policy: Policy, auth: httpx.Auth | None = None) -> httpx.Client:
    """The one reused client of a platform. TLS is verified for https (scheme parsed, any case)."""
    problem = endpoint_problem(base_url)
    if problem:
        raise ConfigError(f"endpoint {base_url!r} {problem}")
    https = httpx.URL(base_url).scheme.lower() == "https"
    return ApiClient(
        policy,
        base_url=base_url.rstrip("/"),
        auth=auth,
        timeout=_timeout(policy.timeout),
        # Plain HTTP needs no TLS context; https shares the process's (`tls_context`). httpx reads
        # proxies and NO_PROXY from the environment either way.
        verify=tls_context() if https and policy.verify_tls else False,
        headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        # As many kept alive as in flight: with fewer, httpcore's pool (1.0.9 and its master, encode/httpcore
        # issue 1110) may close a surplus idle connection it has just given to a queued request, and that
        # request's write or read then fails on a closed socket (a POST: an ambiguous outcome). One origin
        # per client, so no other rule of the pool closes an idle connection; unused ones expire after 5 s.
        limits=httpx.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS),
    )


def _timeout(budget: float) -> httpx.Timeout:
    return httpx.Timeout(budget, connect=min(budget, 10.0))


def parse_retry_after(value: str | None, date: str | None = None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), clamped to [0, 60].

    An HTTP date is the platform's clock: it counts from the same answer's ``date`` (its `Date` header)
    when that parses, so a machine whose clock is off waits what the platform asked, not 0 s or the cap.
    Anything else ("soon", "nan") is ignored: the normal backoff applies.
    """
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        at = _http_date(text)
        if at is None:
            return None
        sent = _http_date(date) if date else None
        seconds = at - (time.time() if sent is None else sent)
    if math.isnan(seconds):
        return None
    return min(max(0.0, seconds), RETRY_AFTER_CAP)


def _http_date(text: str) -> float | None:
    """The POSIX time of an HTTP date (one without a zone is GMT, as HTTP dates are), None if it is not one."""
    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    return (parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)).timestamp()


def retrying(policy: Policy) -> Retrying:
    """The retry rules of ``policy``: what ``call`` runs each request under (one per client).

    Wait: the server's Retry-After when it gives one (it knows when it will take the call, and waiting
    longer only adds to a throttled `pulumi up`), else exponential backoff with jitter (``backoff_initial``
    doubling, plus up to 1 s, at most ``backoff_max``), as the waiter paces polls. Stop: after ``max_retries``
    retries, when the next pause would end past the operation deadline, or once the engine has cancelled
    (`cancel.py`; the pause sleeps on that too): the last error is raised. A 429 goes on past
    ``max_retries``: the platform turned the request away and said when to come back, so it is sent again
    until the operation's deadline (or ``THROTTLED_ATTEMPTS``); an account that several stacks share makes `up` slower,
    never failed. Only Retryable errors are retried. tenacity keeps each call's state per thread, so one
    object serves every thread of the provider.
    """

    def wait(state: RetryCallState) -> float:
        err = _failure(state)
        hint = err.retry_after if isinstance(err, Retryable) else None
        if hint is not None:
            return hint
        # tenacity's wait_exponential_jitter, whose parameter names differ between 8.3 and 9.x.
        backoff = policy.backoff_initial * 2.0 ** (state.attempt_number - 1) + random.uniform(0, 1)
        return min(backoff, policy.backoff_max)

    attempts = stop_after_attempt(policy.max_retries + 1)

    def stop(state: RetryCallState) -> bool:
        err = _failure(state)
        throttled = isinstance(err, Retryable) and err.http_status == 429
        spent = state.attempt_number >= THROTTLED_ATTEMPTS if throttled else attempts(state)
        found = deadline.current()
        late = found is not None and state.upcoming_sleep >= found.left()
        return spent or late or cancel.requested()

    return Retrying(stop=stop, wait=wait, retry=retry_if_exception_type(Retryable), reraise=True,
                    sleep=cancel.pause)


def _failure(state: RetryCallState) -> BaseException | None:
    """The error of the attempt that just ended, if it failed."""
    return state.outcome.exception() if state.outcome is not None else None


def _abort(response: httpx.Response) -> None:
    """Shut the answer's socket down, which wakes a read blocked on it (called by the watchdog).

    The socket comes from httpx's documented ``network_stream`` response extension; a transport that
    gives none (a test's MockTransport) leaves the read to its own timeout.
    """
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        with suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain method: safe on TLS sockets too


class _Watchdog:
    """One thread per process that aborts answers still being read at their deadline.

    A thread per request (threading.Timer) cost more CPU than the rest of the request's own work
    in the client. Here a request adds one entry to a heap and, when it ends, clears it under the
    lock (so an answer is never aborted after it was read and its connection went back to the
    pool); cleared entries are dropped when they reach the top. The thread sleeps until the earliest
    deadline and is woken only when a new one comes earlier.
    """

    def __init__(self) -> None:
        self._heap: list[list[Any]] = []  # [at, seq, response or None once done]
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._wake_at = math.inf
        self._thread: threading.Thread | None = None

    def watch(self, at: float, response: httpx.Response) -> list[Any]:
        entry = [at, next(self._seq), response]
        with self._cond:
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mltrain-deadlines", daemon=True)
                self._thread.start()
            elif at < self._wake_at:
                self._cond.notify()
        return entry

    def done(self, entry: list[Any]) -> None:
        with self._cond:
            entry[2] = None

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                while self._heap and (self._heap[0][2] is None or self._heap[0][0] <= now):
                    response = heapq.heappop(self._heap)[2]
                    if response is not None:
                        _abort(response)
                self._wake_at = self._heap[0][0] if self._heap else math.inf
                self._cond.wait(None if not self._heap else max(0.0, self._wake_at - now))


_WATCHDOG = _Watchdog()


def skew(client: httpx.Client) -> float:
    """How far the platform's clock is ahead of this machine's, as its answers showed (0 before any)."""
    return client.skew if isinstance(client, ApiClient) else 0.0


def _url(client: httpx.Client, path: str, params: Any) -> httpx.URL:
    """The absolute URL of ``path`` (and ``params``) under the client's base URL, parsed once: a
    relative path costs httpx three URL parses per request."""
    if not params and isinstance(client, ApiClient):
        return client.url_of(path)
    return httpx.URL(str(client.base_url).rstrip("/") + path, params=params)


def send(client: httpx.Client, method: str, path: str, budget: float, **kwargs: Any) -> httpx.Response:
    """One request whose connect, send and complete answer fit in ``budget`` seconds.

    httpx bounds connect and each read by the budget; the watchdog shuts the socket down at the
    deadline, so a body that drips in byte by byte cannot outlive it either. Raises
    httpx.ReadTimeout when the deadline passes (a transport error, mapped like any other by ``call``).
    """
    end = time.monotonic() + budget
    url = _url(client, path, kwargs.pop("params", None))
    request = client.build_request(method, url, timeout=_timeout(budget), **kwargs)
    response = client.send(request, stream=True)
    entry = _WATCHDOG.watch(end, response)
    try:
        response.read()
    except httpx.TransportError:
        if time.monotonic() < end:
            raise
    else:
        if time.monotonic() < end:
            if isinstance(client, ApiClient):
                client.note_date(response.headers.get("date"))
            return response
    finally:
        _WATCHDOG.done(entry)
        response.close()
    raise httpx.ReadTimeout(f"no complete answer within {budget:.1f}s (got {response.num_bytes_downloaded} "
                            "bytes of the body)", request=request)


def call(
    client: httpx.Client,
    method: str,
    path: str,
    decode: Decoder,
    policy: Policy,
    *,
    idempotent: bool = True,
    **kwargs: Any,
) -> Any:
    """Send one request (retrying when safe) and return the decoded data or raise ApiError.

    Inside an operation's deadline (`deadline.scope`) no request starts after the deadline, none runs past it, and no
    retry is attempted whose backoff would end past it: the last error is raised instead. Inside
    ``single_attempt`` the request is sent once.
    """

    def attempt(budget: float) -> Any:
        try:
            response = send(client, method, path, budget, **kwargs)
        except httpx.TransportError as err:
            # No connection, or none free in the pool: the request never left.
            sent = not isinstance(err, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)
            what = _transport_failure(err, cut=budget < policy.timeout)
            if sent and not idempotent:
                raise AmbiguousOutcome(f"{method} {path}: {what}; the request was sent, so the platform may or "
                                       "may not have applied it") from None
            raise Retryable("network", method, path, 0, None, what) from None
        try:
            return decode(response, method, path)
        except Retryable as err:
            refused = bool({429, 503} & {err.http_status, err.code})
            if not idempotent and not refused:
                # A 500/502/504 on a write: the platform may have committed it before failing. A 429
                # or 503 says the request was turned away, so sending it again is safe.
                raise AmbiguousOutcome(f"{err}; the request may or may not have been applied") from None
            err.retry_after = parse_retry_after(response.headers.get("Retry-After"), response.headers.get("date"))
            raise

    def one_attempt() -> Any:
        found = deadline.current()
        left = None if found is None else found.at - time.monotonic()
        if found is not None and left is not None and left <= 0:
            raise WaitTimeout(f"{method} {path} was not sent: {found.what} ran out of time; {_fix(found)}")
        return attempt(policy.timeout if left is None else min(policy.timeout, left))

    if _SINGLE.get():
        return one_attempt()
    rules = client.retrying if isinstance(client, ApiClient) and client.policy == policy else retrying(policy)
    return rules(one_attempt)


def _transport_failure(err: httpx.TransportError, *, cut: bool) -> str:
    """What went wrong in transit, in words. A timeout that the operation's deadline cut short (``cut``:
    the request had less than its own timeout) says so, since raising the request timeout would not help."""
    current = deadline.current()
    detail = f"{type(err).__name__}: {str(err) or 'no detail'}"
    if isinstance(err, httpx.TimeoutException) and cut and current is not None and current.left() < 0.5:
        return f"no answer within the {round(current.seconds, 1):g}s deadline of {current.what}; {_fix(current)}"
    if isinstance(err, httpx.ConnectError | httpx.ConnectTimeout):
        return f"could not connect to {_origin(err)} ({detail})"
    if isinstance(err, httpx.TimeoutException):
        return f"no answer from the platform in time ({detail})"
    return f"the connection failed ({detail})"


def _fix(found: deadline.Deadline) -> str:
    """What to do about a deadline that ran out: its own advice, else raising the operation's timeout."""
    return found.fix or "raise its timeout (customTimeouts) or check the platform"


def _origin(err: httpx.TransportError) -> str:
    try:
        url = err.request.url
    except RuntimeError:  # raised without its request
        return "the platform"
    return f"{url.scheme}://{url.netloc.decode('ascii')}"

