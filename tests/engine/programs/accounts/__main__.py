"""Test program: one `pulumi_mltrain.Provider` per entry of `accounts` (JSON: name -> endpoint and key),
and `alaya.TrainingJob(name, **args)` per entry of `jobs` (JSON), each in the account its `account` names."""

import json

import pulumi

import pulumi_mltrain
from pulumi_mltrain import alaya

config = pulumi.Config()
accounts = {
    name: pulumi_mltrain.Provider(name, alaya_endpoint=a["endpoint"], alaya_api_key=a["key"],
                                  request_timeout=5, max_retries=3, ambiguity_grace=5,
                                  keep_runs=0)  # the test is about what each account keeps: no run records
    for name, a in json.loads(config.require("accounts")).items()
}
for name, args in json.loads(config.require("jobs")).items():
    account = accounts[args.pop("account")]
    job = alaya.TrainingJob(name, opts=pulumi.ResourceOptions(provider=account), **args)
    pulumi.export(f"{name}_id", job.id)
