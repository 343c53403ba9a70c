"""Explicit accounts (`pulumi_mltrain.Provider`): which account, region and endpoint a resource lives in.

Program side: `account_props(resource_name, opts)` turns `opts.provider` (when it is an mltrain
Provider) into internal inputs and returns the options without it.
"""

from __future__ import annotations

from typing import Any

import pulumi


def account_props(resource_name: str, opts: pulumi.ResourceOptions | None) -> tuple[pulumi.ResourceOptions | None,
                                                                                    dict[str, Any]]:
    """(options to register with, internal inputs naming the account)."""
    return opts, {}
