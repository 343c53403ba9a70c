"""Finished-run outputs, read as users read them: RFC 3339 times in UTC on both platforms."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def moment(text: Any) -> datetime:
    """An output time; it must be RFC 3339 in UTC ("...Z")."""
    assert isinstance(text, str) and text.endswith("Z"), text
    return datetime.fromisoformat(text)


def assert_end_is_start_plus_duration(outputs: dict[str, Any]) -> None:
    """end_time - start_time is duration_ms, to the second the times are given in."""
    start, end = moment(outputs["start_time"]), moment(outputs["end_time"])
    assert start.tzinfo is not None and start.utcoffset() == UTC.utcoffset(None)
    assert abs((end - start).total_seconds() * 1000 - outputs["duration_ms"]) < 1000, outputs


def new_run_reasons(preview: dict[str, Any]) -> dict[str, str]:
    """resource name -> the `run_reason` that `pulumi preview --json` shows for each job it replaces."""
    return {s["urn"].rsplit("::", 1)[1]: _run_reason(s) for s in preview["steps"]
            if s["op"] in ("replace", "create-replacement")}


def _run_reason(step: dict[str, Any]) -> Any:
    """A step's `run_reason` input: `runReason` for the plugin's resources (schema.json's names)."""
    plugin = step["urn"].split("::")[-2].startswith("mltrain:")
    return step["newState"]["inputs"].get("runReason" if plugin else "run_reason")


def step_reasons(preview: dict[str, Any], op: str) -> dict[str, str]:
    """resource name -> the `run_reason` the preview shows for each job of step `op` (e.g. update)."""
    return {s["urn"].rsplit("::", 1)[1]: _run_reason(s) for s in preview["steps"]
            if s["op"] == op and s["urn"].split("::")[-2].endswith("TrainingJob")}
