"""The board table's figure cells are written in Python (`board_views._cell_html`, for speed: issue 34); they must
read exactly as the template that wrote them before, escaping included."""
from __future__ import annotations

from types import SimpleNamespace

from django.template import Context, Template
from django.utils.html import strip_spaces_between_tags

from leaderboard.board_views import _cell_html, _model_cells_html
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


# A row's model and kind cells as `_board_table.html` wrote them until they moved to Python, in the table's
# {% spaceless %} (which drops the whitespace between tags, around the template's tags and ours alike).
TEMPLATE_MODEL = Template(
    """{% spaceless %}<th scope="row" class="model pin pin-model" data-key="model"><a href="{% url 'model-page' r.row.model_slug %}">{{ r.row.model_name }}</a>{% if r.row.thinking == 'yes' %} <span class="tag tag-thinking">thinking</span>{% endif %}
        {% if r.row.source == 'reported' %}<span class="tag"{% if r.row.note %} title="{{ r.row.note }}"{% endif %}>paper</span>{% else %}<a class="tag tag-scored" href="{% url 'submission-samples' r.row.submission_id %}" title="Scored here (scorer {{ r.row.scorer_version }}, on split {{ split.name }} v{{ split.version }}): per-sample results">scored #{{ r.row.submission_id }}</a> <span class="tag tag-type tag-{{ r.row.row_type }}"{% if r.row.provenance.file_sha256 %} title="file sha256 {{ r.row.provenance.file_sha256 }}; provenance: /submissions/{{ r.row.submission_id }}/provenance.json"{% endif %} data-row-type="{{ r.row.row_type }}">{{ r.row.row_type_label }}</span>{% endif %}
        {% if r.row.kind == 'human' and r.row.source != 'reported' and r.row.note %}<span class="tag tag-human">{{ r.row.note }}</span>{% endif %}
        {% if r.row.runs > 1 %}<span class="tag tag-runs" title="Runs #{{ r.row.run_ids|join:', #' }} ({{ r.row.run_set }}); run-to-run SD of the headline: {{ r.run_sd }}. The interval accounts for the test items and the runs.">mean of {{ r.row.runs }} runs ± {{ r.run_sd }}</span>{% endif %}
        {% if r.row.pending %}<span class="tag tag-pending" title="Figures are provisional">{{ r.row.pending }}</span>{% endif %}
        {% if r.row.reading_note %}<span class="tag tag-reading muted" data-reading-note>{{ r.row.reading_note }}</span>{% endif %}
        {% if r.row.parameters_b %}<span class="params"{% if r.row.parameters_from_name %} title="Size read from the model's name"{% endif %}>{{ r.row.parameters_b|floatformat:"-1" }}B</span>{% endif %}
      </th>
      <td class="kind" data-key="kind">{{ r.row.kind|default:"not stated" }}</td>{% endspaceless %}""")


def test_model_cells_read_as_the_template_wrote_them():
    # Given rows with every tag: thinking, a paper's row with and without a note, a scored row with a file hash,
    # a human entry's note, repeated runs, provisional figures, a reading note, sizes stated and read from the
    # name, no kind; names and notes that need escaping
    split = SimpleNamespace(name='demo "<b>"', version=3)
    rows = [
        BoardRow(1, 1, "A & <B>", "a-b", "open-source", "yes", 7.0, "scored", 50.0, scorer_version="epic-1.1",
                 provenance={"file_sha256": "ab12"}, row_type="upload", parameters_from_name=True),
        BoardRow(2, 2, "Paper's", "paper", "proprietary", "", None, "reported", 40.0, note='from "Table 2"',
                 row_type="reported"),
        BoardRow(3, 3, "P", "p", "proprietary", "no", 0.5, "reported", 40.0, row_type="reported"),
        BoardRow(4, 4, "Human", "human", "human", "", None, "scored", 90.0, note="3 players <site>",
                 row_type="hub-run"),
        BoardRow(5, 5, "Runs", "runs", "", "no", 1234.5, "scored", 60.0, run_ids=(5, 6, 9), run_set="seed<s>",
                 pending="awaiting judgement", reading_note="no strict <reading>"),
    ]
    for row in rows:
        run_sd = "1.25" if row.runs > 1 else ""
        # Then each reads as the template wrote it, byte for byte after the table's spaceless
        expected = TEMPLATE_MODEL.render(Context({"r": {"row": row, "run_sd": run_sd}, "split": split}))
        assert strip_spaces_between_tags(_model_cells_html(row, split, run_sd)) == expected
