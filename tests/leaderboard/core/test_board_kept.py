"""A kept board view brought up to date with the rows that changed (`view_updated`) shows exactly what a view made
from scratch over the rows as they are now (`board_build`), over random sequences of changes and queries."""
import pickle
import random
from dataclasses import replace

import pytest

from leaderboard.core.board import (
    BoardQuery,
    BoardRow,
    Figures,
    PairSignificance,
    board_build,
    column_marks,
    empty_leaves,
    top_marks,
    view_empty_leaves,
    view_marks,
)
from leaderboard.core.board_kept import view_kept, view_updated
from scoring.benchmarks import board_for

KINDS = ("proprietary", "open-source", "embodied", "human", "baseline")


def random_row(rnd: random.Random, sid: int, spec, models: int) -> BoardRow:
    def figure():  # few distinct values: ties, and rows without a figure
        return None if rnd.random() < 0.15 else float(rnd.choice(range(0, 100, 7)))

    model = rnd.randrange(models)
    runs = rnd.random() < 0.1
    return BoardRow(
        submission_id=sid, model_id=model, model_name=rnd.choice(("Alpha-VL", "beta-7B", "Gamma", "alpha-vl")),
        model_slug=f"m{model}", kind=rnd.choice(KINDS), thinking=rnd.choice(("yes", "no", "")),
        parameters_b=rnd.choice((None, 3.0, 7.0, 70.0)), source=rnd.choice(("scored", "scored", "reported")),
        overall=figure(), values={c.key: figure() for c in spec.columns if c.key != "overall"},
        organisation=rnd.choice(("Lab", "Other")), run_ids=(sid, sid + 10_000) if runs else (),
        row_type=rnd.choice(("upload", "reported", "hub-run")))


def random_query(rnd: random.Random, spec) -> BoardQuery:
    return BoardQuery(
        sort=rnd.choice([c.key for c in spec.columns]), descending=rnd.choice((None, True, False)),
        kinds=rnd.choice(((), ("open-source",), ("proprietary", "human"))), thinking=rnd.choice(((), ("yes",))),
        min_params=rnd.choice((None, 5.0)), search=rnd.choice(("", "alpha", "lab")),
        all_entries=rnd.random() < 0.3, expanded=rnd.random() < 0.5, extras=rnd.random() < 0.3)


def random_pairs(rnd: random.Random, sids: list[int]) -> dict[frozenset[int], PairSignificance]:
    pairs = {}
    for a, b in zip(sids, sids[1:]):
        if rnd.random() < 0.7:
            pairs[frozenset((a, b))] = PairSignificance(a, b, rnd.choice((0.01, 0.5)), rnd.choice((0, 40)))
    return pairs


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("benchmark", ["epic-bench", "plan-bench", "vge-bench"])
def test_an_updated_view_is_the_view_made_from_scratch_after_every_change(seed, benchmark):
    rnd = random.Random(seed)
    spec = board_for(benchmark)
    models = rnd.choice((4, 15, 60))
    rows = {sid: random_row(rnd, sid, spec, models) for sid in range(1, rnd.randrange(1, 60))}
    next_sid = 1000
    for query in [random_query(rnd, spec) for _ in range(3)]:
        for marks in (True, False):
            kept = view_kept(list(rows.values()), spec, query, {}, marks=marks)
            for _ in range(25):
                before = dict(rows)
                for _ in range(rnd.choice((1, 1, 2, 5))):
                    what = rnd.random()
                    if what < 0.3 or not rows:  # a new score
                        rows[next_sid] = random_row(rnd, next_sid, spec, models)
                        next_sid += 1
                    elif what < 0.5:  # withdrawn, made private, held back by its phase
                        del rows[rnd.choice(list(rows))]
                    elif what < 0.8:  # re-scored
                        sid = rnd.choice(list(rows))
                        rows[sid] = replace(random_row(rnd, sid, spec, models), model_id=rows[sid].model_id)
                    else:  # its entry renamed or moved to another kind or model
                        sid = rnd.choice(list(rows))
                        rows[sid] = replace(rows[sid], model_name=rnd.choice(("Alpha-VL", "zeta")),
                                            kind=rnd.choice(KINDS), model_id=rnd.randrange(models))
                gone = [row for sid, row in before.items() if rows.get(sid) is not row]
                came = [row for sid, row in rows.items() if before.get(sid) is not row]
                pairs = random_pairs(rnd, sorted(rows))
                now = list(rows.values())
                rnd.shuffle(now)
                kept = view_updated(kept, gone, came, pairs, len(now))
                expected = board_build(now, spec, query, pairs, marks=marks)
                assert kept.view == expected
                assert kept.view == view_kept(now, spec, query, pairs, marks=marks).view
                if marks:
                    every = spec.visible(expanded=True, extras=query.extras)
                    assert view_marks(kept.view, every) == (column_marks(expected.rows, every, within_kind=True),
                                                            top_marks(expected.rows, every))
                    assert view_empty_leaves(kept.view, every) == empty_leaves(expected.rows, every)


def test_a_row_gone_that_the_view_never_had_is_refused():
    spec = board_for("epic-bench")
    rnd = random.Random(1)
    rows = [random_row(rnd, sid, spec, 5) for sid in range(1, 8)]
    kept = view_kept(rows, spec, BoardQuery(), {})
    stranger = replace(rows[0], submission_id=99)
    with pytest.raises(ValueError):
        view_updated(kept, [stranger], [], {}, len(rows))


def test_a_kept_view_and_its_rows_hold_each_figure_in_a_few_bytes():
    # A process keeps a large board's rows and views between reads (issue 34: memory flat as the hub grows): a view's
    # per-column figures for its marks take a double each, a row's figures and intervals are arrays of doubles under
    # keys shared by the rows (145 bytes a figure with its interval when the figures were a dict of floats), and
    # reading a row's figures keeps no second copy of them.
    import tracemalloc

    spec = board_for("epic-bench")
    rnd = random.Random(3)
    every = spec.visible(expanded=True)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        rows = []
        for sid in range(1, 2_001):  # each figure as a score brings it: its own float, its interval from JSON lists
            row = random_row(rnd, sid, spec, 2_000)
            figures = {key: None if v is None else float(str(v)) for key, v in row.values.items()}
            rows.append(replace(row, values=figures, intervals={
                str(key): (v - 1.5, v + float(sid % 7)) for key, v in figures.items() if v is not None}))
        made = tracemalloc.get_traced_memory()[0] - start
        before = tracemalloc.get_traced_memory()[0]
        for row in rows:  # every figure read, as the filters, the sort and the marks read them
            [row.value(c.key) for c in every]
        read = tracemalloc.get_traced_memory()[0] - before
        kept = view_kept(rows, spec, BoardQuery(expanded=True), {})
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    figures = sum(1 for row in rows for c in every if row.value(c.key) is not None)
    assert figures > 40_000
    print(f"{made / figures:.1f} bytes a figure in the rows, {held / figures:.1f} in the view")
    assert made < 120 * figures, f"{made / figures:.1f} bytes a figure with its interval in the rows"
    assert read < 64 * len(rows), f"{read / len(rows):.0f} bytes a row kept by reading its figures"
    assert held < 16 * figures + 400 * len(rows), f"{held / figures:.1f} bytes a figure kept by the view"
    shown = kept.view.rows
    assert view_marks(kept.view, every) == (column_marks(shown, every, within_kind=True), top_marks(shown, every))


def test_a_rows_figures_read_as_the_mapping_they_were_made_from():
    made = {"overall": 41.5, "BA": 40, "SR": None, "nan": float("nan"), "inf": float("inf"), "text": "n/a",
            "nested": {"a": 1}}
    figures = Figures(made)
    assert dict(figures) == {"overall": 41.5, "BA": 40.0, "SR": None, "nan": None, "inf": None}  # what is no number
    assert figures == dict(figures) and figures != {**dict(figures), "BA": 40.5}
    assert figures.get("SR") is None and figures.get("missing", 7) == 7 and figures["BA"] == 40.0
    with pytest.raises(KeyError):
        figures["missing"]
    assert pickle.loads(pickle.dumps(figures)) == figures
    assert Figures({"BA": 40, "overall": 41.5}) == Figures({"overall": 41.5, "BA": 40})  # keys in another order
    row = replace(random_row(random.Random(1), 1, board_for("epic-bench"), 10), values=made)
    assert row.value("BA") == 40.0 and row.value("nan") is None and row.value("text") is None
    assert row == replace(row, values=dict(figures)) and row != replace(row, values={**dict(figures), "BA": 39.0})
