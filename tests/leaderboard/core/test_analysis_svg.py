"""The Analysis tab's SVG: heat map cells, gaps and escaping; lines; what a table-only figure draws."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from leaderboard.core.analysis_svg import heatmap, lines, render
from scoring.core.analysis import Chart, Series

NS = "{http://www.w3.org/2000/svg}"


def test_heatmap_cells_values_gaps_and_escaping():
    body = heatmap(["a<b", "c"], [Series("M&M", [50.0, None]), Series("N", [-2.0, 100.0])], title="T", y_max=100.0)
    root = ET.fromstring(body)  # well-formed: labels are escaped
    cells = [r for r in root.iter(f"{NS}rect") if r.get("width") == "33"]
    assert len(cells) == 4
    fills = [c.get("fill") for c in cells]
    assert fills[1] == "#f3f4f6"  # no value: grey, no number
    assert fills[3] == "#0b5cad" and fills[2] == "#ffffff"  # top of the scale, and a loss clamped to white
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "M&M" in texts and "a<b" in texts and "50" in texts and "-2" in texts
    assert any(t.get("fill") == "#b42318" and t.text == "-2" for t in root.iter(f"{NS}text"))


def test_lines_skip_missing_points():
    root = ET.fromstring(lines(["1", "2", "3"], [Series("A", [10.0, None, 30.0])], title="L", y_max=100.0))
    assert len(list(root.iter(f"{NS}circle"))) == 2
    assert len(root.find(f"{NS}polyline").get("points").split()) == 2


def test_render_dispatches_and_a_table_only_figure_has_no_chart():
    assert render(Chart("none", (), ()), title="x") is None
    assert render(Chart("bars", ["a"], [Series("A", [1.0])]), title="x").startswith("<svg")
    assert "<polyline" in render(Chart("lines", ["1", "2"], [Series("A", [1.0, 2.0])]), title="x")
