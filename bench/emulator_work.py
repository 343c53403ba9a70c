"""Emulator CPU per request with few and with many stored objects (issue 13 item 5: constant work).

Two emulators run in this process (uvicorn threads on 127.0.0.1), one holding `small` Alaya tasks and
ModelArts jobs, one holding `large`; the same rounds of requests go to each, alternating round by round
so both see the same background load; the ratio is the median over 5 blocks of rounds. A round is
what the provider sends for one job of each platform:
Alaya name look-up, create, result, detail, stop, delete, detail; ModelArts name search, create, get,
terminate, delete, get, and an algorithm name search. CPU is the server thread's own run time
(`/proc/self/task/<tid>/schedstat`, ns), so the client's work is not in it. With `--state-file`
both emulators keep a state file (snapshot + journal). A measurement, not an assertion.

    .venv/bin/python bench/emulator_work.py [--objects 10,800] [--rounds 100] [--state-file]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from mltrain_emulator import EmulatorServer, EmulatorSettings
from mltrain_emulator import defaults as d

Json = dict[str, Any]
SETTINGS: Json = {"subscription_delay": 0.0, "task_state_delay": 0.0, "delete_delay": 0.0,
                  "modelarts_phase_delay": 0.0}
CALLS_PER_ROUND = 14
BLOCKS = 5
LOGIN = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
    "name": d.DEFAULT_IAM_USER, "password": d.DEFAULT_IAM_PASSWORD, "domain": {"name": d.DEFAULT_IAM_DOMAIN}}}},
    "scope": {"project": {"name": d.DEFAULT_PROJECT_NAME}}}}
TASK = {"createType": "DIRECT", "productCode": d.PRODUCT_QTT, "workerCount": 1, "image": "img",
        "imageType": "general", "trainingFramwork": "pytorch", "startCommand": "python3 train.py"}
ALGORITHM = {"metadata": {"name": "bench-alg"}, "job_config": {
    "code_dir": "/bucket/code/", "boot_file": "/bucket/code/train.py",
    "engine": {"engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}}}


def _job(algorithm_id: str, name: str) -> Json:
    return {"kind": "job", "metadata": {"name": name},
            "algorithm": {"id": algorithm_id},
            "spec": {"resource": {"flavor_id": d.FLAVOR_CPU_8U, "node_count": 1}}}


def _cpu_ns(native_id: int) -> int:
    """Run time of one thread of this process, in ns (schedstat's first field)."""
    return int(Path(f"/proc/self/task/{native_id}/schedstat").read_text().split()[0])


@dataclass
class Target:
    """One emulator with `objects` stored tasks and jobs, and clients on it."""

    server: EmulatorServer
    native_id: int
    alaya: httpx.Client
    modelarts: httpx.Client
    algorithm_id: str
    objects: int

    def fill(self) -> None:
        for i in range(self.objects):
            body = {**TASK, "name": f"stored-task-{i:04d}-{uuid.uuid4().hex[:6]}"}
            self.alaya.post("/subscription/training/create", json=body).raise_for_status()
            self.modelarts.post("/training-jobs", json=_job(
                self.algorithm_id, f"stored-job-{i:04d}-{uuid.uuid4().hex[:6]}")).raise_for_status()
        self.alaya.get("/training/instance/list").raise_for_status()  # the last subscription resolves

    def rounds(self, count: int) -> int:
        """CPU ns of the server thread over `count` rounds."""
        before = _cpu_ns(self.native_id)
        for _ in range(count):
            self._round()
        return _cpu_ns(self.native_id) - before

    def _round(self) -> None:
        name = f"probe-{uuid.uuid4().hex[:10]}"
        alaya, modelarts = self.alaya, self.modelarts
        alaya.get("/training/instance/list", params={"name": name, "pageNo": 1, "pageSize": 10})
        key = alaya.post("/subscription/training/create", json={**TASK, "name": name}).json()["data"]
        task = alaya.get("/subscription/training/result", params={"resultKey": key}).json()["data"]["trainingTaskId"]
        alaya.get(f"/training/instance/{task}/detail")
        alaya.post(f"/training/instance/{task}/stop")
        alaya.delete(f"/training/instance/{task}/delete")
        alaya.get(f"/training/instance/{task}/detail")
        search = {"offset": 0, "limit": 50, "sort_by": "create_time", "order": "desc",
                  "filters": [{"key": "name", "operator": "like", "value": [name]}]}
        modelarts.post("/training-job-searches", json=search)
        job = modelarts.post("/training-jobs", json=_job(self.algorithm_id, name)).json()["metadata"]["id"]
        modelarts.get(f"/training-jobs/{job}")
        modelarts.post(f"/training-jobs/{job}/actions", json={"action_type": "terminate"})
        modelarts.delete(f"/training-jobs/{job}")
        modelarts.get(f"/training-jobs/{job}")
        modelarts.get("/algorithms", params={"offset": 0, "limit": 50, "searches": "name:bench-alg"})


@contextmanager
def target(objects: int, state_file: Path | None) -> Iterator[Target]:
    before = {t.ident for t in threading.enumerate()}
    with EmulatorServer(EmulatorSettings(**SETTINGS), state_file=state_file) as server:
        thread = next(t for t in threading.enumerate() if t.ident not in before and t.name == "mltrain-emulator")
        assert thread.native_id is not None
        with httpx.Client(base_url=server.url) as login:
            token = login.post(d.IAM_TOKENS, json=LOGIN).headers["X-Subject-Token"]
        alaya = httpx.Client(base_url=server.url + "/v1",
                             headers={"Authorization": f"Bearer {d.DEFAULT_ALAYA_API_KEY}"})
        modelarts = httpx.Client(base_url=f"{server.url}/v2/{d.DEFAULT_PROJECT_ID}", headers={"X-Auth-Token": token})
        with alaya, modelarts:
            algorithm = modelarts.post("/algorithms", json=ALGORITHM).json()["metadata"]["id"]
            found = Target(server, thread.native_id, alaya, modelarts, algorithm, objects)
            found.fill()
            yield found


def measure(small: int = 10, large: int = 800, rounds: int = 100, state_file: bool = False) -> Json:
    """µs of emulator CPU per request at `small` and `large` stored objects of each kind, and their ratio."""
    tmp = Path(tempfile.mkdtemp(prefix="mltrain-bench-emulator-"))
    try:
        with ExitStack() as stack:
            few = stack.enter_context(target(small, tmp / "small.json" if state_file else None))
            many = stack.enter_context(target(large, tmp / "large.json" if state_file else None))
            few.rounds(2)  # warm-up: first calls of each route
            many.rounds(2)
            per_block = max(1, rounds // BLOCKS)
            blocks = []
            for _ in range(BLOCKS):  # round by round, alternating, so both see the same load
                pairs = [(few.rounds(1), many.rounds(1)) for _ in range(per_block)]
                blocks.append((sum(p[0] for p in pairs), sum(p[1] for p in pairs)))
            stored = {"few": len(few.server.app.state.world.jobs), "many": len(many.server.app.state.world.jobs)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    requests = per_block * BLOCKS * CALLS_PER_ROUND
    us = {n: sum(b[i] for b in blocks) / requests / 1000 for i, n in enumerate((small, large))}
    ratios = sorted(b[1] / b[0] for b in blocks)
    return {"small": small, "large": large, "us_per_request_small": round(us[small], 1),
            "us_per_request_large": round(us[large], 1), "ratio": round(ratios[len(ratios) // 2], 3),
            "block_ratios": [round(r, 3) for r in ratios], "requests_each": requests,
            "state_file": state_file, "jobs_stored": stored}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", default="10,800", help="small,large: stored tasks and jobs of each emulator")
    parser.add_argument("--rounds", type=int, default=100, help=f"rounds of {CALLS_PER_ROUND} requests each")
    parser.add_argument("--state-file", action="store_true", help="both emulators keep a state file")
    args = parser.parse_args(argv)
    small, large = (int(x) for x in args.objects.split(","))
    print(json.dumps(measure(small, large, args.rounds, args.state_file)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
