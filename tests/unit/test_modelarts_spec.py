"""ModelArts specs: validation, nested wire bodies (seed 002 shapes), diff, and reading back."""

from __future__ import annotations

import copy
from typing import Any

from pulumi.output import Unknown

from pulumi_mltrain import spec as specs
from pulumi_mltrain.alaya.training_job import TrainingJobSpec as AlayaSpec
from pulumi_mltrain.modelarts.algorithm import AlgorithmSpec
from pulumi_mltrain.modelarts.models import DataInput
from pulumi_mltrain.modelarts.training_job import TrainingJobSpec

ROOT = "/cnnorth4-job-test-v2/pytorch/fast_example"
PYTORCH = ("PyTorch", "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64")
ALGORITHM_ID = "01c399ae-8593-4ef5-9e4d-085950aacde1"

# Seed 002 step 5: the create-training-job request body, verbatim.
SEED_JOB_BODY = {
    "kind": "job",
    "metadata": {"name": "test-pytorch-cpu01", "description": "test pytorch work cpu in mode gloo"},
    "algorithm": {
        "id": ALGORITHM_ID,
        "parameters": [{"name": "dist", "value": "False"}, {"name": "world_size", "value": "1"}],
        "inputs": [{"name": "data_url", "remote": {"obs": {"obs_url": f"{ROOT}/data/"}}}],
        "outputs": [{"name": "train_url", "remote": {"obs": {"obs_url": f"{ROOT}/outputs/"}}}],
    },
    "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1},
             "log_export_path": {"obs_url": f"{ROOT}/log/"}},
}

# The same job as a user declares it (obs:// spelling, numbers and booleans as Pulumi sends them).
JOB: dict[str, Any] = {
    "name": "test-pytorch-cpu01",
    "description": "test pytorch work cpu in mode gloo",
    "algorithm_id": ALGORITHM_ID,
    "parameters": [{"name": "dist", "value": False}, {"name": "world_size", "value": 1.0}],
    "inputs": [{"name": "data_url", "obs_url": f"obs:/{ROOT}/data/"}],
    "outputs": [{"name": "train_url", "obs_url": f"{ROOT}/outputs/"}],
    "flavor_id": "modelarts.vm.cpu.8u",
    "log_export_path": f"obs:/{ROOT}/log/",
}

# Seed 002 step 4: the create-algorithm request body, verbatim.
SEED_ALGORITHM_BODY = {
    "metadata": {"name": "test-pytorch-cpu", "description": "test pytorch job in cpu in mode gloo"},
    "job_config": {
        "boot_file": f"{ROOT}/code/cpu/test-pytorch.py",
        "code_dir": f"{ROOT}/code/cpu/",
        "engine": {"engine_name": PYTORCH[0], "engine_version": PYTORCH[1]},
        "inputs": [{"name": "data_url", "description": "数据来源1"}],
        "outputs": [{"name": "train_url", "description": "输出数据1"}],
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

ALGORITHM: dict[str, Any] = {
    "name": "test-pytorch-cpu",
    "description": "test pytorch job in cpu in mode gloo",
    "code_dir": f"{ROOT}/code/cpu/",
    "boot_file": f"{ROOT}/code/cpu/test-pytorch.py",
    "engine_name": PYTORCH[0],
    "engine_version": PYTORCH[1],
    "inputs": [{"name": "data_url", "description": "数据来源1"}],
    "outputs": [{"name": "train_url", "description": "输出数据1"}],
    "parameters": copy.deepcopy(SEED_ALGORITHM_BODY["job_config"]["parameters"]),  # type: ignore[index]
}


def job(**changes: Any) -> TrainingJobSpec:
    spec, found = specs.validate(TrainingJobSpec, {**JOB, **changes})
    assert found == [] and isinstance(spec, TrainingJobSpec), found
    return spec


def job_failures(**changes: Any) -> dict[str, str]:
    data = {k: v for k, v in {**JOB, **changes}.items() if v is not None}
    _, found = specs.validate(TrainingJobSpec, data)
    return dict(found)


# ----- wire bodies -------------------------------------------------------------------------------
def test_job_wire_body_is_the_seed_request() -> None:
    assert job().wire() == SEED_JOB_BODY


def test_algorithm_wire_body_is_the_seed_request() -> None:
    spec, found = specs.validate(AlgorithmSpec, ALGORITHM)
    assert found == [] and spec is not None
    assert spec.wire() == SEED_ALGORITHM_BODY


def test_optional_job_fields_land_in_their_nested_places() -> None:
    body = job(node_count=2.0, pool_id="pool-1", auto_stop_hours=3, workspace_id="ws-1",
               environments={"NCCL_DEBUG": "WARN"}, wait_for="completed", adopt_id=None).wire()
    assert body["spec"]["resource"] == {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 2, "pool_id": "pool-1"}
    assert body["spec"]["auto_stop"] == {"duration": 3, "time_unit": "HOURS"}
    assert body["metadata"]["workspace_id"] == "ws-1"
    assert body["algorithm"]["environments"] == {"NCCL_DEBUG": "WARN"}
    assert "wait_for" not in str(body) and "timeouts" not in body, "local fields never reach the wire"


def test_inline_code_job_body() -> None:
    body = job(algorithm_id=None, code_dir="obs://b/code/", boot_file="obs://b/code/train.py",
               engine_name=PYTORCH[0], engine_version=PYTORCH[1], command=None).wire()["algorithm"]
    assert body["code_dir"] == "/b/code/" and body["boot_file"] == "/b/code/train.py"
    assert body["engine"] == {"engine_name": PYTORCH[0], "engine_version": PYTORCH[1]}
    assert "id" not in body


def test_props_are_python_names_with_normalised_values() -> None:
    props = job().props()
    assert props["inputs"] == [{"name": "data_url", "obs_url": f"{ROOT}/data/"}]
    assert props["parameters"] == [{"name": "dist", "value": "False"}, {"name": "world_size", "value": "1"}]
    assert props["log_export_path"] == f"{ROOT}/log/"
    assert props["node_count"] == 1 and props["wait_for"] == "accepted"


def test_alaya_bodies_stay_flat() -> None:
    spec, found = specs.validate(AlayaSpec, {"name": "a", "product_code": "P", "worker_count": 2, "image": "i",
                                             "training_framework": "PyTorch", "description": "d"})
    assert found == [] and spec is not None
    body = spec.wire()
    assert body["trainingFramwork"] == "pytorch" and body["desc"] == "d" and body["workerCount"] == 2
    assert all(("." not in key and not isinstance(v, dict)) or key == "env" for key, v in body.items())


# ----- validation --------------------------------------------------------------------------------
def test_exactly_one_of_algorithm_or_inline_code() -> None:
    assert "code_dir" in job_failures(code_dir="/b/c/", boot_file="/b/c/t.py")
    assert "cannot be combined with algorithm_id" in job_failures(engine_id="x")["engine_id"]
    assert "algorithm_id" in job_failures(algorithm_id=None)


def test_inline_code_rules() -> None:
    inline = {"algorithm_id": None, "code_dir": "/b/code/", "boot_file": "/b/code/train.py",
              "engine_name": PYTORCH[0], "engine_version": PYTORCH[1]}
    assert job_failures(**inline) == {}
    assert job_failures(**{**inline, "boot_file": None}) == {"boot_file": "is required with code_dir"}
    assert "must be inside code_dir" in job_failures(**{**inline, "boot_file": "/b/other/train.py"})["boot_file"]
    assert "engine_version" in job_failures(**{**inline, "engine_version": None})
    both = job_failures(**{**inline, "image_url": "swr/img:1"})
    assert "only one engine form" in both["image_url"]
    custom = {"algorithm_id": None, "image_url": "swr.cn-north-4.myhuaweicloud.com/me/train:1"}
    assert job_failures(**custom) == {"command": "is required with a custom image_url when there is no code_dir"}
    assert job_failures(**custom, command="python /code/train.py") == {}


def test_obs_locations_and_channel_names() -> None:
    assert "OBS location" in job_failures(log_export_path="s3://bucket/log/")["log_export_path"]
    assert "bucket" in job_failures(inputs=[{"name": "d", "obs_url": "obs://"}])["inputs[0].obs_url"]
    dup = job_failures(outputs=[{"name": "data_url", "obs_url": "/b/o/"}])
    assert dup == {"outputs[0].name": "data_url is already used by inputs[0]"}
    assert "local_dir" in str(job_failures(inputs=[{"name": "d", "obs_url": "/b/d/", "local_dir": "rel"}]))
    assert "inputs[0].bucket" in job_failures(inputs=[{"name": "d", "obs_url": "/b/", "bucket": "x"}])


def test_environments_limits() -> None:
    many = {f"VAR_{i}": "x" for i in range(101)}
    assert "at most 100" in job_failures(environments=many)["environments"]
    assert "environments.1BAD" in job_failures(environments={"1BAD": "x"})


def test_scalar_limits_and_typos() -> None:
    found = job_failures(name="bad name!", node_count=0, wait_for="finished", flavour_id="x")
    assert set(found) == {"name", "node_count", "wait_for", "flavour_id"}
    assert "check the spelling" in found["flavour_id"]
    assert "description" in job_failures(description="x" * 257)


def test_unknowns_at_preview_are_not_errors() -> None:
    spec, found = specs.validate(TrainingJobSpec, {**JOB, "algorithm_id": Unknown()})
    assert spec is None and found == []


def test_algorithm_rules() -> None:
    def failures(**changes: Any) -> dict[str, str]:
        data = {k: v for k, v in {**ALGORITHM, **changes}.items() if v is not None}
        return dict(specs.validate(AlgorithmSpec, data)[1])

    assert failures() == {}
    assert "parameters[1].name" in failures(parameters=[{"name": "a"}, {"name": "a"}])
    assert "engine_id" in failures(engine_name=None, engine_version=None)
    reqs = [{"key": "flavor_type", "values": ["GPU"]}, {"key": "flavor_type", "values": ["CPU"]}]
    assert "resource_requirements[1].key" in failures(resource_requirements=reqs)


# ----- diff --------------------------------------------------------------------------------------
def test_only_description_changes_in_place() -> None:
    olds = job().props()
    assert specs.diff(TrainingJobSpec, olds, job(description="new").props()) == (["description"], [])
    changed, replaces = specs.diff(TrainingJobSpec, olds, job(flavor_id="modelarts.vm.gpu.v100").props())
    assert changed == replaces == ["flavor_id"]
    changed, replaces = specs.diff(TrainingJobSpec, olds, job(wait_for="completed").props())
    assert changed == ["wait_for"] and replaces == []
    outputs = {**olds, "job_id": "j", "phase": "Running"}
    assert specs.diff(TrainingJobSpec, outputs, job().props()) == ([], [])
    changed, replaces = specs.diff(TrainingJobSpec, olds, job(inputs=[{"name": "x", "obs_url": "/b/x/"}]).props())
    assert replaces == ["inputs"]


def test_algorithm_changes_in_place_except_name() -> None:
    spec, _ = specs.validate(AlgorithmSpec, ALGORITHM)
    assert spec is not None
    olds = spec.props()
    new, _ = specs.validate(AlgorithmSpec, {**ALGORITHM, "parameters": [], "command": "x"})
    assert new is not None
    changed, replaces = specs.diff(AlgorithmSpec, olds, new.props())
    assert set(changed) == {"parameters", "command"} and replaces == []
    renamed, _ = specs.validate(AlgorithmSpec, {**ALGORITHM, "name": "other"})
    assert renamed is not None
    assert specs.diff(AlgorithmSpec, olds, renamed.props())[1] == ["name"]


def test_algorithm_put_sends_empty_lists_and_clears_dropped_strings() -> None:
    old, _ = specs.validate(AlgorithmSpec, {**ALGORITHM, "command": "bash run.sh"})
    new, _ = specs.validate(AlgorithmSpec, {"name": "test-pytorch-cpu", "code_dir": "/b/c/",
                                            "boot_file": "/b/c/t.py", "engine_id": "e1"})
    assert isinstance(new, AlgorithmSpec)
    body = new.put_body(old)  # type: ignore[arg-type]
    config = body["job_config"]
    assert config["parameters"] == [] and config["inputs"] == [] and config["outputs"] == []
    assert body["resource_requirements"] == []
    assert config["command"] == "" and body["metadata"]["description"] == ""
    assert config["engine"] == {"engine_id": "e1"}


# ----- reading the platform's answer back ---------------------------------------------------------
def seed_response() -> dict[str, Any]:
    """Seed 002 step 5's answer, trimmed: the platform completes channels, parameters and the engine."""
    return {
        "kind": "job",
        "metadata": {"id": "66ff6991-fd66-40b6-8101-0829a46d3731", "name": "test-pytorch-cpu01",
                     "description": "test pytorch work cpu in mode gloo", "create_time": 1641892642625,
                     "workspace_id": "0"},
        "status": {"phase": "Creating", "secondary_phase": "Creating", "duration": 0, "tasks": ["worker-0"]},
        "algorithm": {
            "id": ALGORITHM_ID, "name": "test-pytorch-cpu", "code_dir": f"{ROOT}/code/cpu/",
            "boot_file": f"{ROOT}/code/cpu/test-pytorch.py",
            "parameters": [{"name": "dist", "description": "", "value": "False", "constraint": {"type": "Boolean"}},
                           {"name": "world_size", "value": "1"}, {"name": "extra_default", "value": "7"}],
            "inputs": [{"name": "data_url", "description": "数据来源1",
                        "local_dir": "/home/ma-user/modelarts/inputs/data_url_0",
                        "remote": {"obs": {"obs_url": f"{ROOT}/data/"}}}],
            "outputs": [{"name": "train_url", "local_dir": "/home/ma-user/modelarts/outputs/train_url_0",
                         "remote": {"obs": {"obs_url": f"{ROOT}/outputs/"}}, "mode": "upload_periodically",
                         "period": 30}],
            "engine": {"engine_id": PYTORCH[1], "engine_name": PYTORCH[0], "engine_version": PYTORCH[1]},
            "environments": {"TOKEN": "platform-copy"},
        },
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "flavor_name": "Computing CPU(8U) instance",
                              "node_count": 1}, "log_export_path": {"obs_url": f"{ROOT}/log/"}, "is_hosted_log": True},
    }


def test_from_wire_round_trip_matches_the_declaration() -> None:
    declared = job()
    remote = specs.from_wire(TrainingJobSpec, seed_response(), declared)
    assert isinstance(remote, TrainingJobSpec)
    assert remote.inputs == [DataInput(name="data_url", obs_url=f"{ROOT}/data/",
                                       local_dir="/home/ma-user/modelarts/inputs/data_url_0")]
    assert remote.flavor_id == "modelarts.vm.cpu.8u" and remote.workspace_id == "0"
    assert remote.log_export_path == f"{ROOT}/log/"
    assert specs.differences(declared, remote) == [], "platform-filled values are not differences"
    # A body built from what was read back is the seed request again (plus what the platform filled in).
    again = remote.wire()
    assert again["spec"]["resource"] == SEED_JOB_BODY["spec"]["resource"]  # type: ignore[index]
    assert again["algorithm"]["inputs"][0]["remote"] == {"obs": {"obs_url": f"{ROOT}/data/"}}


def test_from_wire_reports_real_differences_and_hides_secrets() -> None:
    answer = seed_response()
    answer["spec"]["resource"]["flavor_id"] = "modelarts.vm.gpu.v100"
    answer["algorithm"]["parameters"][1]["value"] = "4"
    declared = job(environments={"TOKEN": "my-secret-token"})
    found = specs.differing(declared, specs.from_wire(TrainingJobSpec, answer, declared))
    assert set(found) == {"flavor_id", "parameters", "environments"}
    assert "my-secret-token" not in found["environments"] and "platform-copy" not in found["environments"]
    assert "modelarts.vm.gpu.v100" in found["flavor_id"]


def test_from_wire_of_an_algorithm() -> None:
    spec, _ = specs.validate(AlgorithmSpec, ALGORITHM)
    assert spec is not None
    answer = copy.deepcopy(SEED_ALGORITHM_BODY)
    answer["metadata"].update(id="01c3", create_time=1, workspace_id="0")  # type: ignore[attr-defined]
    answer["job_config"]["engine"].update(engine_id=PYTORCH[1], image_info={})  # type: ignore[index]
    answer["job_config"]["code_tree"] = {"name": "cpu/"}  # type: ignore[index]
    assert specs.differences(spec, specs.from_wire(AlgorithmSpec, answer, spec)) == []
    answer["job_config"]["outputs"] = []  # type: ignore[index]
    assert [d.split(":")[0] for d in specs.differences(spec, specs.from_wire(AlgorithmSpec, answer, spec))] == \
        ["outputs"]


def test_imported_copies_are_declarations() -> None:
    """`pulumi import` writes a read-back as code: ModelArts reports an engine in three forms and a job's
    algorithm code beside its ID, which a declaration may not combine; `as_declared` keeps one form."""
    blank_job = TrainingJobSpec.model_construct(**dict.fromkeys(TrainingJobSpec.model_fields))
    read_job = specs.from_wire(TrainingJobSpec, seed_response(), blank_job)
    assert read_job is not None and read_job.cross_check(), "the platform's copy combines the forms"
    declared_job = read_job.as_declared()
    assert declared_job.cross_check() == [] and declared_job.algorithm_id == ALGORITHM_ID
    assert (declared_job.code_dir, declared_job.engine_id, declared_job.engine_name) == (None, None, None)
    assert specs.differences(declared_job, read_job) == [], "the declaration still covers the copy"

    answer = copy.deepcopy(SEED_ALGORITHM_BODY)
    answer["metadata"].update(id="01c3", workspace_id="0")  # type: ignore[attr-defined]
    answer["job_config"]["engine"].update(engine_id=PYTORCH[1])  # type: ignore[index]
    blank = AlgorithmSpec.model_construct(**dict.fromkeys(AlgorithmSpec.model_fields))
    read = specs.from_wire(AlgorithmSpec, answer, blank)
    assert read is not None and read.cross_check(), "engine_id beside engine_name + engine_version"
    declared = read.as_declared()
    assert declared.cross_check() == []
    assert (declared.engine_id, declared.engine_name, declared.engine_version) == (None, *PYTORCH)
    assert specs.differences(declared, read) == []
