"""A PyTorch training job on Huawei Cloud ModelArts v2, the platform's "create a training job" flow.

Steps 2-3 pick a flavor and the PyTorch engine from the catalogues (read when the program runs),
step 4 creates the algorithm, step 5 the training job with an OBS input, an OBS output and a log
export path. Config (namespace of this project): `bucket`, `flavor`, `description`, `waitFor`.
"""

from typing import Literal, cast

import pulumi

from pulumi_mltrain import modelarts

config = pulumi.Config()
root = f"obs://{config.get('bucket') or 'cnnorth4-job-test-v2'}/pytorch/fast_example"

# Step 2: a CPU flavor (its max_num bounds node_count; the provider checks that at preview).
flavors = {f["flavor_id"]: f for f in modelarts.get_flavors()}
flavor_id = config.get("flavor") or "modelarts.vm.cpu.8u"
if flavor_id not in flavors:
    raise ValueError(f"flavor {flavor_id} is not offered; choose one of {', '.join(sorted(flavors))}")

# Step 3: the PyTorch engine, newest version first.
engine = max((e for e in modelarts.get_engines() if e["engine_name"] == "PyTorch"),
             key=lambda e: e["engine_version"])

# Step 4: the algorithm: code, engine, hyperparameters with defaults, and the channels it expects.
algorithm = modelarts.Algorithm(
    "test-pytorch-cpu",
    description="test pytorch job in cpu in mode gloo",
    code_dir=f"{root}/code/cpu/",
    boot_file=f"{root}/code/cpu/test-pytorch.py",
    engine_name=engine["engine_name"],
    engine_version=engine["engine_version"],
    parameters=[
        modelarts.AlgorithmParameter(name="dist", value="False",
                                     constraint=modelarts.ParameterConstraint(type="Boolean", editable=True)),
        modelarts.AlgorithmParameter(name="world_size", value="1",
                                     constraint=modelarts.ParameterConstraint(type="Integer", editable=True)),
    ],
    inputs=[modelarts.ChannelDeclaration(name="data_url", description="training data")],
    outputs=[modelarts.ChannelDeclaration(name="train_url", description="trained model")],
)

# Step 5: the training job. Only `description` changes in place; anything else replaces the job.
job = modelarts.TrainingJob(
    "test-pytorch-cpu01",
    description=config.get("description") or "test pytorch work cpu in mode gloo",
    algorithm_id=algorithm.algorithm_id,
    parameters=[modelarts.JobParameter(name="dist", value="False"),
                modelarts.JobParameter(name="world_size", value="1")],
    inputs=[modelarts.DataInput(name="data_url", obs_url=f"{root}/data/")],
    outputs=[modelarts.ObsChannel(name="train_url", obs_url=f"{root}/outputs/")],
    flavor_id=flavor_id,
    node_count=1,
    log_export_path=f"{root}/log/",
    # From config, so a plain str to the type checker; the provider checks the value at preview.
    wait_for=cast(Literal["accepted", "running", "completed"], config.get("waitFor") or "accepted"),
)

pulumi.export("algorithm_id", algorithm.algorithm_id)
pulumi.export("job_id", job.job_id)
pulumi.export("phase", job.phase)
