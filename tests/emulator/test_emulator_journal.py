"""The state file's journal: every request's changes are on disk when it ends, so the files of a
running emulator (as a crash would leave them) load into the same world; a torn last line is dropped;
compaction and a clean shutdown fold the journal into the snapshot and keep the world."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from mltrain_emulator import EmulatorServer, EmulatorSettings
from mltrain_emulator import defaults as d
from mltrain_emulator.persistence import journal_path
from mltrain_emulator.state import World

Json = dict[str, Any]
LOGIN = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
    "name": d.DEFAULT_IAM_USER, "password": d.DEFAULT_IAM_PASSWORD, "domain": {"name": d.DEFAULT_IAM_DOMAIN}}}},
    "scope": {"project": {"name": d.DEFAULT_PROJECT_NAME}}}}
SETTINGS = EmulatorSettings(subscription_delay=0, task_state_delay=0.5, delete_delay=0.5,
                            modelarts_phase_delay=0.5)


def _world(snapshot_of: World) -> Json:
    dumped = snapshot_of.snapshot().model_dump(mode="json")
    dumped.pop("journal_seq")
    return dumped


def _loaded(state_file: Path, into: Path) -> Json:
    """The world a new emulator would load from copies of the files (the originals stay untouched)."""
    into.mkdir()
    for source in (state_file, journal_path(state_file)):
        if source.exists():
            shutil.copy(source, into / source.name)
    return _world(World(state_file=into / state_file.name))


def _token(server: EmulatorServer) -> str:
    with httpx.Client(base_url=server.url) as http:
        return http.post(d.IAM_TOKENS, json=LOGIN).headers["X-Subject-Token"]


def _traffic(server: EmulatorServer, alaya_body: Callable[..., Json], algorithm_body: Callable[..., Json],
             job_body: Callable[..., Json]) -> None:
    """Changes of every kind, each journaled by its own request."""
    alaya = httpx.Client(base_url=server.url + "/v1", headers={"Authorization": f"Bearer {d.DEFAULT_ALAYA_API_KEY}"})
    with alaya, httpx.Client(base_url=server.url) as http:
        token = http.post(d.IAM_TOKENS, json=LOGIN).headers["X-Subject-Token"]
        modelarts = f"/v2/{d.DEFAULT_PROJECT_ID}"
        auth = {"X-Auth-Token": token}
        keys = [alaya.post("/subscription/training/create", json=alaya_body(name=f"t-{i}")).json()["data"]
                for i in range(3)]
        tasks = [alaya.get("/subscription/training/result", params={"resultKey": k}).json()["data"]["trainingTaskId"]
                 for k in keys]
        assert alaya.post(f"/training/instance/{tasks[0]}/stop").json()["status"] == 200
        assert alaya.delete(f"/training/instance/{tasks[0]}/delete").json()["status"] == 200
        algorithm = http.post(f"{modelarts}/algorithms", json=algorithm_body(name="kept"), headers=auth).json()
        gone = http.post(f"{modelarts}/algorithms", json=algorithm_body(name="gone"), headers=auth).json()
        assert http.delete(f"{modelarts}/algorithms/{gone['metadata']['id']}", headers=auth).status_code == 202
        job_ids = [http.post(f"{modelarts}/training-jobs", json=job_body(algorithm["metadata"]["id"], name=f"j-{i}"),
                             headers=auth).json()["metadata"]["id"] for i in range(3)]
        tags = {"tags": [{"key": "team", "value": "nlp"}]}
        assert http.post(f"{modelarts}/modelarts-training-job/{job_ids[0]}/tags/create", json=tags,
                         headers=auth).status_code == 204
        assert http.put(f"{modelarts}/training-jobs/{job_ids[1]}", json={"description": "changed"},
                        headers=auth).status_code == 200
        assert http.delete(f"{modelarts}/training-jobs/{job_ids[2]}", headers=auth).status_code == 202


def test_a_crash_keeps_every_finished_request(tmp_path: Path, alaya_body: Callable[..., Json],
                                               algorithm_body: Callable[..., Json],
                                               job_body: Callable[..., Json]) -> None:
    state_file = tmp_path / "state.json"
    with EmulatorServer(SETTINGS, state_file=state_file) as server:
        world = server.app.state.world
        _traffic(server, alaya_body, algorithm_body, job_body)
        assert journal_path(state_file).stat().st_size > 0  # journaled, not rewritten
        lines = world.journal.entries
        assert lines >= 12
        assert _loaded(state_file, tmp_path / "crash") == _world(world)
        # A crash in the middle of the next append leaves a torn line: it is dropped, nothing else is.
        with open(journal_path(state_file), "ab") as out:
            out.write(b'{"seq": 99999, "clock_offset": 0, "changes": [["tasks", "tt-x", {"id": "tt')
        assert _loaded(state_file, tmp_path / "torn") == _world(world)
        torn = tmp_path / "torn"
        assert journal_path(torn / state_file.name).stat().st_size == 0  # folded in at start
        with httpx.Client(base_url=server.url) as http:  # the live emulator goes on after the torn line
            http.post(d.IAM_TOKENS, json=LOGIN)
        assert world.journal.entries == lines + 1
        live = _world(world)
    # A clean shutdown folds the journal into the snapshot.
    assert journal_path(state_file).stat().st_size == 0
    with EmulatorServer(SETTINGS, state_file=state_file) as again:
        assert _world(again.app.state.world) == live


def test_compaction_every_so_many_lines_keeps_the_world(tmp_path: Path, alaya_body: Callable[..., Json],
                                                        algorithm_body: Callable[..., Json],
                                                        job_body: Callable[..., Json]) -> None:
    state_file = tmp_path / "state.json"
    with EmulatorServer(SETTINGS, state_file=state_file) as server:
        world = server.app.state.world
        world.journal.compact_min = 3
        _traffic(server, alaya_body, algorithm_body, job_body)
        assert world.journal.entries == world.journal.seq  # fewer lines than 2 x objects: no compaction yet
        job, changes = next(iter(world.jobs)), 3 * world.size()
        with httpx.Client(base_url=server.url, headers={"X-Auth-Token": _token(server)}) as http:
            for i in range(changes):  # changes that add no object: compaction comes due
                assert http.put(f"/v2/{d.DEFAULT_PROJECT_ID}/training-jobs/{job}",
                                json={"description": f"v{i}"}).status_code == 200
        assert world.journal.entries < world.journal.seq  # compacted on the way
        assert json.loads(state_file.read_text())["journal_seq"] > 0
        assert _loaded(state_file, tmp_path / "copy") == _world(world)
        assert world.jobs[job].document["metadata"]["description"] == f"v{changes - 1}"


def test_a_state_file_from_before_the_journal_still_loads(tmp_path: Path) -> None:
    state_file = tmp_path / "state.json"
    state_file.write_text('{"version": 1, "clock_offset": 5.0, "subscriptions": [], "tasks": [], '
                          '"algorithms": [], "jobs": [], "tokens": []}')
    world = World(state_file=state_file)
    assert world.clock.offset == 5.0 and world.journal is not None and world.journal.seq == 0
