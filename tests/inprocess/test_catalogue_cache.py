"""One catalogue cache for both faces: the provider's checks and the program's look-up functions
share one client per settings and one answer per catalogue, and never cache jobs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pulumi.runtime import config as pulumi_config

from mltrain_emulator.testing import EmulatorHandle
from pulumi_mltrain.alaya.wire.contract import PRODUCTS
from pulumi_mltrain.program import alaya_functions as functions
from pulumi_mltrain.program.calls import program_settings
from support.inprocess import OWNER, checked, config, fresh_process, serving
from support.stacks import alaya_job_args


@pytest.fixture
def program_config(emulator: EmulatorHandle) -> Iterator[dict[str, str]]:
    """The running program's `mltrain:*` config, as a stack would give it."""
    before = dict(pulumi_config.CONFIG.get())
    values = config("alaya", emulator)
    pulumi_config.set_all_config(values)
    fresh_process()
    try:
        yield values
    finally:
        pulumi_config.set_all_config(before)


# The emulator's name of the task detail endpoint (its route names the parameter task_id).
DETAIL = "/v1/training/instance/{task_id}/detail"


def calls(emulator: EmulatorHandle, path: str) -> int:
    return int(emulator.admin.requests()["endpoints"].get(f"GET {path}", 0))


def test_a_catalogue_is_asked_once_and_each_caller_gets_its_own_copy(
        emulator: EmulatorHandle, program_config: dict[str, str]) -> None:
    first = functions.get_products()
    first[0]["productCode"] = "changed by the caller"
    second = functions.get_products()
    assert calls(emulator, PRODUCTS) == 1
    assert second[0]["productCode"] != "changed by the caller"


def test_the_provider_check_uses_the_answer_the_program_already_has(
        emulator: EmulatorHandle, program_config: dict[str, str]) -> None:
    codes = [row["productCode"] for row in functions.get_products()]
    jobs = serving("alaya:TrainingJob", program_settings())  # the provider process of the same stack config
    inputs = checked(jobs, {**alaya_job_args(product_code=codes[0], name="cached"), **OWNER})
    assert inputs["product_code"] == codes[0]
    assert calls(emulator, PRODUCTS) == 1


def test_jobs_are_never_cached(emulator: EmulatorHandle, program_config: dict[str, str]) -> None:
    jobs = serving("alaya:TrainingJob", program_settings())
    created = jobs.create(checked(jobs, {**alaya_job_args(name="never-cached"), **OWNER}))
    before = calls(emulator, DETAIL)
    functions.get_training_job(str(created.outputs["training_task_id"]))
    functions.get_training_job(str(created.outputs["training_task_id"]))
    assert calls(emulator, DETAIL) == before + 2
