"""Only the platform's own not-found code makes a job "gone": a mistyped endpoint or a gateway 404 must
never make `pulumi refresh` or `pulumi destroy` drop a job that still exists.

Each platform's case runs a fault-free `pulumi up`, then breaks the way to the API twice (a gateway
answering 404 APIG.0101 to everything, then the endpoint set to a wrong URL after the fact), and checks
each time through the real engine that refresh and destroy both fail with an error that names the URL
and the setting to check, while the job stays in the state and on the platform. A final fault-free
destroy empties the platform.

The engine keeps the default provider's config from the last `up` in the state; refresh and destroy use
it unless the program runs. So the mistyped-endpoint case runs them with `--run-program`, which is how
a changed `mltrain:*Endpoint` reaches them (as it would after a `pulumi up` with the new setting).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pulumi_mltrain.emulator import defaults as d
from support import stacks
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

GATEWAY_404 = {"error_code": "APIG.0101", "error_msg": "The API does not exist or has not been published in the "
               "environment", "request_id": "2f6d3c1e"}


def alaya(emulator: Any, home: Path) -> Stack:
    return stacks.alaya_stack(emulator, home, job=stacks.alaya_job_args())


def modelarts(emulator: Any, home: Path) -> Stack:
    emulator.admin.set_settings(modelarts_phase_delay=0.2, modelarts_run_seconds=600, delete_delay=0.2)
    job = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
           "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}
    return stacks.modelarts_stack(emulator, home, jobs={"job": job})


PLATFORMS = {
    "alaya": (alaya, "mltrain:alayaEndpoint", "/api/v1", "/v1/*", "dynamic/alaya:TrainingJob"),
    "modelarts": (modelarts, "mltrain:modelartsEndpoint", "/modelarts", "/v2/*", "dynamic/modelarts:TrainingJob"),
}


def platform_ids(emulator: Any, platform: str) -> list[str]:
    state = emulator.admin.state()
    if platform == "alaya":
        return sorted(str(t["id"]) for t in state["alaya"]["tasks"])
    return sorted(str(j["metadata"]["id"]) for j in state["modelarts"]["jobs"])


def assert_kept(stack: Stack, emulator: Any, platform: str, job_id: str, url: str, key: str,
                *flags: str) -> None:
    """refresh and destroy both fail, naming the URL and the setting, and the job is kept everywhere."""
    for command in (stack.refresh, stack.destroy):
        result = command(*flags, check=False)
        output = result.stdout + result.stderr
        assert result.returncode != 0, f"{command.__name__} must fail: {output[-3000:]}"
        assert url in output, f"{command.__name__} names the URL: {output[-3000:]}"
        assert f"check `{key}`" in output, output[-3000:]
        assert "TrainingJob 'job" in output, "the error names the resource"
        assert [r["id"] for r in stack.resources(PLATFORMS[platform][4])] == [job_id], "still in the state"
        assert platform_ids(emulator, platform) == [job_id], "still on the platform"


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_a_gateway_404_or_a_mistyped_endpoint_never_drops_the_job(platform: str, emulator: Any,
                                                                  tmp_path: Path) -> None:
    make, key, suffix, pattern, type_token = PLATFORMS[platform]
    stack = make(emulator, tmp_path)
    stack.up()
    [job_id] = [r["id"] for r in stack.resources(type_token)]

    # The platform's gateway answers 404 (not the platform's own not-found code).
    emulator.admin.set_faults([{"path": pattern, "kind": "respond", "status": 404, "body": GATEWAY_404}])
    assert_kept(stack, emulator, platform, job_id, emulator.url + pattern.rstrip("*"), key)
    assert emulator.admin.requests()["faults"]["total"] >= 2, "the gateway answered"
    emulator.admin.clear_faults()

    # The endpoint setting is mistyped (a path too many): the same job, refreshed and destroyed.
    stack.set_config(key, emulator.url + suffix)
    assert_kept(stack, emulator, platform, job_id, emulator.url + suffix + "/v", key, "--run-program")

    stack.set_config(key, emulator.url)
    stack.destroy("--run-program")
    assert platform_ids(emulator, platform) == []
