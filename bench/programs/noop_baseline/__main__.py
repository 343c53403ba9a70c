"""Baseline program: `count` no-op dynamic resources with the same inputs as bench's Alaya jobs."""

import pulumi
from noop_provider import Noop

config = pulumi.Config()
count = config.require_int("count")
shards = config.get_int("shards") or 0
wait = config.get_float("wait") or 0  # seconds each create waits (scenario 3's floor)
providers = [pulumi.ProviderResource("pulumi-python", f"shard-{i}", {}) for i in range(shards)]

for i in range(count):
    opts = pulumi.ResourceOptions(provider=providers[i % shards]) if providers else None
    Noop(
        f"job-{i}",
        {
            "product_code": "PRD-TRAIN-2",
            "worker_count": 1,
            "image": "harbor.zetyun.cn/anc-public/general/pytorch:2.3.1-gpu",
            "training_framework": "pytorch",
            "start_command": "python3 train.py",
            **({"__wait": wait} if wait else {}),
        },
        opts=opts,
    )
pulumi.export("count", count)
