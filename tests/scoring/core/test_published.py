"""The published-table reader: a table and the long-form figures the paper's text states, merged per model."""
from __future__ import annotations

from pathlib import Path

import pytest

from scoring.benchmarks import plugins
from scoring.core.published import PublishedDataError, PublishedTable, read_all, read_table

DATA = Path(__file__).resolve().parents[3] / "data" / "published"
TABLE = PublishedTable("b", "table.csv", "overall", ("dim",), figures_filename="figures.csv", figure_columns=("sub",))
HEADER = "model,kind,thinking,metric,value,source\n"


def write(folder: Path, figures: str) -> Path:
    (folder / "table.csv").write_text("model,kind,overall,dim,note\nA,open-source,50.0,,\nB,proprietary,,40.0,x\n")
    (folder / "figures.csv").write_text(HEADER + figures)
    return folder


def test_figures_fill_board_columns_keep_named_figures_and_add_models(tmp_path):
    rows = read_table(write(tmp_path, "A,open-source,unknown,sub,12.5,sec 1\nA,open-source,unknown,gap,3,sec 2\n"
                                      "B,proprietary,unknown,overall,61,sec 3\nC,baseline,unknown,dim,10,sec 4\n"),
                      TABLE)
    by_model = {row.model: row for row in rows}
    assert by_model["A"].overall == 50.0 and by_model["A"].breakdown["sub"] == 12.5
    assert by_model["A"].figures == {"gap": 3.0} and by_model["A"].sources["gap"] == "sec 2"
    assert by_model["B"].overall == 61.0 and by_model["B"].breakdown["dim"] == 40.0 and by_model["B"].note == "x"
    assert (by_model["C"].overall, by_model["C"].kind, dict(by_model["C"].breakdown)) == (None, "baseline", {"dim": 10.0})
    assert by_model["C"].source_file == "figures.csv" and by_model["C"].line == 5


def test_a_figure_that_contradicts_the_table_names_file_line_and_values(tmp_path):
    with pytest.raises(PublishedDataError, match=r"figures.csv, line 2: A overall = 51.0, but 50.0 is already stated"):
        read_table(write(tmp_path, "A,open-source,unknown,overall,51,sec 1\n"), TABLE)


def test_a_figure_without_a_value_is_refused(tmp_path):
    with pytest.raises(PublishedDataError, match=r"figures.csv, line 2, column 'value'"):
        read_table(write(tmp_path, "A,open-source,unknown,sub,,sec 1\n"), TABLE)


def test_the_shipped_tables_read_and_the_plan_figures_agree_with_the_plan_table():
    rows = read_all(DATA, [p.published for p in plugins() if p.published])
    plan = {row.model: row for row in rows if row.benchmark == "plan-bench"}
    assert plan["GPT-5.6-sol"].breakdown["SpR"] == pytest.approx(31.3)
    assert plan["Qwen3.8-Max"].overall == pytest.approx(75.0)
    assert plan["Random baseline"].breakdown["single_choice"] == pytest.approx(25.0)
