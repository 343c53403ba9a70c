"""Only the platform's own not-found code makes a job "gone": a mistyped endpoint or a gateway 404 must
never make `pulumi refresh` or `pulumi destroy` drop a job that still exists.

A job of each platform, in one stack, is made by a fault-free `pulumi up`; then the test breaks the
way to the APIs twice (a gateway answering 404 APIG.0101 to everything, then the endpoints set to
wrong URLs after the fact), and checks through the real engine that refresh (both times) and destroy
(the second time) fail with an error that names the URL and the setting to check, while the job stays in
the state and on the platform (`destroy` with `--continue-on-error`, so each job's delete is tried). That
a delete meeting the gateway's 404 raises, naming the setting, is the provider's:
tests/inprocess/test_destroy_calls.py::test_a_gateway_404_on_the_delete_keeps_the_task and
tests/inprocess/test_plugin_refresh.py (both platforms); the engine keeps a resource whose delete raised
whatever the cause, as the mistyped endpoint's destroy shows.

The engine keeps the default provider's config from the last `up` in the state; refresh and destroy use
it unless the program runs. So the mistyped-endpoint case runs them with `--run-program`, which is how
a changed `mltrain:*Endpoint` reaches them (as it would after a `pulumi up` with the new setting).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mltrain_emulator import defaults as d
from support import stacks
from support.inprocess import platform_ids
from support.pulumi_cli import Stack

pytestmark = [pytest.mark.engine, pytest.mark.slow]

GATEWAY_404 = {"error_code": "APIG.0101", "error_msg": "The API does not exist or has not been published in the "
               "environment", "request_id": "2f6d3c1e"}


JOB_ARGS = {"flavor_id": d.FLAVOR_CPU_8U, "code_dir": "obs://b/code/", "boot_file": "obs://b/code/train.py",
            "engine_name": d.ENGINE_PYTORCH[0], "engine_version": d.ENGINE_PYTORCH[1]}
# platform -> (resource name, endpoint setting, a path too many, the gateway's path pattern, type token)
PLATFORMS = {
    "alaya": ("job-alaya", "mltrain:alayaEndpoint", "/api/v1", "/v1/*", "dynamic/alaya:TrainingJob"),
    "modelarts": ("job-modelarts", "mltrain:modelartsEndpoint", "/modelarts", "/v2/*", "dynamic/modelarts:TrainingJob"),
}


def assert_kept(stack: Stack, emulator: Any, job_ids: dict[str, str], urls: dict[str, str], *flags: str,
                destroy: bool = True) -> None:
    """refresh (and destroy) fail, naming each platform's URL and setting, and every job is kept everywhere."""
    commands = [(stack.refresh, ()), *([(stack.destroy, ("--continue-on-error",))] if destroy else [])]
    for command, more in commands:
        result = command(*flags, *more, check=False)
        output = result.stdout + result.stderr
        assert result.returncode != 0, f"{command.__name__} must fail: {output[-3000:]}"
        for platform, (name, key, _, _, type_token) in PLATFORMS.items():
            assert urls[platform] in output, f"{command.__name__} names the {platform} URL: {output[-3000:]}"
            assert f"check `{key}`" in output, output[-3000:]
            assert f"TrainingJob '{name}" in output, f"the error names the {platform} resource: {output[-3000:]}"
            assert [r["id"] for r in stack.resources(type_token)] == [job_ids[platform]], f"{platform}: in the state"
            assert platform_ids(emulator, platform) == [job_ids[platform]], f"{platform}: still on the platform"


def test_a_gateway_404_or_a_mistyped_endpoint_never_drops_the_job(emulator: Any, mixed: Callable[..., Stack]) -> None:
    """Both platforms' jobs in one stack: each command meets the broken way to both APIs at once."""
    stack = mixed({name: {"kind": platform, "args": stacks.alaya_job_args() if platform == "alaya" else JOB_ARGS}
                   for platform, (name, *_) in PLATFORMS.items()})
    emulator.admin.set_settings(modelarts_run_seconds=600)
    stack.up()
    job_ids = {platform: stack.resources(p[4])[0]["id"] for platform, p in PLATFORMS.items()}

    # The platform's gateway answers 404 (not the platform's own not-found code).
    emulator.admin.set_faults([{"path": p[3], "kind": "respond", "status": 404, "body": GATEWAY_404}
                               for p in PLATFORMS.values()])
    assert_kept(stack, emulator, job_ids,
                {platform: emulator.url + p[3].rstrip("*") for platform, p in PLATFORMS.items()}, destroy=False)
    assert emulator.admin.requests()["faults"]["total"] >= 2, "the gateway answered"
    emulator.admin.clear_faults()

    # The endpoint settings are mistyped (a path too many): the same jobs, refreshed and destroyed.
    stack.set_config_all({p[1]: emulator.url + p[2] for p in PLATFORMS.values()})
    assert_kept(stack, emulator, job_ids, {platform: emulator.url + p[2] + "/v" for platform, p in PLATFORMS.items()},
                "--run-program")
