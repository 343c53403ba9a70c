"""A ModelArts job's recent log lines and events, bounded: read by the program-time function
`modelarts.get_training_job_logs` (`program/modelarts_functions.py`) and by the provider, which appends
them to the error of a failed create (`failure_tail`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import MltrainError
from .wire import contract


def tail(lines: Sequence[str], max_lines: int, max_bytes: int) -> list[str]:
    """The last `max_lines` lines, dropping the oldest until they fit in `max_bytes` (UTF-8)."""
    out = list(lines[-max_lines:]) if max_lines > 0 else []
    while out and sum(len(line.encode()) + 1 for line in out) > max_bytes:
        out.pop(0)
    return out


def job_logs(read_log: Callable[[str], str | None], read_events: Callable[[int], list[dict[str, Any]]],
             tasks: list[str], lines: int, max_bytes: int,
             events: int) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """The last `lines` lines (at most `max_bytes`) of every task (`read_log(task)`), by task, and the
    last `events` events (`read_events(limit)`) as the API gives them: for a program, and for the error
    of a failed create."""
    logs = {t: tail((read_log(t) or "").splitlines(), lines, max_bytes) for t in tasks}
    rows = read_events(events) if events > 0 else []
    return logs, rows[-events:]


def failure_tail(api: Any, job_id: str, tasks: list[str]) -> str:
    """What a create error appends for a failed job: the last log lines of each task and the last
    events, bounded (contract.ERROR_*); empty when they cannot be read (the error stays as it was)."""
    try:
        logs, events = job_logs(lambda task: api.log_preview(job_id, task), lambda limit: api.events(job_id, limit),
                                tasks, contract.ERROR_LOG_LINES, contract.ERROR_LOG_BYTES // max(1, len(tasks)),
                                contract.ERROR_EVENTS)
    except MltrainError:  # logs are extra detail; the failure itself is already known
        return ""
    parts = [f"\nLast log lines of {task}:\n" + "\n".join(f"  {line}" for line in lines)
             for task, lines in logs.items() if lines]
    if events:
        parts.append("\nLast events:\n" + "\n".join(f"  {e.get('time')} {e.get('level')} {e.get('message')}"
                                                     for e in events))
    return "".join(parts)
