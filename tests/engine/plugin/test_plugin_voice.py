"""What the plugin says reaches the user through the engine: the engine shows a native plugin's stderr
only once the plugin fails, so a note from a preview that succeeds (here: a catalogue check skipped
because the product catalogue does not answer) must come through the engine's Log, under its resource.
The plugin's own Check and the Log call are tests/inprocess/test_plugin_engine_log.py; this is the engine's view,
with the plugin started as the engine starts it (its server connects `progress` to the engine)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from plugin_support import alaya_job, output_of

from support.pulumi_cli import Stack

pytestmark = pytest.mark.engine

PRODUCTS = "/v1/product/list-for-training-task"


def test_a_skipped_catalogue_check_is_shown_under_its_resource(emulator: Any,
                                                               alaya_plugin_stack: Callable[..., Stack]) -> None:
    stack = alaya_plugin_stack([alaya_job()])
    stack.set_config("mltrain:maxRetries", "0")  # one refused call per catalogue, no backoff
    emulator.admin.set_faults([{"method": "GET", "path": PRODUCTS, "kind": "status", "status": 503}])
    output = output_of(stack.run("preview"))  # the ordinary display, with its Diagnostics
    assert "[mltrain] catalogue check skipped: " in output and "503 Service Unavailable" in output, output[-3000:]
    # The engine groups a resource's messages under a heading naming its type and name.
    heading = re.search(r"^\s*mltrain:alaya:TrainingJob \(job\):\s*$\n(?:^\s+.*$\n)*?"
                        r"^\s+\[mltrain\] catalogue check skipped: ", output, re.MULTILINE)
    assert heading, output[-3000:]
