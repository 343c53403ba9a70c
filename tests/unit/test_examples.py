"""Every example is run by an engine test: the Python ones by tests/engine/test_examples_elsewhere.py,
examples/typescript and examples/go by tests/engine/plugin/test_sdk_examples.py."""

from __future__ import annotations

from support.pulumi_cli import ROOT

EXAMPLES = ROOT / "examples"


# The Python examples (the dynamic resources); examples/typescript and examples/go, on the plugin's SDKs in
# this repository, are tests/engine/plugin/test_sdk_examples.py's.
PYTHON = sorted(p.name for p in EXAMPLES.iterdir() if (p / "Pulumi.yaml").exists() and (p / "__main__.py").exists())


def test_every_example_is_run_by_an_engine_test() -> None:
    others = sorted(p.name for p in EXAMPLES.iterdir() if (p / "Pulumi.yaml").exists() and p.name not in PYTHON)
    assert others == ["go", "typescript"], others
