"""Upgrades never re-run a job: states written by an earlier release (tests/engine/upgrade/baselines/<release>,
made by record_baseline.py at that release's commit) opened by the current code.

For each stack of each baseline: the emulator is restored from the release's stored objects, the
exported state is imported into a fresh stack of the same program (the current one), and

1. `pulumi preview` (no refresh) plans only `same` steps, and the documented state migrations: a plugin
   resource whose 0.1 state holds field names (snake_case) is an update with no property diff, which
   renames its state and calls nothing (its outputs must reach the resources built from them under the
   schema's camelCase names: left `same`, a job reading an algorithm's `algorithmId` would find it
   missing and be replaced); and a kept failure (`on_failure="keep"`: a job recorded as failed, which
   0.1 replaced on the next `up`, as the release's own preview planned) is now a held failure, never
   started again unasked: `same` in the dynamic form, and in the plugin's an update with no property
   diff, which the engine plans for a partially created resource and which starts nothing. The
   preview calls the platform only for what the release's own preview called: the catalogue reads
   (products, flavors, engines, an IAM token) that checked a kept failure's replacement then; never a
   job, task, algorithm or mount.
2. The 0.1 dynamic providers unpickle: every `__provider` of the state loads with the current code
   (in this process, and in the engine's dynamic provider during the refresh, whose Read uses the
   state's own pickle), into the current provider classes.
3. `pulumi refresh` keeps every resource and ID (nothing created or deleted); afterwards the plugin's
   resources hold only schema (camelCase) names, inputs and outputs alike, and a second preview
   plans as the first.

The state names the emulator's address of the recording (provider config, each resource's account
identity); the test's emulator listens elsewhere, so that one string is replaced before the import:
the same account at another port, not a change of account (which would replace, by design).
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dill
import pytest
from pulumi.dynamic import ResourceProvider

from mltrain_emulator import EmulatorAdmin, EmulatorHandle, EmulatorServer
from pulumi_mltrain.ownership import FAILED_KEY
from support import stacks
from support.pulumi_cli import ROOT, Stack

sys.path.insert(0, str(ROOT / "tests" / "engine" / "plugin"))
import plugin_support as ps

pytestmark = [pytest.mark.engine, pytest.mark.slow]

BASELINES = Path(__file__).parent / "baselines"
CASES = [(release.name, name) for release in sorted(BASELINES.iterdir()) if (release / "manifest.json").exists()
         for name in json.loads((release / "manifest.json").read_text())["stacks"]]
# What checking a replacement reads at preview: catalogues and an IAM token, never an object of a stack.
CATALOGUE_CALLS = {"GET /v1/product/list-for-training-task", "GET /v1/nasStorage/instance/tenant/page",
                   "GET /v2/{project_id}/training-job-flavors", "GET /v2/{project_id}/training-job-engines",
                   "POST /v3/auth/tokens"}
WIRING = {"alaya": stacks.alaya_stack, "modelarts": stacks.modelarts_stack, "both": stacks.both_platforms_stack}
PATH_KEYS = ("example",)  # config values recorded relative to the repository (record_baseline.py)


# Test folders a release's manifest names by their path at that release, and where they are now.
MOVED = {"tests/plugin/": "tests/engine/plugin/"}


def moved(program: str) -> str:
    """`program` (a path in a release's manifest) where it is now."""
    for old, new in MOVED.items():
        if program.startswith(old):
            return new + program.removeprefix(old)
    return program


@pytest.fixture
def restored(case: tuple[str, str], tmp_path: Path) -> Iterator[EmulatorHandle]:
    """An emulator holding the release's stored objects (its state file, copied)."""
    release = case[0]
    state_file = tmp_path / "emulator" / "state.json"
    state_file.parent.mkdir()
    state_file.write_bytes((BASELINES / release / "emulator.json").read_bytes())
    with EmulatorServer(state_file=state_file) as server, EmulatorAdmin(server.url) as admin:
        admin.set_settings(modelarts_run_seconds=3e6)  # as recorded: the running jobs keep running
        yield EmulatorHandle(url=server.url, admin=admin)


def before_camel_case(release: str) -> bool:
    """Whether `release` wrote the plugin's states in the field names (0.1; camelCase since 0.2.0)."""
    return tuple(int(part) for part in release.split(".")[:2]) < (0, 2)


def resources(exported: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The state's resources by URN."""
    return {r["urn"]: r for r in exported["deployment"].get("resources", [])}


def name_of(urn: str) -> str:
    return urn.rsplit("::", 1)[1]


def kept_failures(exported: dict[str, Any]) -> set[str]:
    """Names of the resources recorded as kept failures (FAILED_KEY set in their outputs)."""
    return {name_of(urn) for urn, r in resources(exported).items() if (r.get("outputs") or {}).get(FAILED_KEY)}


def migration(step: dict[str, Any]) -> bool:
    """The plugin's rename of a 0.1 state: an update of a plugin resource with no property diff."""
    return step["op"] == "update" and step.get("type", str(step["urn"]).split("::")[-2]).startswith("mltrain:") \
        and not step.get("diffReasons") and not step.get("detailedDiff")


def plan_problem(plan: dict[str, Any], allowed_replaces: set[str], what: str) -> str | None:
    """What the plan does beyond `same` steps and the kept failures' replaces, with the engine's reasons."""
    changed = {name_of(s["urn"]): s["op"] for s in plan.get("steps", []) if s["op"] != "same"
               and not migration(s)}
    if changed == dict.fromkeys(allowed_replaces, "replace"):
        return None
    why = {name_of(s["urn"]): {k: s.get(k) for k in ("op", "replaceReasons", "detailedDiff")}
           for s in plan.get("steps", []) if s["op"] != "same" and name_of(s["urn"]) not in allowed_replaces}
    return (f"{what}: steps other than `same` beyond the kept failures' replaces {sorted(allowed_replaces)}: "
            f"{changed}\n{json.dumps(why, indent=1)[:4000]}")


def calls_during(admin: EmulatorAdmin, run: Any) -> tuple[Any, dict[str, int]]:
    before = admin.requests()["endpoints"]
    result = run()
    after = admin.requests()["endpoints"]
    return result, {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}


def assert_calls(calls: dict[str, int], release_calls: dict[str, int], kept: set[str], what: str) -> None:
    if not kept:
        assert calls == {}, f"{what}: the preview of an unchanged stack called the platform: {calls}"
        return
    assert set(calls) <= CATALOGUE_CALLS & set(release_calls), (
        f"{what}: calls beyond the catalogue reads the release's own preview made ({release_calls}): {calls}")


def import_state(stack: Stack, release: str, name: str, old_url: str, new_url: str) -> dict[str, Any]:
    """`pulumi stack import` of the baseline state (the recording's emulator address replaced)."""
    text = (BASELINES / release / f"{name}.json").read_text().replace(old_url, new_url)
    path = stack.home / "baseline.json"
    path.write_text(text)
    stack.run("stack", "import", "--file", str(path), "--stack", stack.name)
    return dict(json.loads(text))


@pytest.mark.parametrize("case", CASES, ids=[f"{release}-{name}" for release, name in CASES])
def test_a_release_state_previews_without_replace_update_or_platform_call(
        case: tuple[str, str], restored: EmulatorHandle, tmp_path: Path) -> None:
    release, name = case
    manifest = json.loads((BASELINES / release / "manifest.json").read_text())
    entry = manifest["stacks"][name]
    admin = restored.admin
    program = moved(entry["program"])
    stack = WIRING[entry["wiring"]](restored, tmp_path / "stack", ROOT / program)
    if program.startswith("tests/engine/plugin/"):
        ps.on_path(stack)
    config = {k: str(ROOT / v) if k in PATH_KEYS else v for k, v in entry["config"].items()}
    stack.set_config_all({k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()})
    baseline = import_state(stack, release, name, manifest["emulator_url"], restored.url)
    held = resources(baseline)
    kept = kept_failures(baseline)
    assert {n for n, op in entry["preview"]["changes"].items() if op == "replace"} == kept, \
        "the release's own preview replaced exactly the kept failures"

    # The objects the state points at are on the restored platform.
    state = admin.state()
    live = {t["id"] for t in state["alaya"]["tasks"]} | {j["metadata"]["id"] for j in state["modelarts"]["jobs"]} \
        | {a["metadata"]["id"] for a in state["modelarts"]["algorithms"]}
    jobs = {urn: r["id"] for urn, r in held.items() if r["type"].endswith((":TrainingJob", ":Algorithm"))}
    assert jobs and set(jobs.values()) <= live, "the restored emulator holds the state's jobs and algorithms"

    # 1. The preview: same steps only (a held failure replaces nothing), no call beyond the release's.
    plan, calls = calls_during(admin, stack.preview_json)
    # A plan problem is reported at the end, after the checks of the refresh (which do not depend on it).
    problems = [p for p in [plan_problem(plan, set(), f"{release} {name}: preview")] if p]
    # A held failure of the plugin is a partially created resource: the engine plans an update of it too.
    renamed = {name_of(s["urn"]) for s in plan.get("steps", []) if migration(s)} - kept
    if name == "plugin" and before_camel_case(release):
        assert renamed >= {"algo", "mdone", "mrun"} - kept, f"the 0.1 plugin states are renamed in place: {renamed}"
    else:
        assert not renamed, f"a state in the schema's names needs no rename: {renamed}"
    assert_calls(calls, entry["preview"]["platform_calls"], kept, f"{release} {name}")

    # 2. The release's pickled dynamic providers load into the current classes.
    pickles = {r["inputs"]["__provider"] for r in held.values() if "__provider" in (r.get("inputs") or {})}
    assert bool(pickles) == name.startswith("dynamic"), sorted(pickles)
    for blob in pickles:
        provider = dill.loads(base64.b64decode(blob))
        assert isinstance(provider, ResourceProvider), provider
        assert type(provider).__module__.startswith("pulumi_mltrain."), type(provider)

    # 3. A refresh keeps every resource and ID; the plugin's state moves to schema names.
    stack.refresh()
    after = resources(stack.export())
    assert {urn: r.get("id") for urn, r in after.items()} == {urn: r.get("id") for urn, r in held.items()}, \
        "refresh kept every resource and ID"
    for urn, record in after.items():
        if record["type"].startswith("mltrain:"):
            # python_names fails on a property the plugin left in the 0.1 (field name) spelling.
            ps.python_names(record)
            if name_of(urn) not in kept:
                assert record["outputs"] and "__mltrain_partial" not in record["outputs"], record
    if name == "plugin":
        migrated = [r for r in after.values() if r["type"].startswith("mltrain:")]
        assert any("trainingTaskId" in r["outputs"] for r in migrated), "the outputs are in schema names"
    plan, calls = calls_during(admin, stack.preview_json)
    problems += [p for p in [plan_problem(plan, set(), f"{release} {name}: preview after refresh")] if p]
    assert_calls(calls, entry["preview"]["platform_calls"], kept, f"{release} {name} after refresh")
    assert not problems, "\n".join(problems)
