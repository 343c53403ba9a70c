"""Test program: the generated SDK's explicit `Provider` (settings from stack config, the key a
secret), one `alaya.TrainingJob` on it, whose arguments are the `job` config value (JSON), and the
product catalogue read through the same provider (an array-valued function)."""

import json

import pulumi
import pulumi_mltrain_native as mltrain
from pulumi_mltrain_native import alaya

config = pulumi.Config()
provider = mltrain.Provider(
    "emulator",
    alaya_endpoint=config.require("alayaEndpoint"),
    alaya_api_key=config.require_secret("alayaApiKey"),
    request_timeout=5,
    max_retries=3,
    ambiguity_grace=5,
)
job = alaya.TrainingJob(
    "job",
    opts=pulumi.ResourceOptions(provider=provider),
    **json.loads(config.require("job")),
)
pulumi.export("training_task_id", job.id)
pulumi.export("name", job.name)
pulumi.export("status", job.status)
products = alaya.get_products_output(opts=pulumi.InvokeOutputOptions(provider=provider))
pulumi.export("product_codes", products.apply(lambda items: [p["productCode"] for p in items]))
