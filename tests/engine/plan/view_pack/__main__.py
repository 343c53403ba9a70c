"""A pack of one advisory stack policy that appends what it is given of the training jobs (type, name,
URN, props without `__` keys; unknown values as "<unknown>") as one JSON line to $MLTRAIN_VIEW_FILE."""

import json
import os
from typing import Any

from pulumi_policy import EnforcementLevel, PolicyPack, StackValidationPolicy
from pulumi_policy.proxy import UnknownValueError

UNKNOWN = "<unknown>"


def plain(value: Any) -> Any:
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return value
    if hasattr(value, "keys"):
        out = {}
        for key in value:
            try:
                out[key] = plain(value[key])
            except UnknownValueError:
                out[key] = UNKNOWN
        return out
    out_list = []
    for i in range(len(value)):
        try:
            out_list.append(plain(value[i]))
        except UnknownValueError:
            out_list.append(UNKNOWN)
    return out_list


def write(args: Any, report: Any) -> None:
    rows = [{"type": r.resource_type, "name": r.name, "urn": r.urn,
             "props": {k: v for k, v in plain(r.props).items() if not k.startswith("__")}}
            for r in args.resources if r.resource_type.endswith(":TrainingJob")]
    with open(os.environ["MLTRAIN_VIEW_FILE"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(rows) + "\n")


PolicyPack(name="mltrain-stack-view", enforcement_level=EnforcementLevel.ADVISORY,
           policies=[StackValidationPolicy(name="write-view", description="Write the stack's view", validate=write)])
