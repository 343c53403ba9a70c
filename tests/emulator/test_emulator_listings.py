"""ModelArts listings served from the indexes answer exactly as a sort and scan of every stored object
did: the oracle here is the former implementation, run on the objects ``/_admin/state`` shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from mltrain_emulator import EmulatorHandle

Json = dict[str, Any]
JOB_NAMES = ("ab-1", "ab-12", "xab-2", "c", "cab", "ab-1x", "zz-top", "ab", "b-12", "ab-123", "q", "cabab")
ALGORITHM_NAMES = ("alg-a", "alg-ab", "xalg", "b", "alg-abc", "zz")


def _old_filter(job: Json, rule: Json) -> bool:
    key, operator, values = rule["key"], rule["operator"], rule["value"]
    field = {"name": job["metadata"]["name"], "phase": job["status"]["phase"], "kind": job["kind"],
             "algorithm_name": job["algorithm"].get("name", ""), "create_time": job["metadata"]["create_time"]}[key]
    if operator == "like":
        return any(str(v) in str(field) for v in values)
    if operator == "in":
        return field in values
    if operator == "not":
        return field not in values
    return bool(values[0] <= field <= values[1])


def _old_search(jobs: list[Json], body: Json) -> tuple[int, list[str]]:
    offset, limit, order = body.get("offset", 0), body.get("limit", 10), body.get("order") or "desc"
    rows = sorted(jobs, key=lambda job: job["metadata"]["create_time"], reverse=order == "desc")
    rows = [job for job in rows if all(_old_filter(job, rule) for rule in body.get("filters") or [])]
    return len(rows), [job["metadata"]["id"] for job in rows[offset * limit:(offset + 1) * limit]]


def _old_algorithms(algorithms: list[Json], params: Json) -> tuple[int, list[str]]:
    name = params.get("searches", "name:").partition(":")[2]
    rows = sorted(algorithms, key=lambda doc: doc["metadata"]["create_time"], reverse=params.get("order") != "asc")
    rows = [doc for doc in rows if name in doc["metadata"]["name"]]
    offset, limit = params.get("offset", 0), params.get("limit", 10)
    return len(rows), [doc["metadata"]["id"] for doc in rows[offset:offset + limit]]


def test_job_search_pages_and_filters_answer_as_a_full_sort_did(
        emulator: EmulatorHandle, modelarts: httpx.Client, algorithm_id: str, job_body: Callable[..., Json]) -> None:
    ids = {}
    for i, name in enumerate(JOB_NAMES):
        created = modelarts.post("/training-jobs", json=job_body(algorithm_id, name=name))
        assert created.status_code == 201, created.text
        ids[name] = created.json()["metadata"]["id"]
        if i % 4 == 3:
            emulator.admin.advance(10)  # phases differ between the jobs
    assert modelarts.post(f"/training-jobs/{ids['c']}/actions", json={"action_type": "terminate"}).status_code == 202
    assert modelarts.delete(f"/training-jobs/{ids['q']}").status_code == 202  # still listed while deleting
    jobs = emulator.admin.state()["modelarts"]["jobs"]
    phases = sorted({job["status"]["phase"] for job in jobs})
    assert len(phases) >= 2

    queries: list[Json] = [{}]
    for text in ("ab-1", "ab", "a", "", "cab", "none", "b-12"):
        queries.append({"filters": [{"key": "name", "operator": "like", "value": [text]}]})
    queries += [
        {"filters": [{"key": "name", "operator": "like", "value": ["ab-1", "zz"]}]},
        {"filters": [{"key": "name", "operator": "in", "value": ["ab", "c", "missing", 3]}]},
        {"filters": [{"key": "phase", "operator": "in", "value": [phases[0]]}]},
        {"filters": [{"key": "phase", "operator": "not", "value": [phases[0]]},
                     {"key": "name", "operator": "like", "value": ["ab"]}]},
        {"filters": [{"key": "name", "operator": "like", "value": ["ab"]},
                     {"key": "name", "operator": "not", "value": ["ab-1"]}]},
        {"filters": [{"key": "kind", "operator": "in", "value": ["job"]}]},
        {"filters": [{"key": "create_time", "operator": "between",
                      "value": [jobs[2]["metadata"]["create_time"], jobs[8]["metadata"]["create_time"]]}]},
    ]
    asked = 0
    for query in queries:
        for order in ("desc", "asc"):
            for offset, limit in ((0, 10), (1, 3), (0, 1), (2, 5), (9, 50)):
                body = {**query, "order": order, "offset": offset, "limit": limit}
                page = modelarts.post("/training-job-searches", json=body).json()
                assert (page["total"], [j["metadata"]["id"] for j in page["items"]]) == _old_search(jobs, body), body
                assert page["count"] == len(page["items"])
                asked += 1
    assert asked == len(queries) * 10


def test_algorithm_list_pages_and_name_searches_answer_as_a_full_sort_did(
        emulator: EmulatorHandle, modelarts: httpx.Client, algorithm_body: Callable[..., Json]) -> None:
    for name in ALGORITHM_NAMES:
        assert modelarts.post("/algorithms", json=algorithm_body(name=name)).status_code == 201
    doomed = modelarts.get("/algorithms", params={"searches": "name:zz"}).json()["items"][0]["metadata"]["id"]
    assert modelarts.delete(f"/algorithms/{doomed}").status_code == 202
    assert modelarts.post("/algorithms", json=algorithm_body(name="zz")).status_code == 201  # the name is free again
    assert modelarts.post("/algorithms", json=algorithm_body(name="alg-a")).json()["error_code"] == "ModelArts.2821"
    algorithms = emulator.admin.state()["modelarts"]["algorithms"]
    for text in ("", "alg", "alg-a", "a", "zz", "nothing", "b"):
        for order in ("desc", "asc"):
            for offset, limit in ((0, 10), (1, 2), (4, 50), (0, 1)):
                params = {"searches": f"name:{text}", "order": order, "offset": offset, "limit": limit}
                page = modelarts.get("/algorithms", params=params).json()
                got = (page["total"], [a["metadata"]["id"] for a in page["items"]])
                assert got == _old_algorithms(algorithms, params), params
