"""Benchmark program: `count` Alaya NeW training jobs, optionally spread over `shards` provider processes.

Config: count (int), shards (int, default 0 = the default dynamic provider, one process).
"""

import pulumi

from pulumi_mltrain import alaya

config = pulumi.Config()
count = config.require_int("count")
shards = config.get_int("shards") or 0

# Each explicit `pulumi-python` provider resource is its own dynamic provider process, each with its
# own 4-thread gRPC pool: K shards keep up to 4*K calls in flight. An explicit provider is configured
# from its own inputs, not from the stack config, so the mltrain settings are passed on (the API key
# stays a secret).
mltrain = pulumi.Config("mltrain")
settings = {f"mltrain:{key}": mltrain.get(key) for key in ("alayaEndpoint", "requestTimeout", "maxRetries")}
settings["mltrain:alayaApiKey"] = mltrain.require_secret("alayaApiKey")
settings = {k: v for k, v in settings.items() if v is not None}
providers = [pulumi.ProviderResource("pulumi-python", f"shard-{i}", settings) for i in range(shards)]

for i in range(count):
    opts = pulumi.ResourceOptions(provider=providers[i % shards]) if providers else None
    alaya.TrainingJob(
        f"job-{i}",
        product_code="PRD-TRAIN-2",
        worker_count=1,
        image="harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
        training_framework="pytorch",
        start_command="python3 train.py",
        opts=opts,
    )
pulumi.export("count", count)
