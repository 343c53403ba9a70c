"""Unit tests of the policy pack: the real validators, fed ResourceValidationArgs/StackValidationArgs
built for our type tokens, with and without config; plus the SDK's own Analyze path for secrets."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.deserialize import SPECIAL_SECRET_SIG, SPECIAL_SIG_KEY
from pulumi_policy.policy import _PolicyAnalyzerServicer
from pulumi_policy.proxy import (
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    unknown_checking_proxy,
)

from mltrain_emulator import catalog
from mltrain_policies import POLICIES, SecretString, is_secret, secrets, track_secrets, untrack_secrets
from mltrain_policies import resources as r
from mltrain_policies import validators as v
from pulumi_mltrain import registry
from pulumi_mltrain.spec import property_name, to_property_names

STORAGE = "72a2a885-e45e-4c79-aaf3-e1fa05abdb92"
# The dynamic resources' type tokens; the plugin's forms of the same kinds are tested below.
ALAYA_JOB, ALAYA_MOUNT, MODELARTS_ALGORITHM, MODELARTS_JOB = (
    r.token(res.kind, r.DYNAMIC)
    for res in (registry.ALAYA_JOB, registry.ALAYA_MOUNT, registry.MODELARTS_ALGORITHM, registry.MODELARTS_JOB))


# ----- building args the way the SDK does ---------------------------------------------------------

def secret(value: Any) -> dict[str, Any]:
    """A value as the engine sends a secret."""
    return {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": value}


def _opts(create_seconds: float = 0) -> PolicyResourceOptions:
    """Resource options as the engine sends them; `create_seconds`: a customTimeouts create."""
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(create_seconds, 0, 0), [], None)


def _props(wire: dict[str, Any]) -> Any:
    """Wire-shaped props -> what a validator sees: tracked secrets, unknown-checking proxy."""
    return unknown_checking_proxy(secrets.deserialize_properties(wire))


def resource(rtype: str, wire: dict[str, Any], config: dict[str, Any] | None = None,
             name: str = "job", opts: PolicyResourceOptions | None = None) -> ResourceValidationArgs:
    return ResourceValidationArgs(rtype, _props(wire), f"urn:pulumi:test::p::{rtype}::{name}", name,
                                  opts or _opts(), None, config)


def stack(resources: list[tuple[str, str, dict[str, Any]]], config: dict[str, Any] | None = None,
          ) -> StackValidationArgs:
    items = [PolicyResource(t, _props(p), f"urn:pulumi:test::p::{t}::{n}", n, _opts(), None, None, [], {})
             for t, n, p in resources]
    return StackValidationArgs(items, config)


def run(policy: ResourceValidationPolicy | StackValidationPolicy,
        args: ResourceValidationArgs | StackValidationArgs) -> list[str]:
    out: list[str] = []
    policy.validate(args, lambda message, urn=None: out.append(message))  # type: ignore[misc,operator]
    return out


def alaya_job(**overrides: Any) -> dict[str, Any]:
    """Checked inputs of a compliant Alaya job (numbers as the RPC delivers them)."""
    job: dict[str, Any] = {
        "name": "llama3-sft-0a1b2c", "product_code": "PRD-TRAIN-1", "worker_count": 2.0,
        "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu", "create_type": "DIRECT",
        "description": "Llama 3 SFT, owned by the NLP team", "priority": 3.0,
        "env": {"NCCL_DEBUG": "WARN", "HF_TOKEN": secret("hf_" + "a1B2" * 9)},
        "storage_mounts": [
            {"storage_id": STORAGE, "storage_type": "nas-capacity", "file_directory": "datasets",
             "mount_path": "/root/nas/datasets", "read_only": True},
            {"storage_id": STORAGE, "storage_type": "nas-capacity", "file_directory": "ckpt",
             "mount_path": "/root/nas/checkpoints/llama3", "read_only": False},
        ],
        "enable_auto_retry": True, "max_retry_count": 3.0, "enable_timeout_cancel": True, "timeout_hours": 24.0,
        "checkpoint": {"path": "/root/nas/checkpoints/llama3/sft", "resume": True}, "wait_for": "created",
    }
    job.update(overrides)
    return job


def modelarts_job(**overrides: Any) -> dict[str, Any]:
    job: dict[str, Any] = {
        "name": "resnet-train", "description": "ResNet-50 on ImageNet, vision team",
        "workspace_id": "0", "engine_name": "PyTorch", "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7",
        # Checked inputs: the provider turns obs://bucket/dir into /bucket/dir.
        "code_dir": "/team-code/resnet/", "boot_file": "/team-code/resnet/train.py",
        "flavor_id": "modelarts.vm.gpu.8v100", "node_count": 2.0, "auto_stop_hours": 12.0,
        "log_export_path": "/team-logs/resnet/", "environments": {"OMP_NUM_THREADS": "8"},
        "parameters": [{"name": "epochs", "value": "90"}], "inputs": [], "outputs": [], "wait_for": "accepted",
    }
    job.update(overrides)
    return job


def storage_mount(**overrides: Any) -> dict[str, Any]:
    mount: dict[str, Any] = {"storage_id": STORAGE, "storage_type": "nas-capacity", "file_directory": "datasets",
                             "mount_path": "/root/nas/datasets", "read_only": True}
    mount.update(overrides)
    return mount


RESOURCE_POLICIES = [p for p in POLICIES if isinstance(p, ResourceValidationPolicy)]


# ----- the pack ------------------------------------------------------------------------------------

def test_pack_lists_every_policy_with_its_level() -> None:
    levels = {p.name: p.enforcement_level for p in POLICIES}
    assert levels == {
        "training-job-timeout": EnforcementLevel.MANDATORY,
        "allowed-image-registries": EnforcementLevel.MANDATORY,
        "max-nodes-per-job": EnforcementLevel.MANDATORY,
        "read-only-dataset-mounts": EnforcementLevel.MANDATORY,
        "no-plaintext-secrets": EnforcementLevel.MANDATORY,
        "auto-retry-bounded": EnforcementLevel.ADVISORY,
        "description-present": EnforcementLevel.ADVISORY,
        "modelarts-allowed-flavors": EnforcementLevel.MANDATORY,
        "modelarts-log-export": EnforcementLevel.ADVISORY,
        "modelarts-failure-notification": EnforcementLevel.MANDATORY,
        "modelarts-preemptible-retry": EnforcementLevel.MANDATORY,
        "checkpoint-for-retries": EnforcementLevel.ADVISORY,
        "gpu-hours-budget": EnforcementLevel.MANDATORY,
        "new-run-budget": EnforcementLevel.MANDATORY,
    }
    assert isinstance(v.GPU_HOURS_BUDGET, StackValidationPolicy)
    assert isinstance(v.NEW_RUN_BUDGET, StackValidationPolicy)


def test_config_schemas_have_defaults_and_reach_the_engine() -> None:
    servicer = _PolicyAnalyzerServicer("mltrain-policies", "0.1.0", list(POLICIES), EnforcementLevel.ADVISORY)
    info = servicer.GetAnalyzerInfo(None, None)
    schemas = {p.name: p.configSchema for p in info.policies}
    assert set(schemas) == {p.name for p in POLICIES}
    for policy in POLICIES:
        assert policy.config_schema is not None, policy.name
        for key, prop in policy.config_schema.properties.items():
            assert "default" in prop and "type" in prop, (policy.name, key)
            json.dumps(prop)
        assert set(schemas[policy.name].properties) == set(policy.config_schema.properties)


def test_gpu_defaults_match_the_emulator_catalogue() -> None:
    products = {p["productCode"]: int(p["gpuCount"]) for p in catalog.products()}
    flavors = {f["flavor_id"]: int(f["flavor_info"].get("gpu", {}).get("gpu_num", 0)) for f in catalog.flavors()}
    assert {k: products[k] for k in v.DEFAULT_GPUS_PER_PRODUCT} == v.DEFAULT_GPUS_PER_PRODUCT
    assert flavors == v.DEFAULT_GPUS_PER_FLAVOR


@pytest.mark.parametrize("rtype,props", [
    (ALAYA_JOB, alaya_job()),
    (MODELARTS_JOB, modelarts_job(image_url="swr.cn-north-4.myhuaweicloud.com/team/pytorch:2.1")),
    (ALAYA_MOUNT, storage_mount()),
    (MODELARTS_ALGORITHM, {"name": "algo", "description": "ResNet training code"}),
])
def test_compliant_resources_pass_every_policy(rtype: str, props: dict[str, Any]) -> None:
    for policy in RESOURCE_POLICIES:
        assert run(policy, resource(rtype, props)) == [], policy.name


def test_other_resource_types_are_ignored() -> None:
    props = {"image": "evil.io/x", "worker_count": 999.0, "env": {"API_TOKEN": "plain"}}
    for policy in RESOURCE_POLICIES:
        assert run(policy, resource("aws:s3/bucket:Bucket", props)) == [], policy.name


# ----- training-job-timeout ------------------------------------------------------------------------

def test_timeout_missing_fails() -> None:
    props = alaya_job()
    del props["timeout_hours"]
    props["enable_timeout_cancel"] = False
    [msg] = run(v.TRAINING_JOB_TIMEOUT, resource(ALAYA_JOB, props, name="llama"))
    assert msg.startswith("alaya:TrainingJob 'llama': has no timeout: enable_timeout_cancel is off")


def test_timeout_hours_alone_counts_during_preview() -> None:
    # With unknown inputs the provider returns raw inputs: enable_timeout_cancel is not filled in yet.
    props = alaya_job(storage_mounts=[UNKNOWN_OBJECT_VALUE])
    del props["enable_timeout_cancel"]
    assert run(v.TRAINING_JOB_TIMEOUT, resource(ALAYA_JOB, props)) == []


def test_timeout_above_default_maximum_fails() -> None:
    [msg] = run(v.TRAINING_JOB_TIMEOUT, resource(ALAYA_JOB, alaya_job(timeout_hours=100.0)))
    assert "timeout_hours = 100 h exceeds the maximum of 72 h (maxTimeoutHours)" in msg


@pytest.mark.parametrize("limit,hours,ok", [(12, 24.0, False), (24.0, 24.0, True), (200, 100.0, True)])
def test_timeout_maximum_from_config(limit: float, hours: float, ok: bool) -> None:
    found = run(v.TRAINING_JOB_TIMEOUT, resource(ALAYA_JOB, alaya_job(timeout_hours=hours),
                                                 {"maxTimeoutHours": limit}))
    assert (found == []) is ok, found


def test_modelarts_timeout_sources() -> None:
    no_stop = modelarts_job()
    del no_stop["auto_stop_hours"]
    [msg] = run(v.TRAINING_JOB_TIMEOUT, resource(MODELARTS_JOB, no_stop, name="resnet"))
    assert msg.startswith("modelarts:TrainingJob 'resnet': has no timeout: neither auto_stop_hours nor a custom")

    # A custom create timeout bounds the job only when create waits for the job to complete.
    waits = dict(no_stop, timeouts={"create": 7200.0})
    [msg] = run(v.TRAINING_JOB_TIMEOUT, resource(MODELARTS_JOB, waits))
    assert "custom timeout (timeouts.create = 7200 s) does not bound the job with wait_for='accepted'" in msg
    completes = dict(waits, wait_for="completed")
    assert run(v.TRAINING_JOB_TIMEOUT, resource(MODELARTS_JOB, completes)) == []
    [msg] = run(v.TRAINING_JOB_TIMEOUT, resource(MODELARTS_JOB, completes, {"maxTimeoutHours": 1}))
    assert "timeouts.create = 2 h exceeds the maximum of 1 h" in msg

    [msg] = run(v.TRAINING_JOB_TIMEOUT, resource(MODELARTS_JOB, modelarts_job(auto_stop_hours=96.0)))
    assert "auto_stop_hours = 96 h exceeds the maximum of 72 h" in msg


# ----- allowed-image-registries --------------------------------------------------------------------

@pytest.mark.parametrize("image,registry", [
    ("docker.io/library/pytorch:2.3", "docker.io"),
    ("pytorch/pytorch:2.3.1-cuda12.1", "docker.io (implicit)"),
    ("harbor.zetyun.cn.evil.io/anc-public/pytorch:1", "harbor.zetyun.cn.evil.io"),
    ("ghcr.io/someone/trainer:latest", "ghcr.io"),
])
def test_images_from_other_registries_fail(image: str, registry: str) -> None:
    [msg] = run(v.ALLOWED_IMAGE_REGISTRIES, resource(ALAYA_JOB, alaya_job(image=image)))
    assert f"image '{image}' comes from {registry}, which is not an allowed registry" in msg
    assert "harbor.zetyun.cn, swr.cn-north-4.myhuaweicloud.com" in msg


def test_registry_prefixes_from_config() -> None:
    config = {"allowedRegistries": ["harbor.zetyun.cn/anc-public", "registry.local:5000"]}
    for image, ok in [("harbor.zetyun.cn/anc-public/general/pytorch:2", True),
                      ("harbor.zetyun.cn/other-team/pytorch:2", False),
                      ("registry.local:5000/pytorch:2", True),
                      ("HARBOR.ZETYUN.CN/anc-public/x:1", True)]:
        found = run(v.ALLOWED_IMAGE_REGISTRIES, resource(ALAYA_JOB, alaya_job(image=image), config))
        assert (found == []) is ok, (image, found)


def test_modelarts_image_url_only_when_set() -> None:
    assert run(v.ALLOWED_IMAGE_REGISTRIES, resource(MODELARTS_JOB, modelarts_job())) == []
    [msg] = run(v.ALLOWED_IMAGE_REGISTRIES,
                resource(MODELARTS_JOB, modelarts_job(image_url="docker.io/me/train:1"), name="resnet"))
    assert msg.startswith("modelarts:TrainingJob 'resnet': image_url 'docker.io/me/train:1' comes from docker.io")


# ----- max-nodes-per-job ---------------------------------------------------------------------------

def test_node_count_limits() -> None:
    assert run(v.MAX_NODES_PER_JOB, resource(ALAYA_JOB, alaya_job(worker_count=16.0))) == []
    [msg] = run(v.MAX_NODES_PER_JOB, resource(ALAYA_JOB, alaya_job(worker_count=17.0)))
    assert "worker_count = 17 exceeds the maximum of 16 nodes (maxNodes)" in msg
    [msg] = run(v.MAX_NODES_PER_JOB, resource(MODELARTS_JOB, modelarts_job(node_count=32.0)))
    assert "node_count = 32 exceeds the maximum of 16 nodes" in msg
    no_count = modelarts_job()
    del no_count["node_count"]
    assert run(v.MAX_NODES_PER_JOB, resource(MODELARTS_JOB, no_count)) == []


def test_node_limit_from_config() -> None:
    # The engine passes config numbers as floats.
    [msg] = run(v.MAX_NODES_PER_JOB, resource(ALAYA_JOB, alaya_job(worker_count=8.0), {"maxNodes": 4.0}))
    assert "worker_count = 8 exceeds the maximum of 4 nodes" in msg
    assert run(v.MAX_NODES_PER_JOB, resource(ALAYA_JOB, alaya_job(worker_count=64.0), {"maxNodes": 64})) == []


# ----- read-only-dataset-mounts --------------------------------------------------------------------

def _with_mount(**mount: Any) -> dict[str, Any]:
    return alaya_job(storage_mounts=[storage_mount(**mount)])


def test_writable_mounts_outside_the_list_fail() -> None:
    [msg] = run(v.READ_ONLY_DATASET_MOUNTS, resource(ALAYA_JOB, _with_mount(mount_path="/data", read_only=False)))
    assert f"storage_mounts[0].mount_path '/data' (storage {STORAGE}:datasets) is mounted read-write" in msg
    assert "/root/nas/checkpoints, /root/nas/outputs (writableMountPaths)" in msg
    # Whole path segments: a sibling that shares a prefix is not inside the writable path.
    [msg] = run(v.READ_ONLY_DATASET_MOUNTS,
                resource(ALAYA_JOB, _with_mount(mount_path="/root/nas/checkpoints-old", read_only=False)))
    assert "'/root/nas/checkpoints-old'" in msg


def test_read_only_and_allowed_writable_mounts_pass() -> None:
    for mount in [dict(mount_path="/data", read_only=True), dict(mount_path="/data"),
                  dict(mount_path="/root/nas/outputs/", read_only=False),
                  dict(mount_path="/root/nas/checkpoints/run-7", read_only=False)]:
        assert run(v.READ_ONLY_DATASET_MOUNTS, resource(ALAYA_JOB, _with_mount(**mount))) == [], mount


def test_storage_mount_resource_and_wire_names() -> None:
    [msg] = run(v.READ_ONLY_DATASET_MOUNTS,
                resource(ALAYA_MOUNT, storage_mount(read_only=False), name="datasets"))
    assert msg.startswith("alaya:StorageMount 'datasets': mount_path '/root/nas/datasets'")
    wire = {"storageId": STORAGE, "storageType": "nas-capacity", "fileDirectory": "d", "mountPath": "/x",
            "onlyRead": False}
    [msg] = run(v.READ_ONLY_DATASET_MOUNTS, resource(ALAYA_JOB, alaya_job(storage_mounts=[wire])))
    assert "mount_path '/x'" in msg


def test_writable_paths_from_config_and_unknown_mounts() -> None:
    props = _with_mount(mount_path="/data/out", read_only=False)
    assert run(v.READ_ONLY_DATASET_MOUNTS, resource(ALAYA_JOB, props, {"writableMountPaths": ["/data"]})) == []
    # StorageMount.mount outputs are unknown during a preview: skipped (the StorageMount is checked itself).
    props = alaya_job(storage_mounts=[UNKNOWN_OBJECT_VALUE, storage_mount(mount_path="/w", read_only=False)])
    [msg] = run(v.READ_ONLY_DATASET_MOUNTS, resource(ALAYA_JOB, props))
    assert "storage_mounts[1].mount_path '/w'" in msg


# ----- no-plaintext-secrets ------------------------------------------------------------------------

HF = "hf_" + "Zx9" * 12
BENIGN = {"NCCL_DEBUG": "WARN", "RUN_ID": "5c0d3f7e-1b2a-4c8d-9e6f-a7b8c9d0e1f2",
          "GIT_SHA": "aba42df" + "0" * 33, "KEY_PATH": "/root/.ssh/id_ed25519", "TOKENIZERS_PARALLELISM": "false"}


def test_plaintext_credentials_fail_and_are_masked() -> None:
    env = {**BENIGN, "WANDB_API_KEY": "0123456789abcdef", "DB_PASSWORD": "hunter2hunter2", "NOTES": HF}
    found = run(v.NO_PLAINTEXT_SECRETS, resource(ALAYA_JOB, alaya_job(env=env), name="llama"))
    assert len(found) == 3, found
    text = "\n".join(found)
    assert "alaya:TrainingJob 'llama': env.WANDB_API_KEY = '012…' (16 chars) is plaintext but its name looks" in text
    assert "env.DB_PASSWORD" in text
    assert "env.NOTES = 'hf_…' (39 chars) is plaintext but its value is shaped like a credential" in text
    assert "hunter2" not in text and HF not in text and "0123456789abcdef" not in text
    assert "pulumi.Output.secret" in text


@pytest.mark.parametrize("value", [
    "AKIA" + "ABCDEFGHIJKLMNOP", "ghp_" + "a" * 36, "sk-" + "A1b2" * 6, "xoxb-1234567890-abcdef",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nabc", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
    "Q2hhbmdlTWVQbGVhc2U5OTk5OTk5OTk5OTk5OTk5",
])
def test_values_shaped_like_credentials_fail(value: str) -> None:
    [msg] = run(v.NO_PLAINTEXT_SECRETS, resource(ALAYA_JOB, alaya_job(env={"SOMETHING": value})))
    assert "its value is shaped like a credential" in msg


def test_secret_values_pass() -> None:
    env = {**BENIGN, "WANDB_API_KEY": secret("0123456789abcdef"), "NOTES": secret(HF)}
    assert run(v.NO_PLAINTEXT_SECRETS, resource(ALAYA_JOB, alaya_job(env=env))) == []
    whole = secret({"HF_TOKEN": HF, "PASSWORD": "x" * 12})  # env=Output.secret({...})
    assert run(v.NO_PLAINTEXT_SECRETS, resource(ALAYA_JOB, alaya_job(env=whole))) == []


def test_secret_rule_config_and_modelarts() -> None:
    env = {"HF_TOKEN": HF, "INTERNAL_AUTH": "abc123abc"}
    config = {"allowedPlaintextKeys": ["HF_TOKEN"], "secretKeyPatterns": ["_AUTH$"]}
    [msg] = run(v.NO_PLAINTEXT_SECRETS, resource(MODELARTS_JOB, modelarts_job(environments=env), config))
    assert "environments.INTERNAL_AUTH = 'abc…' (9 chars) is plaintext but its name" in msg
    bad = {"secretValuePatterns": ["(unclosed"]}
    [msg] = run(v.NO_PLAINTEXT_SECRETS, resource(MODELARTS_JOB, modelarts_job(), bad))
    assert "invalid regular expression(s) in the policy config: '(unclosed'" in msg


def test_unknown_env_values_are_skipped() -> None:
    env = {"HF_TOKEN": UNKNOWN_STRING_VALUE, "API_KEY": "plain-and-known"}
    [msg] = run(v.NO_PLAINTEXT_SECRETS, resource(ALAYA_JOB, alaya_job(env=env)))
    assert "env.API_KEY" in msg


def test_secret_string_never_shows_its_value() -> None:
    value = SecretString("hunter2")
    assert value == "hunter2" and is_secret(value) and repr(value) == "[secret]"
    assert f"{[value]}" == "[[secret]]" and not is_secret("hunter2")


# ----- secrets through the SDK's own Analyze (what the engine calls) --------------------------------

@pytest.fixture
def sdk_analyze() -> Iterator[Any]:
    servicer = _PolicyAnalyzerServicer("mltrain-policies", "0.1.0", [v.NO_PLAINTEXT_SECRETS],
                                       EnforcementLevel.ADVISORY)

    def analyze(env: dict[str, Any]) -> list[str]:
        props = struct_pb2.Struct()
        props.update({"image": "harbor.zetyun.cn/x:1", "env": env})
        request = analyzer_pb2.AnalyzeRequest(type=ALAYA_JOB, properties=props, name="job",
                                              urn=f"urn:pulumi:test::p::{ALAYA_JOB}::job",
                                              options=analyzer_pb2.AnalyzerResourceOptions())
        return [d.message for d in servicer.Analyze(request, None).diagnostics]

    yield analyze
    untrack_secrets()


def test_sdk_alone_hides_secretness(sdk_analyze: Any) -> None:
    """pulumi-policy 1.21.0 unwraps secrets before `validate`: Output.secret looks like plaintext."""
    untrack_secrets()
    [msg] = sdk_analyze({"HF_TOKEN": secret(HF)})
    assert "env.HF_TOKEN" in msg


def test_tracked_sdk_lets_secrets_pass(sdk_analyze: Any) -> None:
    assert track_secrets() is True and track_secrets() is True  # idempotent
    assert sdk_analyze({"HF_TOKEN": secret(HF), "NCCL_DEBUG": "WARN"}) == []
    [msg] = sdk_analyze({"HF_TOKEN": HF})
    assert "env.HF_TOKEN" in msg


def test_sdk_config_numbers_arrive_as_floats() -> None:
    servicer = _PolicyAnalyzerServicer("mltrain-policies", "0.1.0", [v.MAX_NODES_PER_JOB],
                                       EnforcementLevel.ADVISORY)
    config = struct_pb2.Struct()
    config.update({"maxNodes": 4})
    servicer.Configure(analyzer_pb2.ConfigureAnalyzerRequest(policyConfig={
        "max-nodes-per-job": analyzer_pb2.PolicyConfig(enforcementLevel=analyzer_pb2.MANDATORY, properties=config),
    }), None)
    props = struct_pb2.Struct()
    props.update({"worker_count": 8, "product_code": "PRD-TRAIN-1"})
    request = analyzer_pb2.AnalyzeRequest(type=ALAYA_JOB, properties=props, name="job", urn="urn:x",
                                          options=analyzer_pb2.AnalyzerResourceOptions())
    [diag] = servicer.Analyze(request, None).diagnostics
    assert "worker_count = 8 exceeds the maximum of 4 nodes" in diag.message
    assert diag.enforcementLevel == analyzer_pb2.MANDATORY


# ----- auto-retry-bounded (advisory) ---------------------------------------------------------------

def test_retry_rules() -> None:
    off = alaya_job(enable_auto_retry=False)
    del off["max_retry_count"]
    [msg] = run(v.AUTO_RETRY_BOUNDED, resource(ALAYA_JOB, off))
    assert "auto-retry is off (enable_auto_retry)" in msg
    unbounded = dict(off, enable_auto_retry=True)
    [msg] = run(v.AUTO_RETRY_BOUNDED, resource(ALAYA_JOB, unbounded))
    assert "enable_auto_retry is on without max_retry_count" in msg
    [msg] = run(v.AUTO_RETRY_BOUNDED, resource(ALAYA_JOB, alaya_job(max_retry_count=9.0)))
    assert "max_retry_count = 9 is outside 1 to 5 (maxRetryCount)" in msg
    assert run(v.AUTO_RETRY_BOUNDED, resource(ALAYA_JOB, alaya_job(max_retry_count=9.0), {"maxRetryCount": 10})) == []
    raw = alaya_job()  # preview with unknowns: max_retry_count alone implies enable_auto_retry
    del raw["enable_auto_retry"]
    assert run(v.AUTO_RETRY_BOUNDED, resource(ALAYA_JOB, raw)) == []


# ----- description-present (advisory) -------------------------------------------------------------

def test_description_rules() -> None:
    for props in [alaya_job(description=None), alaya_job(description="   ")]:
        [msg] = run(v.DESCRIPTION_PRESENT, resource(ALAYA_JOB, props, name="llama"))
        assert msg == "alaya:TrainingJob 'llama': has no description; say what it trains and who owns it"
    [msg] = run(v.DESCRIPTION_PRESENT, resource(MODELARTS_ALGORITHM, {"name": "a"}, name="algo"))
    assert msg.startswith("modelarts:Algorithm 'algo': has no description")
    [msg] = run(v.DESCRIPTION_PRESENT, resource(ALAYA_JOB, alaya_job(description="sft"), {"minLength": 10}))
    assert "description 'sft' is shorter than 10 characters (minLength)" in msg


# ----- ModelArts flavors and log export ------------------------------------------------------------

def test_flavor_allow_list() -> None:
    [msg] = run(v.MODELARTS_ALLOWED_FLAVORS,
                resource(MODELARTS_JOB, modelarts_job(flavor_id="modelarts.vm.gpu.p100"), name="resnet"))
    assert msg.startswith("modelarts:TrainingJob 'resnet': flavor_id 'modelarts.vm.gpu.p100' is not allowed")
    config = {"allowedFlavors": ["modelarts.vm.cpu.8u"]}
    [msg] = run(v.MODELARTS_ALLOWED_FLAVORS, resource(MODELARTS_JOB, modelarts_job(), config))
    assert "flavor_id 'modelarts.vm.gpu.8v100' is not allowed (allowedFlavors: modelarts.vm.cpu.8u)" in msg
    pool = modelarts_job(pool_id="pool-1")
    del pool["flavor_id"]
    assert run(v.MODELARTS_ALLOWED_FLAVORS, resource(MODELARTS_JOB, pool, config)) == []


TOPIC = "urn:smn:cn-north-4:0a1b2c3d4e5f:train-alerts"


def test_large_modelarts_jobs_need_a_failure_notification() -> None:
    # 8 GPUs per node (the flavor map) x 3 nodes = 24 GPUs, above the default of 16.
    [msg] = run(v.MODELARTS_FAILURE_NOTIFICATION, resource(MODELARTS_JOB, modelarts_job(node_count=3.0), name="big"))
    assert msg.startswith("modelarts:TrainingJob 'big': uses 24 GPUs (more than 16, notifyAboveGpus) without a "
                          "notification; set notification={topic_urn, events: [JobFailed]}")
    told = modelarts_job(node_count=3.0, notification={"topic_urn": TOPIC, "events": ["JobFailed", "JobHanged"]})
    assert run(v.MODELARTS_FAILURE_NOTIFICATION, resource(MODELARTS_JOB, told)) == []
    started_only = modelarts_job(node_count=3.0, notification={"topic_urn": TOPIC, "events": ["JobStarted"]})
    [msg] = run(v.MODELARTS_FAILURE_NOTIFICATION, resource(MODELARTS_JOB, started_only))
    assert "notification.events lacks JobFailed (requiredEvents), required for a job of 24 GPUs" in msg
    # 16 GPUs (2 nodes) is not above the default; a lower threshold or the catalogue's gpu_count decide.
    assert run(v.MODELARTS_FAILURE_NOTIFICATION, resource(MODELARTS_JOB, modelarts_job())) == []
    assert run(v.MODELARTS_FAILURE_NOTIFICATION, resource(MODELARTS_JOB, modelarts_job(),
                                                          {"notifyAboveGpus": 8})) != []
    assert run(v.MODELARTS_FAILURE_NOTIFICATION, resource(MODELARTS_JOB, modelarts_job(gpu_count=64.0))) != []
    assert run(v.MODELARTS_FAILURE_NOTIFICATION, resource(
        MODELARTS_JOB, modelarts_job(node_count=3.0), {"gpusPerFlavor": {"modelarts.vm.gpu.8v100": 4}})) == []
    config = {"requiredEvents": ["JobFailed", "JobHanged"]}
    [msg] = run(v.MODELARTS_FAILURE_NOTIFICATION, resource(MODELARTS_JOB, started_only, config))
    assert "lacks JobFailed, JobHanged (requiredEvents)" in msg
    # Alaya NeW has no notification setting: the rule is ModelArts's only.
    assert run(v.MODELARTS_FAILURE_NOTIFICATION, resource(ALAYA_JOB, alaya_job(worker_count=64.0))) == []


def test_preemptible_modelarts_jobs_need_a_retry_setting() -> None:
    bare = modelarts_job(pool_id="pool-1", preemptible=True)
    [msg] = run(v.MODELARTS_PREEMPTIBLE_RETRY, resource(MODELARTS_JOB, bare, name="spot"))
    assert msg == ("modelarts:TrainingJob 'spot': is preemptible with retry_count = unset: a preempted run would end "
                   "for good; set retry_count to at least 1 (minRetryCount) or unconditional_retry=True")
    assert run(v.MODELARTS_PREEMPTIBLE_RETRY, resource(MODELARTS_JOB, dict(bare, retry_count=2.0))) == []
    assert run(v.MODELARTS_PREEMPTIBLE_RETRY, resource(MODELARTS_JOB, dict(bare, unconditional_retry=True))) == []
    [msg] = run(v.MODELARTS_PREEMPTIBLE_RETRY, resource(MODELARTS_JOB, dict(bare, retry_count=2.0),
                                                        {"minRetryCount": 3}))
    assert "retry_count = 2" in msg and "at least 3 (minRetryCount)" in msg
    assert run(v.MODELARTS_PREEMPTIBLE_RETRY, resource(MODELARTS_JOB, dict(bare, preemptible=False))) == []
    assert run(v.MODELARTS_PREEMPTIBLE_RETRY, resource(MODELARTS_JOB, modelarts_job())) == []


def test_preemptible_and_auto_retried_jobs_need_a_checkpoint() -> None:
    spot = modelarts_job(pool_id="pool-1", preemptible=True, retry_count=2.0)
    [msg] = run(v.CHECKPOINT_FOR_RETRIES, resource(MODELARTS_JOB, spot, name="spot"))
    assert msg == ("modelarts:TrainingJob 'spot': is preemptible and auto-retried (retry_count = 2) without a "
                   "checkpoint: a restart only relaunches it, and training without a checkpoint starts from scratch; "
                   "set checkpoint={obs_url} (an output channel predownloaded by the next run), and save and reload "
                   "checkpoints in the training script")
    kept = dict(spot, checkpoint={"name": "checkpoint_url", "obs_url": "/b/ckpt/", "resume": True})
    assert run(v.CHECKPOINT_FOR_RETRIES, resource(MODELARTS_JOB, kept)) == []
    [msg] = run(v.CHECKPOINT_FOR_RETRIES, resource(MODELARTS_JOB, modelarts_job(hang_retry=True)))
    assert "is auto-retried (hang_retry) without a checkpoint" in msg
    assert run(v.CHECKPOINT_FOR_RETRIES, resource(MODELARTS_JOB, modelarts_job())) == []
    # Alaya NeW: auto-retry is the platform's restart; the checkpoint is a NAS path.
    retried = alaya_job(checkpoint=None)
    [msg] = run(v.CHECKPOINT_FOR_RETRIES, resource(ALAYA_JOB, retried, name="llama"))
    assert msg.startswith("alaya:TrainingJob 'llama': is auto-retried (enable_auto_retry) without a checkpoint") \
        and "set checkpoint={path} on a writable NAS mount" in msg, msg
    assert run(v.CHECKPOINT_FOR_RETRIES, resource(ALAYA_JOB, dict(retried, enable_auto_retry=False,
                                                                  max_retry_count=None))) == []
    # Each trigger can be switched off.
    assert run(v.CHECKPOINT_FOR_RETRIES, resource(ALAYA_JOB, retried, {"autoRetried": False})) == []
    [msg] = run(v.CHECKPOINT_FOR_RETRIES, resource(MODELARTS_JOB, spot, {"autoRetried": False}))
    assert "is preemptible without a checkpoint" in msg
    assert run(v.CHECKPOINT_FOR_RETRIES, resource(MODELARTS_JOB, spot,
                                                  {"autoRetried": False, "preemptible": False})) == []


def test_log_export_path() -> None:
    missing = modelarts_job()
    del missing["log_export_path"]
    [msg] = run(v.MODELARTS_LOG_EXPORT, resource(MODELARTS_JOB, missing, name="resnet"))
    assert msg.startswith("modelarts:TrainingJob 'resnet': has no log_export_path")
    assert run(v.MODELARTS_LOG_EXPORT, resource(MODELARTS_JOB, modelarts_job(log_export_path="obs://b/l/"))) == []

    config = {"allowedPrefixes": ["obs://audit-logs/"]}
    for path, ok in [("/audit-logs/resnet/", True), ("obs://audit-logs/resnet", True), ("/audit-logs", True),
                     ("/audit-logs-old/resnet/", False), ("/team-logs/resnet/", False)]:
        found = run(v.MODELARTS_LOG_EXPORT, resource(MODELARTS_JOB, modelarts_job(log_export_path=path), config))
        assert (found == []) is ok, (path, found)
    [msg] = run(v.MODELARTS_LOG_EXPORT, resource(MODELARTS_JOB, modelarts_job(), config))
    assert "log_export_path '/team-logs/resnet/' is not inside obs://audit-logs/ (allowedPrefixes)" in msg


# ----- gpu-hours-budget (stack) --------------------------------------------------------------------

def _fleet() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (ALAYA_JOB, "llama", alaya_job()),  # 8 GPU x 2 nodes x 24 h = 384
        (MODELARTS_JOB, "resnet", modelarts_job()),  # 8 GPU x 2 nodes x 12 h = 192
        (ALAYA_JOB, "prep", alaya_job(product_code="PRD-CPU-1", worker_count=4.0, timeout_hours=None,
                                      enable_timeout_cancel=False)),  # CPU: 0 whatever the time
        (ALAYA_MOUNT, "datasets", storage_mount()),
    ]


def test_budget_within_default_passes() -> None:
    args = stack(_fleet())
    assert run(v.GPU_HOURS_BUDGET, args) == []
    assert v.gpu_budget(args).total == 576


def test_budget_exceeded_reports_the_breakdown() -> None:
    [msg] = run(v.GPU_HOURS_BUDGET, stack(_fleet(), {"maxGpuHours": 500.0}))
    assert msg.startswith("576 GPU-hours exceed the budget of 500 GPU-hours (maxGpuHours)")
    assert "alaya:TrainingJob 'llama': PRD-TRAIN-1 8 GPU/node (gpusPerProduct) x 2 nodes x 24 h = 384 GPU-h" in msg
    assert ("modelarts:TrainingJob 'resnet': modelarts.vm.gpu.8v100 8 GPU/node (gpusPerFlavor) x 2 nodes x 12 h "
            "= 192 GPU-h") in msg
    assert "alaya:TrainingJob 'prep': PRD-CPU-1 0 GPU/node (gpusPerProduct) x 4 nodes x no timeout = 0 GPU-h" in msg
    assert "datasets" not in msg


def test_budget_gpu_jobs_without_timeout_are_unbounded() -> None:
    fleet = [*_fleet(), (ALAYA_JOB, "forever", alaya_job(timeout_hours=None, enable_timeout_cancel=False))]
    [msg] = run(v.GPU_HOURS_BUDGET, stack(fleet))
    assert msg.startswith("unbounded GPU-hours exceed the budget of 2000 GPU-hours (maxGpuHours); "
                          "jobs without a timeout: alaya:TrainingJob 'forever'")
    assert "'forever': PRD-TRAIN-1 8 GPU/node (gpusPerProduct) x 2 nodes x no timeout = unbounded GPU-h" in msg


def test_budget_gpu_maps_from_config_extend_the_defaults() -> None:
    fleet = [(ALAYA_JOB, "new", alaya_job(product_code="PRD-H100", worker_count=1.0, timeout_hours=10.0)),
             (ALAYA_JOB, "llama", alaya_job())]
    # Unknown product: the conservative fallback (8 GPUs), marked as assumed.
    [msg] = run(v.GPU_HOURS_BUDGET, stack(fleet, {"maxGpuHours": 400}))
    assert "PRD-H100 8 GPU/node (assumed) x 1 node x 10 h = 80 GPU-h" in msg and "464 GPU-hours" in msg
    config = {"maxGpuHours": 400, "gpusPerProduct": {"PRD-H100": 1.0}}  # PRD-TRAIN-1 keeps its default 8
    assert run(v.GPU_HOURS_BUDGET, stack(fleet, config)) == []
    assert v.gpu_budget(stack(fleet, config)).total == 394
    [msg] = run(v.GPU_HOURS_BUDGET, stack(fleet, {**config, "gpusPerProduct": {"PRD-TRAIN-1": 16}}))
    assert "PRD-TRAIN-1 16 GPU/node (gpusPerProduct) x 2 nodes x 24 h = 768 GPU-h" in msg


def test_budget_prefers_the_catalogue_figures_and_names_the_source() -> None:
    """gpus_per_node from the provider (the platform's catalogue) wins over the pack's maps."""
    fleet = [(ALAYA_JOB, "llama", alaya_job(gpus_per_node=8.0, gpu_count=16.0, cost_per_hour=160.0)),
             (ALAYA_JOB, "new", alaya_job(product_code="PRD-H100", worker_count=1.0, timeout_hours=10.0,
                                          gpus_per_node=2.0)),
             (MODELARTS_JOB, "resnet", modelarts_job(gpus_per_node=4.0))]
    config = {"maxGpuHours": 100, "gpusPerProduct": {"PRD-TRAIN-1": 1}}  # ignored: the catalogue says 8
    [msg] = run(v.GPU_HOURS_BUDGET, stack(fleet, config))
    assert msg.startswith("500 GPU-hours exceed the budget of 100 GPU-hours (maxGpuHours)"), msg
    assert "'llama': PRD-TRAIN-1 8 GPU/node (catalogue) x 2 nodes x 24 h = 384 GPU-h; est. 160/h" in msg
    assert "'new': PRD-H100 2 GPU/node (catalogue) x 1 node x 10 h = 20 GPU-h" in msg
    assert "'resnet': modelarts.vm.gpu.8v100 4 GPU/node (catalogue) x 2 nodes x 12 h = 96 GPU-h" in msg
    assert "assumed" not in msg.split("\n", 2)[2]


def test_budget_treats_an_unknown_catalogue_figure_as_missing() -> None:
    fleet = [(ALAYA_JOB, "llama", alaya_job(gpus_per_node=UNKNOWN_NUMBER_VALUE))]
    [msg] = run(v.GPU_HOURS_BUDGET, stack(fleet, {"maxGpuHours": 100}))
    assert "PRD-TRAIN-1 8 GPU/node (gpusPerProduct) x 2 nodes x 24 h = 384 GPU-h" in msg


def test_budget_notes_jobs_unknown_during_preview() -> None:
    fleet = [(ALAYA_JOB, "llama", alaya_job()),
             (ALAYA_JOB, "sized-later", alaya_job(worker_count=UNKNOWN_NUMBER_VALUE))]
    [msg] = run(v.GPU_HOURS_BUDGET, stack(fleet, {"maxGpuHours": 100}))
    assert ("not counted (unknown during preview): alaya:TrainingJob 'sized-later' "
            "(number value at .worker_count") in msg
    assert run(v.GPU_HOURS_BUDGET, stack(fleet)) == []


def test_validators_do_not_mutate_schema_defaults() -> None:
    before = copy.deepcopy(v.BUDGET_SCHEMA.properties)
    run(v.GPU_HOURS_BUDGET, stack(_fleet(), {"gpusPerProduct": {"X": 1}}))
    assert v.BUDGET_SCHEMA.properties == before


# ----- every form: dynamic types and the plugin's types ------------------------------------------------

SCHEMA = json.loads((Path(__file__).resolve().parents[3] / "schema.json").read_text())
KINDS = tuple(res.kind for res in registry.RESOURCES)


def plugin(kind_token: str) -> str:
    """The plugin's token of the kind a dynamic token names."""
    return r.token(r.kind(kind_token), r.PLUGIN)


def test_both_tokens_of_every_resource_are_ours() -> None:
    assert r.token(registry.ALAYA_JOB.kind, r.DYNAMIC) == "pulumi-python:dynamic/alaya:TrainingJob"
    assert r.token(registry.ALAYA_JOB.kind, r.PLUGIN) == "mltrain:alaya:TrainingJob"
    # The plugin's tokens are schema.json's (what YAML and the generated SDKs declare), every one of them.
    assert {r.token(k, r.PLUGIN) for k in KINDS} == set(SCHEMA["resources"])
    assert {t for t, f in r.registry().items() if f.form == r.PLUGIN} == set(SCHEMA["resources"])
    for kind in KINDS:
        dynamic, native = r.token(kind, r.DYNAMIC), r.token(kind, r.PLUGIN)
        assert r.kind(dynamic) == r.kind(native) == kind
        assert r.label(native, "x") == r.label(dynamic, "x") == f"{kind} 'x'"
    for other in ("pulumi:providers:mltrain", "mltrain:index:Nothing", "pulumi-python:dynamic/other:Thing"):
        assert r.ours(other, "x", {}) is None, other


def test_schema_property_names_are_the_camel_case_spec_field_names() -> None:
    """What the plugin's inputs are called as the pack sees them: schema.json's property names, the spec
    models' field names in camelCase (`spec.property_name`), nested types too; `Fields` reads both."""
    assert property_name("storage_mounts") == "storageMounts" and property_name("image") == "image"
    for token, form in r.registry().items():
        if form.form != r.PLUGIN:
            continue
        names = [property_name(f) for f in form.model.model_fields]
        assert list(SCHEMA["resources"][token]["inputProperties"]) == names, token
        for field in form.model.model_fields:
            assert property_name(field) in r.spellings(form.model, field)[:2], (token, field)
            model = r.nested(form.model, field)
            if model is not None:
                ref = SCHEMA["resources"][token]["inputProperties"][property_name(field)]
                ref = ref.get("items", ref).get("$ref", "")
                assert ref.startswith("#/types/"), (token, field, ref)
                assert list(SCHEMA["types"][ref.removeprefix("#/types/")]["properties"]) == \
                    [property_name(f) for f in model.model_fields], (token, field)


def test_fields_read_every_spelling_the_spec_accepts() -> None:
    job_model = r.registry()[ALAYA_JOB].model
    mount_model = r.nested(job_model, "storage_mounts")
    assert mount_model is not None and mount_model.__name__ == "NasMount"
    assert r.spellings(mount_model, "read_only") == ("read_only", "readOnly", "onlyRead")
    assert r.spellings(job_model, "worker_count")[0] == "worker_count"  # the name first, then the wire alias
    assert r.nested(job_model, "env") is None
    wire = {"storageId": STORAGE, "storageType": "nas-capacity", "fileDirectory": "d", "mountPath": "/x",
            "onlyRead": False}
    job = r.ours(plugin(ALAYA_JOB), "j", _props(alaya_job(storage_mounts=[wire])))
    assert job is not None and job.form == r.PLUGIN
    [(_, mount)] = r.items(r.get(job.props, "storage_mounts"))
    assert (r.get(mount, "read_only"), r.get(mount, "mount_path"), r.get(mount, "file_directory")) == (False, "/x", "d")
    assert r.get(mount, "nothing") is None


def _violating(kind: str) -> dict[str, Any]:
    """Checked inputs that break every rule that applies to `kind`."""
    plain = {"HF_TOKEN": "hf_" + "a1B2" * 9, "DB_PASSWORD": "hunter2hunter2"}
    if kind == registry.ALAYA_JOB.kind:
        mount = {"storage_id": STORAGE, "storage_type": "nas-capacity", "file_directory": "d", "mount_path": "/data",
                 "read_only": False}
        return alaya_job(image="docker.io/library/pytorch:latest", worker_count=64.0, env=plain,
                         storage_mounts=[mount], timeout_hours=None, enable_timeout_cancel=False, description="",
                         enable_auto_retry=False, max_retry_count=None)
    if kind == registry.MODELARTS_JOB.kind:
        return modelarts_job(image_url="docker.io/someone/trainer:latest", flavor_id="modelarts.vm.gpu.huge",
                             node_count=32.0, environments=plain, auto_stop_hours=None, log_export_path=None,
                             description=None, gpu_count=256.0, pool_id="pool-1", preemptible=True)
    if kind == registry.ALAYA_MOUNT.kind:
        return storage_mount(read_only=False)
    return {"name": "algo", "image_url": "docker.io/someone/algo:1"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("names", ["schema", "fields"])
def test_plugin_resources_get_the_same_violations_and_messages(kind: str, names: str) -> None:
    """The plugin's properties by schema.json's names (`workerCount`, nested `mountPath` too) and by
    the field names (states the plugin wrote before 0.2) get the dynamic form's messages."""
    props = _violating(kind)
    plugin_props = props
    if names == "schema":
        handler = registry.resource(r.token(kind, r.PLUGIN)).calls()  # type: ignore[union-attr]
        plugin_props = to_property_names(props, handler.spec_type, handler.output_type)
        multi_word = [k for k in props if "_" in k]
        assert multi_word and not any("_" in k for k in plugin_props), plugin_props
    found = {}
    for form, given in ((r.DYNAMIC, props), (r.PLUGIN, plugin_props)):
        found[form] = {p.name: run(p, resource(r.token(kind, form), given, name="rogue")) for p in RESOURCE_POLICIES}
    assert found[r.PLUGIN] == found[r.DYNAMIC]
    reported = [m for messages in found[r.PLUGIN].values() for m in messages]
    assert reported and all(m.startswith(f"{kind} 'rogue': ") for m in reported), reported
    expected = {registry.ALAYA_JOB.kind: 7, registry.MODELARTS_JOB.kind: 10, registry.ALAYA_MOUNT.kind: 1,
                registry.MODELARTS_ALGORITHM.kind: 2}[kind]
    assert sum(1 for messages in found[r.PLUGIN].values() if messages) == expected, found[r.PLUGIN]


def test_budget_counts_plugin_and_dynamic_jobs_alike() -> None:
    """Each job alone fits 500 GPU-hours; the two forms together do not."""
    fleet = [(ALAYA_JOB, "dynamic", alaya_job()), (plugin(ALAYA_JOB), "native", alaya_job()),
             (plugin(MODELARTS_JOB), "native-resnet", modelarts_job(node_count=1.0))]
    config = {"maxGpuHours": 500.0}
    for job in fleet:
        assert run(v.GPU_HOURS_BUDGET, stack([job], config)) == [], job[1]
    [msg] = run(v.GPU_HOURS_BUDGET, stack(fleet, config))
    assert msg.startswith("864 GPU-hours exceed the budget of 500 GPU-hours (maxGpuHours)"), msg
    for label in ("alaya:TrainingJob 'dynamic'", "alaya:TrainingJob 'native'", "modelarts:TrainingJob 'native-resnet'"):
        assert f"\n  {label}: " in msg, label


def test_plugin_modelarts_job_is_bounded_by_the_engines_custom_timeout() -> None:
    """The plugin takes customTimeouts create as the deadline when `timeouts.create` is unset; the dynamic
    form's program copies it into `timeouts`. Either way the pack reads the same limit and message."""
    no_stop = modelarts_job(auto_stop_hours=None)
    dynamic = resource(MODELARTS_JOB, dict(no_stop, timeouts={"create": 1800.0}), name="mass")
    native = resource(plugin(MODELARTS_JOB), no_stop, name="mass", opts=_opts(create_seconds=1800))
    [msg] = run(v.TRAINING_JOB_TIMEOUT, native)
    assert run(v.TRAINING_JOB_TIMEOUT, dynamic) == [msg]
    assert "(timeouts.create = 1800 s) does not bound the job with wait_for='accepted'" in msg
    completes = dict(no_stop, wait_for="completed")
    assert run(v.TRAINING_JOB_TIMEOUT, resource(plugin(MODELARTS_JOB), completes, opts=_opts(1800))) == []
    # The declared timeouts.create wins over the engine's, as in the plugin.
    declared = dict(completes, timeouts={"create": 7200.0})
    [msg] = run(v.TRAINING_JOB_TIMEOUT, resource(plugin(MODELARTS_JOB), declared, {"maxTimeoutHours": 1},
                                                 opts=_opts(1800)))
    assert "timeouts.create = 2 h exceeds the maximum of 1 h" in msg
    # A dynamic job's options are never read: its program already applied them (or `timeouts` overrode them).
    [msg] = run(v.TRAINING_JOB_TIMEOUT, resource(MODELARTS_JOB, completes, opts=_opts(1800)))
    assert "neither auto_stop_hours nor a custom timeout" in msg
    [msg] = run(v.GPU_HOURS_BUDGET, stack([(plugin(MODELARTS_JOB), "mass", completes)], {"maxGpuHours": 0.0}))
    assert "modelarts:TrainingJob 'mass': modelarts.vm.gpu.8v100 8 GPU/node (gpusPerFlavor) x 2 nodes x no timeout" \
        in msg
