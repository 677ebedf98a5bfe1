"""The board table's figure cells are written in Python (`board_views._cell_html`, for speed: issue 34); they must
read exactly as the template that wrote them before, escaping included."""
from __future__ import annotations

from django.template import Context, Template

from leaderboard.board_views import _cell_html
from leaderboard.core.board import BoardRow, BoardView, parse_query
from scoring.core.columns import BoardSpec, Column, Direction, Level

# The cell as `_board_table.html` wrote it until the cells moved to Python (autoescape on, as every page).
TEMPLATE_CELL = Template(
    '<td data-key="{{ c.key }}"{% if c.mark or c.leaf or c.headline %} class="{{ c.mark }}{% if c.leaf %} leaf'
    '{% endif %}{% if c.headline %} col-headline{% endif %}"{% endif %}{% if c.interval %} data-value="{{ c.raw }}"'
    '{% endif %}{% if c.parent %} data-parent="{{ c.parent }}"{% endif %}>{{ c.text|default:"–" }}{% if c.top %}'
    '<span class="top-mark" title="Best of all rows in this column">★</span>{% endif %}{% if c.interval %}'
    '<span class="ci" title="95% bootstrap interval">{{ c.interval.0 }}–{{ c.interval.1 }}</span>{% endif %}</td>')


def _template_cell(view: BoardView, row: BoardRow, column: Column, headline: str) -> str:
    value = row.value(column.key)
    interval = row.interval(column.key)

    def fmt(v: float | None) -> str:
        return "" if v is None else f"{v:.{column.digits}f}"

    c = {"key": column.key, "text": fmt(value), "raw": "" if value is None else repr(value),
         "mark": view.marks.get(column.key, {}).get(row.submission_id, ""),
         "top": row.submission_id in view.top.get(column.key, ()),
         "interval": (fmt(interval[0]), fmt(interval[1])) if interval else None,
         "leaf": column.level is Level.LEAF, "headline": column.key == headline, "parent": column.parent}
    return TEMPLATE_CELL.render(Context({"c": c}))


def test_cells_read_as_the_template_wrote_them():
    # Given columns of every kind (headline, leaf with a parent, a key and parent that need escaping, 1 digit, a
    # column lower-is-better) and rows with and without values, intervals, marks and the best-of-all star
    columns = (
        Column("overall", "Overall"),
        Column('a&b"<x>', "Odd", level=Level.LEAF, parent="p&'q"),
        Column("leaf", "Leaf", level=Level.LEAF, parent="overall", digits=1),
        Column("err", "Errors", direction=Direction.DOWN, level=Level.EXTRA),
    )
    spec = BoardSpec("t", columns)
    rows = (
        BoardRow(1, 1, "A", "a", "open-source", "no", None, "scored", 71.234,
                 values={'a&b"<x>': 3.0, "leaf": 0.05, "err": 2.5},
                 intervals={"overall": (70.0, 72.5), "leaf": (0.0, 0.1)}),
        BoardRow(2, 2, "B", "b", "proprietary", "no", None, "reported", 50.0, values={"err": None},
                 intervals={"overall": (1.0, 2.0)}),  # a paper's row: no interval shown
        BoardRow(3, 3, "C", "c", "open-source", "no", None, "scored", None, values={}),
    )
    view = BoardView(spec=spec, query=parse_query({}, spec), columns=columns, rows=rows, ranks=(1, 2, None),
                     marks={"overall": {1: "best", 2: "second"}, "err": {1: "best"}, 'a&b"<x>': {1: 'se"c'}},
                     ties=frozenset(), total_rows=3,
                     top={"overall": frozenset({1}), 'a&b"<x>': frozenset({1})})
    for row in rows:
        for column in columns:
            # Then each cell is the template's, byte for byte
            assert _cell_html(view, row, column, "overall") == _template_cell(view, row, column, "overall")
