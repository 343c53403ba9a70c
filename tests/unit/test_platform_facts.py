"""The facts each registry resource declares (`registry.RunFacts`, `image`, `env`, `ownership`) name what its
platform really has: fields of its spec, outputs of its output model, the states of its contract. The
facts are plain values so that the policy pack and the commands import no platform; this is where they
meet the platform's own declarations."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from pulumi_mltrain import registry
from pulumi_mltrain.alaya.wire import contract as alaya_contract
from pulumi_mltrain.modelarts.wire import contract as modelarts_contract
from pulumi_mltrain.training_jobs import JobCalls

# The states in which each platform's job still runs, as its contract names them.
CONTRACT_LIVE = {registry.ALAYA_JOB: alaya_contract.LIVE, registry.MODELARTS_JOB: modelarts_contract.TERMINABLE}


def test_every_training_job_is_one_of_the_runs() -> None:
    assert registry.TRAINING_JOBS == (registry.ALAYA_JOB, registry.MODELARTS_JOB)
    assert set(CONTRACT_LIVE) == set(registry.TRAINING_JOBS)


@pytest.mark.parametrize("entry", registry.TRAINING_JOBS, ids=lambda e: e.kind)
def test_run_facts_name_the_platform_s_fields_outputs_and_states(entry: registry.Resource) -> None:
    facts = entry.run
    assert facts is not None
    calls = entry.calls()
    inputs, outputs = calls.spec_type.model_fields, calls.output_type.model_fields
    assert calls.output_type.id_fields() == [facts.job_id]
    assert facts.state in outputs and facts.state in calls.output_type.present_fields()
    assert facts.live == CONTRACT_LIVE[entry]
    for field in (facts.timeout, facts.nodes, facts.node_type, facts.timeout_switch):
        assert field is None or field in inputs, field
    assert facts.price is None or facts.price in outputs
    # The shared training-job calls (training_jobs.py) read the same node inputs and states.
    assert issubclass(calls, JobCalls)
    assert (calls.node_type, calls.nodes) == (facts.node_type, facts.nodes)
    assert (calls.live_states if calls.occupied_states is None else calls.occupied_states) == facts.live
    # What mltrain-plan and the policies read of every job by the same name.
    assert {"gpus_per_node", "gpu_count", "run_reason"} <= set(outputs)


@pytest.mark.parametrize("entry", registry.RESOURCES, ids=lambda e: e.kind)
def test_image_env_and_ownership_of_every_resource(entry: registry.Resource) -> None:
    inputs = entry.calls().spec_type.model_fields
    assert entry.image is None or entry.image in inputs
    assert entry.env is None or entry.env in inputs
    text = entry.ownership_text()
    assert text and "{" not in text and "}" not in text


def test_the_ownership_prose_names_the_contract_s_marks() -> None:
    assert f"`{alaya_contract.OWNER_ENV}`" in registry.ALAYA_JOB.ownership_text()
    for entry in (registry.MODELARTS_JOB, registry.MODELARTS_ALGORITHM):
        text = entry.ownership_text()
        assert f"`{modelarts_contract.OWNER_STACK}`" in text and f"`{modelarts_contract.OWNER_URN}`" in text


def test_the_registry_imports_no_platform() -> None:
    """The policy pack and the program side import the registry: its facts load nothing of a platform."""
    code = ("import sys, pulumi_mltrain.registry as r; r.ALAYA_JOB.run; platforms = ('pulumi_mltrain.alaya', "
            "'pulumi_mltrain.modelarts'); print(sorted(m for m in sys.modules if m.startswith(platforms)))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]", found.stdout


# A provider process serving one platform, in each form: the dynamic provider's first call (the class its
# states pickle) and the plugin's handlers of that family. Neither loads the other platform's modules.
SERVE_ONE_FAMILY = """
import sys
from pulumi_mltrain import registry
from pulumi_mltrain.plugin.provider import MltrainPlugin
family, other = sys.argv[1], sys.argv[2]
plugin = MltrainPlugin()
for entry in registry.RESOURCES:
    if entry.family == family:
        provider = getattr(__import__(f"pulumi_mltrain.{family}._resources", fromlist=["_"]),
                           f"_{entry.name}Provider")()
        assert provider.handler.calls is entry.calls()
        plugin._handler(entry.token)
print(sorted(m for m in sys.modules if m.startswith(f"pulumi_mltrain.{other}")))
"""


@pytest.mark.parametrize(("family", "other"), [("alaya", "modelarts"), ("modelarts", "alaya")])
def test_a_process_serving_one_platform_loads_nothing_of_the_other(family: str, other: str) -> None:
    """Start-up CPU: every `pulumi` command starts a provider process, and a stack of one platform pays
    for that platform's modules (specs, answers, clients) alone."""
    found = subprocess.run([sys.executable, "-c", SERVE_ONE_FAMILY, family, other], capture_output=True,
                           text=True, timeout=120)
    assert found.returncode == 0, found.stderr[-3000:]
    assert found.stdout.strip() == "[]", found.stdout


ROOT = Path(__file__).resolve().parents[2]
# The code that serves every platform alike: it reads the registry, and names no platform itself.
READERS = sorted([*(ROOT / "provider" / "pulumi_mltrain" / "cli").glob("*.py"),
                  *(ROOT / "provider" / "mltrain_policies").glob("*.py"), ROOT / "tools" / "docs.py"])


def _docstrings(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


@pytest.mark.parametrize("path", READERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_commands_the_policy_pack_and_the_docs_name_no_platform(path: Path) -> None:
    """No import of a platform's modules and no type token of one in code (docstrings may give examples):
    what they read of a platform comes from the registry."""
    tree = ast.parse(path.read_text(), filename=str(path))
    families = tuple(registry.FAMILIES)
    platform_modules = tuple(f"pulumi_mltrain.{f}" for f in families)
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert [m for m in imported if m.startswith(platform_modules) or m.lstrip(".").startswith(families)] == []
    docstrings = _docstrings(tree)
    tokens = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
              and id(n) not in docstrings and n.value.startswith(tuple(f"{f}:" for f in families))]
    assert tokens == []
