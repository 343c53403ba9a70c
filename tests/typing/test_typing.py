"""Static typing of the program side: mypy --strict and basedpyright accept the examples and the README
example, and reject a misspelled argument and a wrong type."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*/*.py"))


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Example", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README.md has no ```python block under ## Example"
    return match.group(1)


def _mypy(paths: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "mypy"), "--strict", "--no-incremental", "--cache-dir", "/dev/null",
                           "--config-file", "/dev/null", *map(str, paths)],
                          capture_output=True, text=True, cwd=cwd)


def _pyright(paths: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = BIN / "basedpyright"
    if not exe.exists():
        found = shutil.which("basedpyright")
        if found is None:
            pytest.fail("basedpyright is not installed: install the `dev` extra (or pip install basedpyright)")
        exe = Path(found)
    config = cwd / "pyrightconfig.json"
    config.write_text('{"typeCheckingMode": "standard", "pythonVersion": "3.11", '
                      f'"pythonPlatform": "Linux", "venvPath": "{BIN.parent.parent}", '
                      f'"venv": "{BIN.parent.name}"}}')
    return subprocess.run([str(exe), "--project", str(config), *map(str, paths)],
                          capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Every example program and the README example, as files to check."""
    where = tmp_path_factory.mktemp("typed")
    readme = where / "readme_example.py"
    readme.write_text(_readme_example())
    return [*EXAMPLES, readme]


def test_examples_exist() -> None:
    assert len(EXAMPLES) >= 3, EXAMPLES


def test_mypy_strict_accepts_examples_and_readme(programs: list[Path], tmp_path: Path) -> None:
    for program in programs:  # one at a time: every example is a `__main__` module
        out = _mypy([program], tmp_path)
        assert out.returncode == 0, f"{program}:\n{out.stdout}{out.stderr}"


def test_basedpyright_accepts_examples_and_readme(programs: list[Path], tmp_path: Path) -> None:
    out = _pyright(programs, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


BAD = '''\
from pulumi_mltrain import alaya

job = alaya.TrainingJob("bad", product_code="PRD-TRAIN-1", worker_count={count}, image="img"{extra})
'''


@pytest.mark.parametrize("checker", ["mypy", "basedpyright"])
@pytest.mark.parametrize(("count", "extra", "expected"), [
    ("3", ", wrokers=3", "wrokers"),
    ('"four"', "", "worker_count"),
])
def test_checkers_reject_misspelled_and_mistyped_arguments(
        checker: str, count: str, extra: str, expected: str, tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text(BAD.format(count="3", extra=""))
    bad = tmp_path / "bad.py"
    bad.write_text(BAD.format(count=count, extra=extra))
    run = _mypy if checker == "mypy" else _pyright
    assert run([good], tmp_path).returncode == 0, "the correct snippet must pass, or the test proves nothing"
    out = run([bad], tmp_path)
    assert out.returncode != 0, f"{checker} accepted {bad.read_text()}"
    assert expected in out.stdout + out.stderr, out.stdout


PRESENT = '''\
import pulumi
from pulumi_mltrain import alaya, modelarts
from pulumi_mltrain.modelarts import ObsChannel


def needs_text(value: pulumi.Output[str]) -> None: ...


job = alaya.TrainingJob("job", product_code="PRD-TRAIN-1", worker_count=1, image="img")
channel: ObsChannel = {{"name": "data_url", "obs_url": "obs://bucket/data/"}}
ma = modelarts.TrainingJob("ma", flavor_id="modelarts.vm.cpu.2u", inputs=[channel])
needs_text(job.status)
needs_text(ma.phase)
needs_text(job.{optional})
'''


@pytest.mark.parametrize("checker", ["mypy", "basedpyright"])
def test_outputs_every_job_has_are_typed_present_and_obs_channels_stay_valid_inputs(
        checker: str, tmp_path: Path) -> None:
    """`status`, `phase` and the IDs are `Output[str]`; ModelArts `inputs` takes the ObsChannel items that
    programs written for the earlier release pass. An optional output is still `Output[str | None]`."""
    run = _mypy if checker == "mypy" else _pyright
    good = tmp_path / "good.py"
    good.write_text(PRESENT.format(optional="training_task_id"))
    out = run([good], tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    bad = tmp_path / "bad.py"
    bad.write_text(PRESENT.format(optional="reason"))
    out = run([bad], tmp_path)
    assert out.returncode != 0, f"{checker} accepted an optional output as Output[str]"
    last = len(PRESENT.splitlines())  # the `reason` line, and only it
    assert f":{last}:" in out.stdout and "1 error" in out.stdout, out.stdout
