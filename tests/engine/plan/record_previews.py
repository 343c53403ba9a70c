"""Records the previews that tests/unit/plan/test_plan.py counts, from real `pulumi preview --json` runs
against the emulator: `.venv/bin/python tests/engine/plan/record_previews.py` (a minute) rewrites previews/.

One stack of the both-forms program (tests/engine/plugin/programs/both_forms: each job as a dynamic `dyn-*` and
a plugin `plug-*` resource) with three Alaya NeW trials t1..t3 (PRD-TRAIN-2, 2 nodes: 8 GPUs, 12 h,
80/h) and two ModelArts jobs (1 GPU per node: m1 on 2 nodes with auto_stop_hours=6, m2 on one without
a timeout), each with a replacement_trigger. After `up` (the jobs stay live):

- first.json: the preview of the first `up` (every job created);
- sweep.json: t2's and m1's triggers changed (replaced, while running);
- update.json: t3's and m2's descriptions changed (in place);
- delete.json: t3 removed (a live job deleted);

each as `pulumi preview --json` wrote it, with the steps' states cut to type, inputs and outputs (without
the `__` keys) and without the diagnostics; and policy_<name>.json, what a stack policy is given of the
training jobs in the same preview (view_pack/).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent / "plugin")]

from plugin_support import both_forms, both_platforms_stack, modelarts_job_args  # noqa: E402

from mltrain_emulator import EmulatorAdmin, EmulatorHandle, EmulatorServer  # noqa: E402
from mltrain_emulator import defaults as d  # noqa: E402
from support import stacks  # noqa: E402

OUT = HERE.parents[1] / "unit" / "plan" / "previews"
STATE_KEYS = ("type", "inputs", "outputs")


def _state(state: dict[str, Any] | None) -> dict[str, Any] | None:
    if not state:
        return None
    cut = {k: state[k] for k in STATE_KEYS if k in state}
    for part in ("inputs", "outputs"):
        if part in cut:
            cut[part] = {k: v for k, v in cut[part].items() if not k.startswith("__")}
    return cut


def cut(preview: dict[str, Any]) -> dict[str, Any]:
    steps = []
    for step in preview["steps"]:
        kept: dict[str, Any] = {"op": step["op"], "urn": step["urn"]}
        for part in ("oldState", "newState"):
            if _state(step.get(part)):
                kept[part] = _state(step.get(part))
        steps.append(kept)
    return {"steps": steps, "changeSummary": preview.get("changeSummary", {})}


def record(stack: Any, name: str, view: Path) -> None:
    view.unlink(missing_ok=True)
    stack.env_extra["MLTRAIN_VIEW_FILE"] = str(view)
    result = stack.run("preview", "--json", "--policy-pack", str(HERE / "view_pack"))
    (OUT / f"{name}.json").write_text(json.dumps(cut(json.loads(result.stdout)), indent=1) + "\n")
    rows = [json.loads(line) for line in view.read_text().splitlines()]
    (OUT / f"policy_{name}.json").write_text(json.dumps(rows[-1], indent=1) + "\n")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="mltrain-record-"))
    try:
        with EmulatorServer() as server, EmulatorAdmin(server.url) as admin:
            admin.reset()
            emulator = EmulatorHandle(url=server.url, admin=admin)
            admin.set_settings(task_state_delay=0.1, modelarts_phase_delay=0.1, modelarts_run_seconds=100000,
                               delete_delay=0.1)
            trial = stacks.alaya_job_args(description="trial")
            alaya = {"t1": trial, "t2": trial, "t3": trial}
            modelarts = {"m1": modelarts_job_args(flavor_id=d.FLAVOR_GPU_V100, node_count=2, auto_stop_hours=6),
                         "m2": modelarts_job_args(flavor_id=d.FLAVOR_GPU_V100)}
            v1 = dict.fromkeys([*alaya, *modelarts], "v1")
            stack = both_forms(both_platforms_stack(emulator, home), {"alaya": alaya, "modelarts": modelarts},
                               triggers=v1)
            view = home / "view.jsonl"
            record(stack, "first", view)
            stack.up()
            both_forms(stack, {"alaya": alaya, "modelarts": modelarts}, triggers={**v1, "t2": "v2", "m1": "v2"})
            record(stack, "sweep", view)
            described = {"alaya": {**alaya, "t3": {**trial, "description": "trial three"}},
                         "modelarts": {**modelarts, "m2": {**modelarts["m2"], "description": "m two"}}}
            both_forms(stack, described, triggers=v1)
            record(stack, "update", view)
            both_forms(stack, {"alaya": {"t1": trial, "t2": trial}, "modelarts": modelarts}, triggers=v1)
            record(stack, "delete", view)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"wrote {', '.join(sorted(p.name for p in OUT.iterdir()))}", file=sys.stderr)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
