"""The CSV export's formula guard (issue 13, defect 13e): text a spreadsheet would run gets a leading quote, and an
empty cell stays empty (it used to become "'", since `""[:1] in "=+-@"` is true)."""
import csv
import io

import pytest
from django.core.cache import cache

from leaderboard.core.board import csv_cell
from tests.leaderboard.conftest import make_entry, make_reported


@pytest.mark.parametrize("value, written", [
    ("", ""), (None, ""), ("GPT-4o", "GPT-4o"), (0, 0), (-3.5, -3.5),
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"), ("\r=1", "'\r=1"),
])
def test_csv_cell_quotes_formulas_only(value, written):
    assert csv_cell(value) == written


@pytest.mark.django_db
def test_csv_export_leaves_empty_cells_empty_and_quotes_formula_names(client, epic_split):
    cache.clear()
    make_reported(epic_split, make_entry("Plain-VLM", thinking=""), 40.0, {"BA": 30.0})
    make_reported(epic_split, make_entry("=cmd|' /C calc'!A0", thinking=""), 30.0, {"BA": 20.0})
    response = client.get("/leaderboard/epic-bench/export.csv")
    header, *body = list(csv.reader(io.StringIO(response.content.decode())))
    rows = {line[1]: dict(zip(header, line)) for line in body}
    assert set(rows) == {"Plain-VLM", "'=cmd|' /C calc'!A0"}
    plain = rows["Plain-VLM"]
    assert plain["thinking"] == "" and plain["parameters_b"] == "" and plain["overall_ci_low"] == ""
    assert "'" not in [cell for line in body for cell in line]
