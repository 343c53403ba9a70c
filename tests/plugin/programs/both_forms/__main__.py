"""Test program: each entry of `jobs` (JSON: name -> args) as a dynamic `<platform>.TrainingJob` named
`dyn-<name>` and as the plugin's `mltrain:<platform>:TrainingJob` named `plug-<name>`, in one stack.

`platform` is alaya or modelarts; `createTimeout` (e.g. "4s") is every resource's customTimeouts create.
"""

import json

import pulumi

from pulumi_mltrain import alaya, modelarts

config = pulumi.Config()
platform = config.require("platform")
jobs = json.loads(config.require("jobs"))
create = config.get("createTimeout")
opts = pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(create=create) if create else None)
dynamic = {"alaya": alaya.TrainingJob, "modelarts": modelarts.TrainingJob}[platform]

for name, args in jobs.items():
    dynamic(f"dyn-{name}", opts=opts, **args)
    pulumi.CustomResource(f"mltrain:{platform}:TrainingJob", f"plug-{name}", dict(args), opts)
