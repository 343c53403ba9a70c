"""Reading platform answers: validate against a response model, bound the strings, return plain data.

The clients return dicts and lists (the resource modules read them), but only after a pydantic model
has checked every field the code relies on. A malformed answer becomes UnexpectedAnswer naming the
call and the field, never an AttributeError, KeyError or TypeError deep inside a resource.

Platform strings are bounded before they leave a client, so that no answer can blow up the state:
free text (a `reason`, `message`, `description`...) is cut at MAX_TEXT characters, every other string
at MAX_STRING (far beyond any ID, command or URL a platform sends).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import UnexpectedAnswer

# Alaya NeW's times are "YYYY-MM-DD HH:MM:SS" in Beijing time (api.md A.0).
BEIJING = timezone(timedelta(hours=8))
MAX_TEXT = 4096
MAX_STRING = 65536
FREE_TEXT_KEYS = frozenset({"reason", "message", "msg", "description", "desc", "error_msg", "error_solution"})


class Answer(BaseModel):
    """Base of response models: fields the code reads are declared; anything else passes through.

    Each is built on its first `parse` (pydantic's `defer_build`), not at import: a provider process
    reads a few of its platform's answers (a destroy no catalogue, a preview often none), and building
    the validators of all of them was a sizeable part of its start-up.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)


M = TypeVar("M", bound=Answer)


def cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters followed by a marker saying it was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [cut at {limit} characters]"


def bound(value: Any, key: str = "") -> Any:
    """`value` with every string bounded: MAX_TEXT under a free-text key, MAX_STRING elsewhere."""
    if isinstance(value, str):
        return cut(value, MAX_TEXT if key.lower() in FREE_TEXT_KEYS else MAX_STRING)
    if isinstance(value, Mapping):
        return {k: bound(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [bound(v, key) for v in value]
    return value


def json_type(value: Any) -> str:
    """The JSON name of a value's type (never the value: answers can carry secrets)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


# Pydantic error types in JSON terms (its own messages name Python classes).
_EXPECTED = {
    "model_type": "should be an object", "dict_type": "should be an object", "model_attributes_type":
    "should be an object", "list_type": "should be an array", "string_type": "should be a string",
    "int_type": "should be an integer", "float_type": "should be a number", "bool_type": "should be a boolean",
    "union_tag_invalid": "has an unknown kind",
}


def _is_tag(part: Any) -> bool:
    """A union member's tag in an error location (`int`, `list[str]`), not a field name."""
    return isinstance(part, str) and (part in ("int", "float", "str", "bool") or "[" in part)


def describe(err: ValidationError, prefix: str = "") -> str:
    """The first problem of a validation error as `<field> <problem>`, e.g. `data.status is required`."""
    errors = [(tuple(p for p in e["loc"] if not _is_tag(p)), e) for e in err.errors(include_url=False)]
    loc, first = errors[0]
    parts = [prefix] if prefix else []
    parts += [f"[{p}]" if isinstance(p, int) else str(p) for p in loc]
    field = ".".join(parts).replace(".[", "[") or "the answer"
    if first["type"] == "missing":
        return f"{field} is required"
    expected: list[str] = []
    for other_loc, other in errors:  # a union reports one error per member: "an integer or a string"
        if other_loc != loc:
            continue
        text = _EXPECTED.get(other["type"])
        if text is None:
            msg = str(other["msg"])
            msg = msg[len("Input "):] if msg.startswith("Input ") else msg
            text = f"{msg[:1].lower()}{msg[1:]}"
        if text not in expected:
            expected.append(text)
    if "should be a number" in expected and "should be an integer" in expected:
        expected.remove("should be an integer")
    joined = expected[0] + "".join(" or " + e.removeprefix("should be ") for e in expected[1:])
    return f"{field} {joined}, not {json_type(first.get('input'))}"


_BUILDING = threading.Lock()


def _complete(model: type[Answer]) -> None:
    """Build a deferred answer model once, under one lock: the provider's threads read answers at once,
    and older pydantic (2.11, our floor, among them) is not safe against concurrent first uses of a
    deferred model (one thread could validate with the base class's validator while another rebuilds it)."""
    with _BUILDING:
        model.model_rebuild()  # nothing to do once complete


def parse(model: type[M], data: Any, *, platform: str, call: str, prefix: str = "") -> M:
    """`data` as `model`, or UnexpectedAnswer; `prefix` names where `data` sits (e.g. `data`)."""
    if not isinstance(data, Mapping):
        where = prefix or "the answer"
        raise UnexpectedAnswer(platform, call, f"{where} should be an object, not {json_type(data)}")
    if not model.__pydantic_complete__:
        _complete(model)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise UnexpectedAnswer(platform, call, describe(err, prefix)) from None


def plain(model: Answer) -> dict[str, Any]:
    """The validated answer as plain data in wire names, strings bounded."""
    dumped: dict[str, Any] = bound(model.model_dump(by_alias=True, exclude_unset=True))
    return dumped


def read(model: type[M], data: Any, *, platform: str, call: str, prefix: str = "") -> dict[str, Any]:
    """parse + plain: the shape checked, the strings bounded."""
    return plain(parse(model, data, platform=platform, call=call, prefix=prefix))


def rows(model: type[M], data: Any, *, platform: str, call: str, prefix: str) -> list[dict[str, Any]]:
    """A JSON array of `model` rows as plain data; a non-array or a bad row is UnexpectedAnswer."""
    if not isinstance(data, list):
        raise UnexpectedAnswer(platform, call, f"{prefix} should be an array, not {json_type(data)}")
    return [read(model, row, platform=platform, call=call, prefix=f"{prefix}[{i}]") for i, row in enumerate(data)]


# ----- bodies that are not answers of the API --------------------------------------------------
NOT_JSON: Any = object()  # stands for a body that is not JSON


def json_body(response: httpx.Response) -> Any:
    """The parsed body, or NOT_JSON."""
    try:
        return response.json()
    except ValueError:
        return NOT_JSON


def full_url(response: httpx.Response, path: str) -> str:
    """The URL the request went to (what a user compares with the endpoint setting)."""
    try:
        return str(response.request.url)
    except RuntimeError:  # a response built without a request
        return path


def looks_like_a_page(response: httpx.Response) -> bool:
    """A body that does not even claim to be JSON: an HTML page or plain text."""
    return "json" not in response.headers.get("content-type", "") or response.text.lstrip()[:1] == "<"


def body_summary(response: httpx.Response, body: Any) -> str:
    """A short description of a body for an error message: at most 200 characters of it."""
    if body is NOT_JSON:
        kind = response.headers.get("content-type", "").split(";")[0].strip()
        if not response.content.strip():
            return "an empty body"
        if "html" in kind or response.text.lstrip()[:1] == "<":
            return "an HTML page"
        return f"the text {cut(response.text.strip(), 200)!r}"
    return f"the body {cut(json.dumps(body, ensure_ascii=False), 200)}"


def utc_text(moment: datetime) -> str:
    """A moment as RFC 3339 in UTC ("2024-05-01T02:00:00Z"): both platforms' run times read alike."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def count(value: Any) -> int | None:
    """A count a catalogue may give as a number or a string; None when it gives none or no whole number."""
    try:
        return int(str(value)) if value is not None and str(value).strip() else None
    except ValueError:
        return None


def from_epoch_ms(value: Any) -> str | None:
    """ModelArts' epoch milliseconds (0 or absent: not yet) as `utc_text`."""
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return None
    return utc_text(datetime.fromtimestamp(value / 1000, UTC))


def from_beijing(value: Any) -> str | None:
    """Alaya NeW's Beijing wall-clock string as `utc_text`; None when absent or unreadable."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return utc_text(moment if moment.tzinfo else moment.replace(tzinfo=BEIJING))
