"""The policy pack through the real engine: `pulumi preview --policy-pack policy/` (with and without
`--policy-pack-config`) on a compliant and on a violating program, against the emulator.

A preview creates nothing: the emulator only answers the provider's catalogue checks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mltrain_emulator import defaults
from support.policy_output import HEADER, kind_of, violations
from support.pulumi_cli import BIN, ROOT, VENV, Stack

pytestmark = pytest.mark.engine

PACK = ROOT / "policy"
PROGRAMS = Path(__file__).parent / "programs"
HF_TOKEN = "hf_SECRETsecretSECRET0123456789abcdefXYZ"


def make_stack(emulator: Any, tmp_path: Path, program: str) -> Stack:
    stack = Stack.from_project(PROGRAMS / program, tmp_path)
    configure(stack, emulator, secrets={"hfToken": HF_TOKEN} if program == "compliant" else None)
    return stack


def configure(stack: Stack, emulator: Any, plain: dict[str, str] | None = None,
              secrets: dict[str, str] | None = None) -> None:
    """The `mltrain:` settings of the default provider (dynamic or plugin) for the emulator, and the
    program's own `plain` and `secrets` keys: one `config set-all`."""
    settings = {"alayaEndpoint": emulator.url, "requestTimeout": "5", "huaweiIamEndpoint": emulator.url,
                "modelartsEndpoint": emulator.url, "huaweiProjectName": defaults.DEFAULT_PROJECT_NAME,
                "huaweiUser": defaults.DEFAULT_IAM_USER, "huaweiDomain": defaults.DEFAULT_IAM_DOMAIN}
    credentials = {"alayaApiKey": defaults.DEFAULT_ALAYA_API_KEY, "huaweiPassword": defaults.DEFAULT_IAM_PASSWORD}
    stack.set_config_all({**{f"mltrain:{k}": v for k, v in settings.items()}, **(plain or {})},
                         {**{f"mltrain:{k}": v for k, v in credentials.items()}, **(secrets or {})})


def preview(stack: Stack, tmp_path: Path, config: dict[str, Any] | None = None) -> subprocess.CompletedProcess[str]:
    args = ["--policy-pack", str(PACK)]
    if config is not None:
        path = tmp_path / "policy-config.json"
        path.write_text(json.dumps(config))
        args += ["--policy-pack-config", str(path)]
    return stack.preview(*args, check=False)


def test_compliant_program_passes(emulator: Any, tmp_path: Path) -> None:
    result = preview(make_stack(emulator, tmp_path, "compliant"), tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert violations(output) == {}, output
    assert "mltrain-policies|local|" in output  # the pack did run
    assert HF_TOKEN not in output


def test_violating_program_fails_naming_policy_resource_and_value(emulator: Any, tmp_path: Path) -> None:
    result = preview(make_stack(emulator, tmp_path, "violating"), tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "error: preview failed" in output
    found = violations(output)
    job, mount, ma_job = "alaya:TrainingJob rogue", "alaya:StorageMount scratch", "modelarts:TrainingJob mass"
    assert found == {
        "training-job-timeout": [("mandatory", job), ("mandatory", ma_job)],
        "allowed-image-registries": [("mandatory", job), ("mandatory", ma_job)],
        "max-nodes-per-job": [("mandatory", job)],
        "read-only-dataset-mounts": [("mandatory", mount), ("mandatory", job)],
        "no-plaintext-secrets": [("mandatory", job), ("mandatory", ma_job)],
        "auto-retry-bounded": [("advisory", job)],
        "description-present": [("advisory", job), ("advisory", ma_job)],
        "modelarts-log-export": [("advisory", ma_job)],
        "modelarts-failure-notification": [("mandatory", "modelarts:TrainingJob loud")],
        "modelarts-preemptible-retry": [("mandatory", "modelarts:TrainingJob spot")],
        "checkpoint-for-retries": [("advisory", "modelarts:TrainingJob heard"),
                                   ("advisory", "modelarts:TrainingJob loud"),
                                   ("advisory", "modelarts:TrainingJob spot"),
                                   ("advisory", "modelarts:TrainingJob spot-retried")],
        "gpu-hours-budget": [("mandatory", "pulumi:pulumi:Stack mltrain-policy-violating-test")],
    }, output
    for text in [
        "alaya:TrainingJob 'rogue': has no timeout: enable_timeout_cancel is off",
        "modelarts:TrainingJob 'mass': has no timeout: auto_stop_hours is not set and the custom timeout "
        "(timeouts.create = 1800 s) does not bound the job with wait_for='accepted'",
        "alaya:TrainingJob 'rogue': image 'docker.io/library/pytorch:latest' comes from docker.io",
        "modelarts:TrainingJob 'mass': image_url 'docker.io/someone/trainer:latest' comes from docker.io",
        "alaya:TrainingJob 'rogue': worker_count = 64 exceeds the maximum of 16 nodes",
        "alaya:StorageMount 'scratch': mount_path '/root/nas/datasets' (storage "
        "72a2a885-e45e-4c79-aaf3-e1fa05abdb92:datasets) is mounted read-write",
        "alaya:TrainingJob 'rogue': storage_mounts[0].mount_path '/data'",
        "alaya:TrainingJob 'rogue': env.HF_TOKEN = 'hf_…' (38 chars) is plaintext",
        "modelarts:TrainingJob 'mass': environments.DB_PASSWORD = 'hun…' (14 chars) is plaintext",
        "modelarts:TrainingJob 'mass': has no log_export_path",
        "unbounded GPU-hours exceed the budget of 2000 GPU-hours (maxGpuHours); "
        "jobs without a timeout: ",
        "alaya:TrainingJob 'rogue': PRD-TRAIN-1 8 GPU/node (catalogue) x 64 nodes x no timeout = unbounded GPU-h",
        "modelarts:TrainingJob 'mass': modelarts.vm.gpu.8v100 8 GPU/node (catalogue) x 2 nodes x no timeout "
        "= unbounded GPU-h",
        "modelarts:TrainingJob 'loud': uses 24 GPUs (more than 16, notifyAboveGpus) without a notification; set "
        "notification={topic_urn, events: [JobFailed]} so that a failure is heard of after `pulumi up` has exited",
        "modelarts:TrainingJob 'spot': is preemptible with retry_count = ",
        ": a preempted run would end for good; set retry_count to at least 1 (minRetryCount) or "
        "unconditional_retry=True",
    ]:
        assert text in output, text


def test_config_tightens_thresholds(emulator: Any, tmp_path: Path) -> None:
    """Tighter thresholds of six policies, the stack's GPU-hour budget among them, in one preview of the
    compliant program. (That a stack policy's mandatory violation alone fails a preview on v3.274.1 is
    tests/engine/test_cost.py::test_gpus_cost_and_the_budget_are_known_in_the_preview_of_a_new_stack's.)"""
    stack = make_stack(emulator, tmp_path, "compliant")
    result = preview(stack, tmp_path, {
        "gpu-hours-budget": {"maxGpuHours": 100},
        "max-nodes-per-job": {"maxNodes": 1},
        "training-job-timeout": {"maxTimeoutHours": 12},
        "allowed-image-registries": {"allowedRegistries": ["swr.cn-north-4.myhuaweicloud.com"]},
        "modelarts-allowed-flavors": {"allowedFlavors": ["modelarts.vm.cpu.8u"]},
        "modelarts-log-export": {"allowedPrefixes": ["obs://audit-logs/"]},
    })
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert violations(output) == {
        "gpu-hours-budget": [("mandatory", "pulumi:pulumi:Stack mltrain-policy-compliant-test")],
        "max-nodes-per-job": [("mandatory", "alaya:TrainingJob llama3-sft"),
                              ("mandatory", "modelarts:TrainingJob resnet")],
        "training-job-timeout": [("mandatory", "alaya:TrainingJob llama3-sft")],
        "allowed-image-registries": [("mandatory", "alaya:TrainingJob eval"),
                                     ("mandatory", "alaya:TrainingJob llama3-sft")],
        "modelarts-allowed-flavors": [("mandatory", "modelarts:TrainingJob resnet")],
        "modelarts-log-export": [("advisory", "modelarts:TrainingJob preprocess"),
                                 ("advisory", "modelarts:TrainingJob resnet")],
    }, output
    for text in [
        "400 GPU-hours exceed the budget of 100 GPU-hours (maxGpuHours)",
        "alaya:TrainingJob 'llama3-sft': PRD-TRAIN-1 8 GPU/node (catalogue) x 2 nodes x 24 h = 384 GPU-h; est. 160/h",
        "alaya:TrainingJob 'eval': PRD-QTT 1 GPU/node (catalogue) x 1 node x 4 h = 4 GPU-h; est. 10/h",
        "modelarts:TrainingJob 'resnet': modelarts.vm.gpu.v100 1 GPU/node (catalogue) x 2 nodes x 6 h = 12 GPU-h",
        "modelarts:TrainingJob 'preprocess': modelarts.vm.cpu.8u 0 GPU/node (catalogue) x 1 node x 2 h = 0 GPU-h",
        "alaya:TrainingJob 'llama3-sft': worker_count = 2 exceeds the maximum of 1 node (maxNodes)",
        "modelarts:TrainingJob 'resnet': node_count = 2 exceeds the maximum of 1 node (maxNodes)",
        "alaya:TrainingJob 'llama3-sft': timeout_hours = 24 h exceeds the maximum of 12 h",
        "alaya:TrainingJob 'eval': image 'harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu' comes from "
        "harbor.zetyun.cn, which is not an allowed registry (allowedRegistries: swr.cn-north-4.myhuaweicloud.com)",
        "modelarts:TrainingJob 'resnet': flavor_id 'modelarts.vm.gpu.v100' is not allowed",
        "modelarts:TrainingJob 'preprocess': log_export_path '/team-logs/preprocess/' is not inside "
        "obs://audit-logs/",
    ]:
        assert text in output, text
    assert HF_TOKEN not in output


def test_config_loosens_levels_and_thresholds(emulator: Any, tmp_path: Path) -> None:
    result = preview(make_stack(emulator, tmp_path, "violating"), tmp_path, {
        "allowed-image-registries": {"allowedRegistries": ["harbor.zetyun.cn", "docker.io/library",
                                                           "docker.io/someone", "swr.cn-north-4.myhuaweicloud.com"]},
        "max-nodes-per-job": {"maxNodes": 64},
        "read-only-dataset-mounts": {"writableMountPaths": ["/data", "/root/nas/datasets"]},
        "no-plaintext-secrets": {"enforcementLevel": "advisory", "allowedPlaintextKeys": ["DB_PASSWORD"]},
        "training-job-timeout": "disabled",
        "gpu-hours-budget": "advisory",
        "modelarts-failure-notification": {"notifyAboveGpus": 24},
        "modelarts-preemptible-retry": {"enforcementLevel": "advisory", "minRetryCount": 3},
    })
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    found = violations(output)
    assert found == {
        "no-plaintext-secrets": [("advisory", "alaya:TrainingJob rogue")],
        "auto-retry-bounded": [("advisory", "alaya:TrainingJob rogue")],
        "description-present": [("advisory", "alaya:TrainingJob rogue"), ("advisory", "modelarts:TrainingJob mass")],
        "modelarts-log-export": [("advisory", "modelarts:TrainingJob mass")],
        "modelarts-preemptible-retry": [("advisory", "modelarts:TrainingJob spot"),
                                        ("advisory", "modelarts:TrainingJob spot-retried")],
        "checkpoint-for-retries": [("advisory", "modelarts:TrainingJob heard"),
                                   ("advisory", "modelarts:TrainingJob loud"),
                                   ("advisory", "modelarts:TrainingJob spot"),
                                   ("advisory", "modelarts:TrainingJob spot-retried")],
        "gpu-hours-budget": [("advisory", "pulumi:pulumi:Stack mltrain-policy-violating-test")],
    }, output
    assert "modelarts:TrainingJob 'spot-retried': is preemptible with retry_count = 2: a preempted run would " \
        "end for good; set retry_count to at least 3 (minRetryCount)" in output, output


def test_the_checkpoint_rule_set_to_mandatory_refuses_a_preemptible_job_without_a_checkpoint(
        emulator: Any, tmp_path: Path) -> None:
    """checkpoint-for-retries is advisory by default (above); mandatory, it fails the preview on its own. With
    autoRetried off it judges preemptible jobs only: `spot` and `spot-retried`, not the retried `loud`."""
    result = preview(make_stack(emulator, tmp_path, "violating"), tmp_path, {
        "all": "disabled",
        "checkpoint-for-retries": {"enforcementLevel": "mandatory", "autoRetried": False},
    })
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "error: preview failed" in output
    assert violations(output) == {
        "checkpoint-for-retries": [("mandatory", "modelarts:TrainingJob spot"),
                                   ("mandatory", "modelarts:TrainingJob spot-retried")],
    }, output
    assert ("modelarts:TrainingJob 'spot': is preemptible without a checkpoint: a restart only relaunches it, and "
            "training without a checkpoint starts from scratch; set checkpoint={obs_url}") in output, output


# ----- every form: dynamic resources, the plugin through the generated SDK, Pulumi YAML --------------

FORMS = ("dynamic", "sdk", "yaml")


def forms_stack(emulator: Any, home: Path, form: str) -> Stack:
    """programs/forms as `form`: the Python program with `form` set, or its YAML twin copied as it is."""
    if form == "yaml":
        workdir = home / "project"
        shutil.copytree(PROGRAMS / "forms_yaml", workdir)
        (home / "state").mkdir(parents=True)
        stack = Stack(workdir=workdir, home=home)
        stack.init()
    else:
        stack = Stack.from_project(PROGRAMS / "forms", home)
    # The engine finds pulumi-resource-mltrain on PATH, as an installed wheel's console script.
    stack.env_extra["PATH"] = os.pathsep.join([str(BIN), str(VENV / "bin"), os.environ.get("PATH", "")])
    configure(stack, emulator, {} if form == "yaml" else {"form": form})
    return stack


def messages(output: str) -> list[tuple[str, str, str, list[str]]]:
    """Every violation the CLI printed: (level, policy, resource, its message's lines, sorted: the
    budget's breakdown lists jobs in the order the engine registered them)."""
    # The message follows its header, unindented (the budget's breakdown: two spaces), up to the next
    # resource line (indented four spaces) or the summary.
    block = re.compile(HEADER + r".*\n((?:(?!Resources:)(?:  )?\S.*\n)*)")
    return sorted((level, policy, f"{kind_of(rtype)} {name}", sorted(text.splitlines()))
                  for level, policy, rtype, name, text in block.findall(output))


def test_every_form_gets_the_same_violations_and_messages(emulator: Any, tmp_path: Path) -> None:
    """The pack judges a dynamic job, a plugin job of the generated SDK and one of Pulumi YAML alike:
    a docker.io image, an auto-retried job without a checkpoint (advisory) and the stack's GPU-hour budget
    (counting the plugin's ModelArts job by its customTimeouts create, as the dynamic program copies it into
    `timeouts`)."""
    reports: dict[str, list[tuple[str, str, str, list[str]]]] = {}
    for form in FORMS:
        result = preview(forms_stack(emulator, tmp_path / form, form), tmp_path / form)
        output = result.stdout + result.stderr
        assert result.returncode != 0, output
        assert violations(output) == {
            "allowed-image-registries": [("mandatory", "alaya:TrainingJob sft")],
            "checkpoint-for-retries": [("advisory", "alaya:TrainingJob sft")],
            "gpu-hours-budget": [("mandatory", "pulumi:pulumi:Stack mltrain-policy-forms-test")],
        }, (form, output)
        for text in [
            "alaya:TrainingJob 'sft': image 'docker.io/library/pytorch:latest' comes from docker.io, which is not "
            "an allowed registry (allowedRegistries: harbor.zetyun.cn, swr.cn-north-4.myhuaweicloud.com)",
            "2305 GPU-hours exceed the budget of 2000 GPU-hours (maxGpuHours)",
            "alaya:TrainingJob 'sft': PRD-TRAIN-1 8 GPU/node (catalogue) x 4 nodes x 72 h = 2304 GPU-h",
            "modelarts:TrainingJob 'mass': modelarts.vm.gpu.v100 1 GPU/node (catalogue) x 2 nodes x 0.5 h = 1 GPU-h",
        ]:
            assert text in output, (form, text, output)
        reports[form] = messages(output)
    assert len(reports["dynamic"]) == 3 and all(len(lines) > 0 for *_, lines in reports["dynamic"])
    assert reports["sdk"] == reports["dynamic"], reports
    assert reports["yaml"] == reports["dynamic"], reports
