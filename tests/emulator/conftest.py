"""Clients and request bodies for the emulator tests.

Delays are made long (autouse ``steady_clock``), so nothing moves unless a test advances the clock:
states are observed deterministically, however slow the machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from mltrain_emulator import EmulatorHandle
from mltrain_emulator import defaults as d
from support.loopback import LOOPBACK, RUN, STEP, Timing

Json = dict[str, Any]


@pytest.fixture
def timing() -> Timing:
    return Timing()


@pytest.fixture(autouse=True)
def steady_clock(emulator: EmulatorHandle) -> None:
    emulator.admin.set_settings(subscription_delay=STEP, task_state_delay=STEP, delete_delay=STEP,
                                modelarts_phase_delay=STEP, modelarts_run_seconds=RUN)


@pytest.fixture
def http(emulator: EmulatorHandle) -> Iterator[httpx.Client]:
    """A bare client on the emulator's URL, for calls that set their own headers."""
    with httpx.Client(base_url=emulator.url, **LOOPBACK) as client:
        yield client


@pytest.fixture
def alaya(emulator: EmulatorHandle) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {emulator.alaya_api_key}"}
    with httpx.Client(base_url=emulator.url + "/v1", headers=headers, **LOOPBACK) as client:
        yield client


def _login(url: str, project: str = d.DEFAULT_PROJECT_NAME, password: str = d.DEFAULT_IAM_PASSWORD,
           user: str = d.DEFAULT_IAM_USER, domain: str = d.DEFAULT_IAM_DOMAIN) -> httpx.Response:
    body = {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": user, "password": password, "domain": {"name": domain}}}},
        "scope": {"project": {"name": project}},
    }}
    with httpx.Client(**LOOPBACK) as client:
        return client.post(url + d.IAM_TOKENS, json=body)


@pytest.fixture
def login(emulator: EmulatorHandle) -> Callable[..., httpx.Response]:
    """``login(project=..., password=..., user=..., domain=...)`` → the raw IAM response."""
    return lambda **kw: _login(emulator.url, **kw)


@pytest.fixture
def token(emulator: EmulatorHandle) -> str:
    response = _login(emulator.url)
    assert response.status_code == 201
    return response.headers["X-Subject-Token"]


@pytest.fixture
def modelarts(emulator: EmulatorHandle, token: str) -> Iterator[httpx.Client]:
    base = f"{emulator.url}/v2/{emulator.project_id}"
    with httpx.Client(base_url=base, headers={"X-Auth-Token": token}, **LOOPBACK) as client:
        yield client


def _alaya_body(**overrides: Any) -> Json:
    """A valid create body in the seed's python-example form."""
    body: Json = {
        "name": "llama3-8b-sft", "createType": "DIRECT", "desc": "Llama3-8B SFT", "priority": 3,
        "trainingType": "pre_training", "imageType": "general", "trainingFramwork": "pytorch",
        "productCode": d.PRODUCT_TRAIN_1, "workerCount": 4,
        "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
        "storageConfigs": [{"storageId": d.STORAGE_CAPACITY_ID, "storageType": "nas-capacity",
                            "fileDirectory": "datasets", "mountPath": "/root/nas/", "onlyRead": False}],
        "env": {"CUDA_VISIBLE_DEVICES": "0,1,2,3"},
        "enableAutoRetry": True, "maxRetryCount": 3, "enableTimeoutCancel": True, "timeoutHours": 24,
        "startCommand": "python3 -m torch.distributed.run train.py --data /root/nas/datasets",
    }
    body.update(overrides)
    return {k: v for k, v in body.items() if v is not None}


@pytest.fixture
def create_task(emulator: EmulatorHandle, alaya: httpx.Client) -> Callable[..., str]:
    """Create through the subscription, let it resolve, and return the task ID."""

    def create(**overrides: Any) -> str:
        created = alaya.post("/subscription/training/create", json=_alaya_body(**overrides)).json()
        assert created["status"] == 200, created
        emulator.admin.advance(STEP)
        result = alaya.get("/subscription/training/result", params={"resultKey": created["data"]}).json()
        assert result["data"]["status"] == d.SUB_SUCCESS, result
        task_id: str = result["data"]["trainingTaskId"]
        return task_id

    return create


def _algorithm_body(name: str = "test-pytorch-cpu", **engine: str) -> Json:
    """Seed 002, step 4."""
    return {
        "metadata": {"name": name, "description": "test pytorch job in cpu in mode gloo"},
        "job_config": {
            "boot_file": "/cnnorth4-job-test-v2/pytorch/fast_example/code/cpu/test-pytorch.py",
            "code_dir": "/cnnorth4-job-test-v2/pytorch/fast_example/code/cpu/",
            "engine": engine or {"engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]},
            "inputs": [{"name": "data_url", "description": "data source 1"}],
            "outputs": [{"name": "train_url", "description": "output 1"}],
            "parameters": [
                {"name": "dist", "description": "", "value": "False",
                 "constraint": {"editable": True, "required": False, "sensitive": False, "type": "Boolean",
                                "valid_range": [], "valid_type": "None"}},
                {"name": "world_size", "description": "", "value": "1",
                 "constraint": {"editable": True, "required": False, "sensitive": False, "type": "Integer",
                                "valid_range": [], "valid_type": "None"}},
            ],
            "parameters_customization": True,
        },
        "resource_requirements": [],
    }


def _job_body(algorithm_id: str, name: str = "test-pytorch-cpu01", flavor: str = d.FLAVOR_CPU_8U,
             nodes: int = 1) -> Json:
    """Seed 002, step 5."""
    root = "/cnnorth4-job-test-v2/pytorch/fast_example"
    return {
        "kind": "job",
        "metadata": {"name": name, "description": "test pytorch work cpu in mode gloo"},
        "algorithm": {
            "id": algorithm_id,
            "parameters": [{"name": "dist", "value": "False"}, {"name": "world_size", "value": "1"}],
            "inputs": [{"name": "data_url", "remote": {"obs": {"obs_url": f"{root}/data/"}}}],
            "outputs": [{"name": "train_url", "remote": {"obs": {"obs_url": f"{root}/outputs/"}}}],
        },
        "spec": {"resource": {"flavor_id": flavor, "node_count": nodes},
                 "log_export_path": {"obs_url": f"{root}/log/"}},
    }


@pytest.fixture
def algorithm_id(modelarts: httpx.Client) -> str:
    response = modelarts.post("/algorithms", json=_algorithm_body())
    assert response.status_code == 201, response.text
    algorithm: str = response.json()["metadata"]["id"]
    return algorithm


@pytest.fixture
def alaya_body() -> Callable[..., Json]:
    return _alaya_body


@pytest.fixture
def algorithm_body() -> Callable[..., Json]:
    return _algorithm_body


@pytest.fixture
def job_body() -> Callable[..., Json]:
    return _job_body
