"""bench/compare.py: which rows of a results table are worse than another's."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compare() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_compare", ROOT / "bench" / "compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table(*lines: str) -> str:
    return "\n".join(["| scenario | N | ours | baseline | ratio | target | verdict | API calls | notes |",
                      "|---|---|---|---|---|---|---|---|---|", *lines])


NEW = table("| 1 overhead | 50 | 3.92 s | 2.82 s | 1.39 | x | missed | 351 | n |",
            "| 2 poll lag | D = 2 s | lag 0.02 s | 2 s | — | x | met | 4 | n |",
            "| 4 provider CPU per job | 50 | 4.13 ms | — | — | x | — | — | n |",
            "| 14 calls per job | 1 | 4 / 0 / 1 / 3 | — | — | x | — | — | n |",
            "| 8 state per resource | 200 | 3766 B | 2320 B | 1.62 | x | met | — | n |",
            "| 17 plugin start-up | 15 | 0.33 s | — | 0.98 | x | met | — | n |",
            "| 7 emulator CPU per request | 800 vs 10 | 1419 µs | 1280 µs | 0.99 | x | met | 1400 each | n |")
OLD = table("| 1 overhead | 50 | 3.86 s | 2.84 s | 1.36 | x | missed | 351 | n |",
            "| 2 poll lag | D = 2 s | lag 0.01 s | 2 s | — | x | met | 4 | n |",
            "| 4 provider CPU per job | 50 | 4.50 ms | — | — | x | — | — | n |",
            "| 8 state per resource | 200 | 3740 B | 2320 B | 1.61 | x | met | — | n |",
            "| 14 calls per job | 1 | 4 / 0 / 2 / 3 | — | — | x | — | — | n |",
            "| 7 emulator CPU per request | 800 vs 10 | 1401 µs | 1385 µs | 1.00 | x | met | 1400 each | n |")


def test_rows_are_judged_by_their_ratio_else_their_figure(compare: ModuleType) -> None:
    new, old = compare.rows(NEW), compare.rows(OLD)
    assert set(new) == {"1 overhead [50]", "2 poll lag [D = 2 s]", "4 provider CPU per job [50]",
                        "8 state per resource [200]", "14 calls per job [1]", "17 plugin start-up [15]",
                        "7 emulator CPU per request [800 vs 10]"}
    verdicts = {key: compare.verdict(new[key], old[key], 0.0) for key in old}
    assert verdicts == {
        "1 overhead [50]": "worse (ratio +2.3%)",  # by the ratio: the no-op ran faster, too
        "2 poll lag [D = 2 s]": "same",  # one unit of the last printed digit apart
        "4 provider CPU per job [50]": "better (figure -8.2%)",
        "8 state per resource [200]": "worse (ratio +0.7%)",  # from the figures: the printed ratio rounds
        "14 calls per job [1]": "differs",
        # its ratio (a median of blocks) is not the figures' quotient (1419 / 1280 = 1.11 against
        # 1401 / 1385 = 1.01, worse): as printed, 0.99 against 1.00, one unit of the last digit apart
        "7 emulator CPU per request [800 vs 10]": "same",
    }
    assert compare.verdict(new["1 overhead [50]"], old["1 overhead [50]"], 0.05) == "same"


def test_the_command_counts_the_worse_rows(compare: ModuleType, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "new.md").write_text(NEW)
    (tmp_path / "old.md").write_text(OLD)
    assert compare.main([str(tmp_path / "new.md"), "--against", str(tmp_path / "old.md")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"3 row(s) worse than {tmp_path / 'old.md'}"
    assert "17 plugin start-up [15]" in out and "(no row in" in out


def test_several_runs_a_side_are_worse_only_when_every_pair_is(compare: ModuleType) -> None:
    def row(ours: str, baseline: str = "—", ratio: str = "—") -> tuple[str, str, str]:
        return (ours, baseline, ratio)

    ratios = [row("3.00 s", "2.00 s", "1.50"), row("3.10 s", "2.00 s", "1.55")]
    assert compare.verdict_of_runs(ratios, [row("2.60 s", "2.00 s", "1.30"), row("2.80 s", "2.00 s", "1.40")],
                                   0.0) == "worse (ratio +7.1% to +19.2%)"
    assert compare.verdict_of_runs(ratios, [row("2.60 s", "2.00 s", "1.30"), row("3.20 s", "2.00 s", "1.60")],
                                   0.0) == "same (overlap)"
    assert compare.verdict_of_runs([row("4.0 ms")], [row("4.2 ms"), row("4.4 ms")], 0.0) == (
        "better (figure -9.1% to -4.8%)")
    # Rows that are not numbers: each of ours must be one the base has given.
    calls = [row("6 / 0 / 3 / 6")]
    assert compare.verdict_of_runs(calls, [row("6 / 0 / 3 / 3"), row("6 / 0 / 3 / 6")], 0.0) == "same"
    assert compare.verdict_of_runs(calls, [row("6 / 0 / 3 / 3"), row("6 / 0 / 3 / 4")], 0.0) == "differs"


def test_the_run_length_is_compared_over_the_scenarios_every_table_ran(compare: ModuleType, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    def run(minutes: str, took: str) -> str:
        return table(f"| 15 the run itself | full | {minutes} min | — | — | ≤ 15 min | met | — | wall time; "
                     f"seconds per scenario {took}; without scenario 12 (the sweep): 9.0 min |")

    # 12.0 min with 17 (60 s) and 18 (30 s), which the base has not: 10.5 min over what both ran.
    (tmp_path / "new.md").write_text(run("12.0", "1: 280, 17: 60, 18: 30, 2: 194"))
    (tmp_path / "old.md").write_text(run("10.9", "1: 284, 2: 194"))
    texts = [(tmp_path / name).read_text() for name in ("new.md", "old.md")]
    assert compare.scenario_seconds(texts[0]) == {"1": 280.0, "17": 60.0, "18": 30.0, "2": 194.0}
    tables = [compare.rows(text) for text in texts]
    assert compare.over_common_scenarios(texts, tables) == "over the scenarios every table ran (without 17, 18)"
    assert tables[0]["15 the run itself [full]"][0] == "10.5 min"
    assert tables[1]["15 the run itself [full]"][0] == "10.9 min"
    assert compare.main([str(tmp_path / "new.md"), "--against", str(tmp_path / "old.md")]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.endswith("better (figure -3.7%); over the scenarios every table ran (without 17, 18)"), line
    # A table without seconds per scenario (an older one) leaves the row as it is.
    (tmp_path / "older.md").write_text(table("| 15 the run itself | full | 10.9 min | — | — | x | met | — | n |"))
    assert compare.main([str(tmp_path / "new.md"), "--against", str(tmp_path / "older.md")]) == 0
    assert "worse (figure +10.1%)" in capsys.readouterr().out
