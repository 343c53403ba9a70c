"""ModelArts log preview and job events (ShowTrainingJobLogsPreview, ListTrainingJobEvents)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from mltrain_emulator import EmulatorHandle
from support.loopback import Timing

Body = Callable[..., dict[str, Any]]


def test_preview_per_task_and_events_of_a_two_node_job(emulator: EmulatorHandle, modelarts: httpx.Client,
                                                       job_body: Body, algorithm_id: str, timing: Timing) -> None:
    job = modelarts.post("/training-jobs", json=job_body(algorithm_id, nodes=2)).json()
    job_id = job["metadata"]["id"]
    assert modelarts.get(f"/training-jobs/{job_id}/tasks/worker-0/logs/preview").status_code == 204, "Creating"
    emulator.admin.advance(2 * timing.step + timing.run)
    for task in ("worker-0", "worker-1"):
        body = modelarts.get(f"/training-jobs/{job_id}/tasks/{task}/logs/preview").json()
        assert set(body) == {"content", "current_size", "full_size"}
        assert body["current_size"] == len(body["content"].encode()) == body["full_size"]
        assert body["content"].splitlines()[-1].endswith(f"{task} training finished, exit with 0")
    assert modelarts.get(f"/training-jobs/{job_id}/tasks/worker-2/logs/preview").status_code == 400
    events = modelarts.get(f"/training-jobs/{job_id}/events").json()
    assert events["total"] == 3 and events["events"][0]["message"] == "Job Completed", "newest first by default"
    oldest = modelarts.get(f"/training-jobs/{job_id}/events", params={"order": "asc", "limit": 1}).json()
    assert [e["message"] for e in oldest["events"]] == [f"Training job {job['metadata']['name']} created"]
    assert modelarts.get(f"/training-jobs/{job_id}/events", params={"limit": 101}).status_code == 400
