"""Static typing of the program side: mypy --strict and basedpyright accept the examples, the README example
and the overview's dynamic-resource example (docs/_index.md), and reject a misspelled argument and a wrong type,
of a resource and of a program-time function (whose module is imported lazily from `program/`).

Every case is a file of its own, and each checker runs once over all of them (a checker process costs
seconds; the cases are independent top-level modules): each test reads its files' diagnostics from that
one run. The examples are copied under names of their own, since every `__main__.py` would be one
module `__main__` to mypy.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.shared import once

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*/*.py"))
CHECKERS = ("mypy", "basedpyright")


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Example", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README.md has no ```python block under ## Example"
    return match.group(1)


def _docs_index_example() -> str:
    """The first Python block of docs/_index.md: the program on the dynamic resources (`pulumi_mltrain`)."""
    text = (ROOT / "docs" / "_index.md").read_text()
    match = re.search(r"```python\n(.*?)```", text.split("## Example", 1)[1], re.S)
    assert match, "docs/_index.md has no ```python block under ## Example"
    assert "from pulumi_mltrain import" in match.group(1), "docs/_index.md's first Python example is not dynamic"
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


# mypy: `file.py:12: error: message  [code]`; basedpyright: `  /dir/file.py:12:5 - error: message`, whose
# message may go on over the next, more indented lines.
MYPY_ERROR = re.compile(r"^(?P<file>[^\s:]+\.py):(?P<line>\d+): error: (?P<text>.*)$")
PYRIGHT_ERROR = re.compile(r"^\s*(?P<file>/\S+\.py):(?P<line>\d+):\d+ - error: (?P<text>.*)$")


@dataclass
class Report:
    """One checker's run over every case: its output, and the errors it found per file name."""

    output: str
    errors: dict[str, list[tuple[int, str]]]

    def of(self, path: Path) -> list[tuple[int, str]]:
        return self.errors.get(path.name, [])


def _report(stdout: str, stderr: str, pattern: re.Pattern[str]) -> Report:
    errors: dict[str, list[tuple[int, str]]] = {}
    last: list[tuple[int, str]] | None = None
    for line in stdout.splitlines():
        match = pattern.match(line)
        if match:
            last = errors.setdefault(Path(match["file"]).name, [])
            last.append((int(match["line"]), match["text"]))
        elif last and line.startswith("    "):  # a basedpyright message's next line
            number, text = last[-1]
            last[-1] = (number, f"{text} {line.strip()}")
        else:
            last = None
    return Report(stdout + stderr, errors)


BAD = '''\
from pulumi_mltrain import alaya

job = alaya.TrainingJob("bad", product_code="PRD-TRAIN-1", worker_count={count}, image="img"{extra})
'''
REJECTED = [("3", ", wrokers=3", "wrokers"), ('"four"', "", "worker_count")]

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

# The functions live in `pulumi_mltrain.program` and the platform packages load them on first use: the checkers
# must still see their signatures and result types (a misspelled key, a wrong argument type).
FUNCTIONS = '''\
from pulumi_mltrain import alaya, modelarts

status: str = alaya.get_training_job("t-1")["{key}"]
phase: str = modelarts.get_training_job_logs("j-1", lines={lines})["phase"]
'''


@dataclass
class Cases:
    """The files every checker is run on."""

    programs: list[Path]  # the examples (copies), the README example and the overview's: must pass
    good: Path  # the correct form of BAD: must pass, or the rejections prove nothing
    bad: list[Path]  # BAD per REJECTED case
    present_good: Path
    present_bad: Path
    functions_good: Path
    functions_bad: Path

    def all(self) -> list[Path]:
        return [*self.programs, self.good, *self.bad, self.present_good, self.present_bad, self.functions_good,
                self.functions_bad]


def _cases(where: Path) -> Cases:
    """The case files in `where` (written by the first worker to ask: `_write_cases`)."""
    return Cases(
        programs=[*(where / f"example_{p.parent.name.replace('-', '_')}_{p.stem.strip('_')}.py" for p in EXAMPLES),
                  where / "readme_example.py", where / "docs_index_example.py"],
        good=where / "good.py",
        bad=[where / f"bad_{i}.py" for i in range(len(REJECTED))],
        present_good=where / "present_good.py",
        present_bad=where / "present_bad.py",
        functions_good=where / "functions_good.py",
        functions_bad=where / "functions_bad.py",
    )


def _write_cases(where: Path) -> Path:
    cases = _cases(where)
    for example, path in zip(EXAMPLES, cases.programs[:-2], strict=True):
        path.write_text(example.read_text())
    cases.programs[-2].write_text(_readme_example())
    cases.programs[-1].write_text(_docs_index_example())
    cases.good.write_text(BAD.format(count="3", extra=""))
    for path, (count, extra, _) in zip(cases.bad, REJECTED, strict=True):
        path.write_text(BAD.format(count=count, extra=extra))
    cases.present_good.write_text(PRESENT.format(optional="training_task_id"))
    cases.present_bad.write_text(PRESENT.format(optional="reason"))
    cases.functions_good.write_text(FUNCTIONS.format(key="status", lines="10"))
    cases.functions_bad.write_text(FUNCTIONS.format(key="stauts", lines='"ten"'))
    return where


def _run_checkers(where: Path) -> Path:
    """Each checker, run once over every case; its stdout and stderr kept as files in `where`."""
    cases = _cases(where)
    names = [p.relative_to(where) for p in cases.all()]
    for checker, result in (("mypy", _mypy(names, where)), ("basedpyright", _pyright(cases.all(), where))):
        (where / f"{checker}.stdout").write_text(result.stdout)
        (where / f"{checker}.stderr").write_text(result.stderr)
    return where


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Cases:
    """Written, and checked by both checkers, once per session (`support.shared.once`): the module's
    tests may run on several workers."""
    return _cases(once(tmp_path_factory, "typed", lambda where: _run_checkers(_write_cases(where))))


@pytest.fixture(scope="module")
def reports(cases: Cases) -> dict[str, Report]:
    where = cases.good.parent
    return {checker: _report((where / f"{checker}.stdout").read_text(), (where / f"{checker}.stderr").read_text(),
                             pattern)
            for checker, pattern in (("mypy", MYPY_ERROR), ("basedpyright", PYRIGHT_ERROR))}


def test_examples_exist() -> None:
    assert len(EXAMPLES) >= 3, EXAMPLES


@pytest.mark.parametrize("checker", CHECKERS)
def test_each_checker_found_exactly_the_expected_errors(checker: str, cases: Cases,
                                                       reports: dict[str, Report]) -> None:
    """The one run checked every file and found errors in the bad cases only, so a file it failed to read
    (or a run that ended early) cannot pass for a clean file."""
    report = reports[checker]
    expected = {p.name for p in (*cases.bad, cases.present_bad, cases.functions_bad)}
    assert set(report.errors) == expected, report.output
    if checker == "mypy":
        assert f"in {len(expected)} files (checked {len(cases.all())} source files)" in report.output, report.output


def test_mypy_strict_accepts_examples_and_readme(cases: Cases, reports: dict[str, Report]) -> None:
    for program in cases.programs:
        assert reports["mypy"].of(program) == [], f"{program.name}:\n{reports['mypy'].output}"


def test_basedpyright_accepts_examples_and_readme(cases: Cases, reports: dict[str, Report]) -> None:
    for program in cases.programs:
        assert reports["basedpyright"].of(program) == [], f"{program.name}:\n{reports['basedpyright'].output}"


@pytest.mark.parametrize("checker", CHECKERS)
@pytest.mark.parametrize("case", range(len(REJECTED)), ids=["misspelled", "mistyped"])
def test_checkers_reject_misspelled_and_mistyped_arguments(checker: str, case: int, cases: Cases,
                                                           reports: dict[str, Report]) -> None:
    report, bad, expected = reports[checker], cases.bad[case], REJECTED[case][2]
    assert report.of(cases.good) == [], "the correct snippet must pass, or the test proves nothing"
    assert report.of(bad), f"{checker} accepted {bad.read_text()}"
    assert any(expected in text for _, text in report.of(bad)), report.output


@pytest.mark.parametrize("checker", CHECKERS)
def test_outputs_every_job_has_are_typed_present_and_obs_channels_stay_valid_inputs(
        checker: str, cases: Cases, reports: dict[str, Report]) -> None:
    """`status`, `phase` and the IDs are `Output[str]`; ModelArts `inputs` takes the ObsChannel items that
    programs written for the earlier release pass. An optional output is still `Output[str | None]`."""
    report = reports[checker]
    assert report.of(cases.present_good) == [], report.output
    last = len(PRESENT.splitlines())  # the `reason` line, and only it
    assert [line for line, _ in report.of(cases.present_bad)] == [last], \
        f"{checker} must refuse an optional output as Output[str], on line {last} only:\n{report.output}"


@pytest.mark.parametrize("checker", CHECKERS)
def test_the_functions_signatures_and_results_are_typed(checker: str, cases: Cases,
                                                        reports: dict[str, Report]) -> None:
    """`alaya.get_training_job` and `modelarts.get_training_job_logs`, reached through the platform packages'
    lazy `__getattr__`, keep their signatures: a misspelled result key and a wrong argument type are errors."""
    report = reports[checker]
    assert report.of(cases.functions_good) == [], report.output
    assert sorted({line for line, _ in report.of(cases.functions_bad)}) == [3, 4], report.output
