import pytest

from leaderboard.core.board import (
    BadBoardQuery,
    BoardRow,
    PairSignificance,
    adjacent_pairs,
    adjacent_ties,
    best_per_model,
    board_build,
    column_marks,
    empty_leaves,
    export_table,
    filter_rows,
    parse_query,
    ranks,
    sort_rows,
    top_marks,
)
from scoring.benchmarks import board_for
from scoring.core.columns import Direction, Level


def row(sid, name, overall, *, model_id=None, kind="open-source", thinking="no", params=None, source="scored",
        values=None, intervals=None):
    return BoardRow(
        submission_id=sid, model_id=model_id or sid, model_name=name, model_slug=name.lower(), kind=kind,
        thinking=thinking, parameters_b=params, source=source, overall=overall, values=values or {},
        intervals=intervals or {},
    )


EPIC = board_for("epic-bench")
VGE = board_for("vge-bench")


def test_epic_spec_has_nine_groups_under_three_categories_and_23_leaves():
    headline = [c for c in EPIC.columns if c.level is Level.HEADLINE]
    assert [c.key for c in headline] == ["overall", "BA", "SRA", "ECA", "GD", "FP", "VM", "AR", "CR", "PR"]
    assert {c.group for c in headline[1:]} == {"Target Localization", "Navigation", "Manipulation"}
    leaves = [c for c in EPIC.columns if c.level is Level.LEAF]
    single_leaf_groups = {"GD", "VM", "AR", "PR"}  # one-leaf groups are their own leaf
    assert len(leaves) + len(single_leaf_groups) == 23
    assert "Navigation/FeasiblePath/FeasiblePath_Ego" in {c.key for c in leaves}


def test_plan_spec_expands_dimensions_to_16_subtasks():
    plan = board_for("plan-bench")
    assert len([c for c in plan.columns if c.level is Level.LEAF]) == 16
    assert plan.column("Route").parent == "multi_step_planning"


def test_vge_lower_is_better_columns_sort_ascending_by_default():
    gvpe = VGE.column("GVPE")
    assert gvpe.direction is Direction.DOWN
    rows = [row(1, "a", 10, values={"GVPE": 3.0}), row(2, "b", 5, values={"GVPE": 1.5}), row(3, "c", 1)]
    assert [r.submission_id for r in sort_rows(rows, gvpe)] == [2, 1, 3]  # missing value last


def test_sort_puts_missing_values_last_in_both_directions():
    rows = [row(1, "a", None), row(2, "b", 3.0), row(3, "c", 7.0)]
    col = EPIC.column("overall")
    assert [r.submission_id for r in sort_rows(rows, col)] == [3, 2, 1]
    assert [r.submission_id for r in sort_rows(rows, col, descending=False)] == [2, 3, 1]


def test_best_per_model_keeps_the_highest_entry_of_each_model():
    rows = [row(1, "m", 10, model_id=7), row(2, "m", 30, model_id=7), row(3, "n", 20, model_id=8)]
    kept = best_per_model(rows, EPIC.column("overall"))
    assert sorted(r.submission_id for r in kept) == [2, 3]


def test_marks_best_and_second_best_and_skip_the_human_baseline():
    rows = [row(1, "a", 50), row(2, "b", 40), row(3, "c", 40), row(4, "human", 90, kind="human"), row(5, "d", 10)]
    marks = column_marks(rows, [EPIC.column("overall")])["overall"]
    assert marks == {1: "best", 2: "second", 3: "second"}


def test_marks_on_a_lower_is_better_column_prefer_the_smallest():
    rows = [row(1, "a", 1, values={"GVPE": 3.0}), row(2, "b", 1, values={"GVPE": 1.0}), row(3, "c", 1, values={"GVPE": 2.0})]
    assert column_marks(rows, [VGE.column("GVPE")])["GVPE"] == {2: "best", 3: "second"}


def test_filters_by_kind_thinking_source_params_and_search():
    rows = [
        row(1, "Qwen-7B", 10, params=7, thinking="no"),
        row(2, "Qwen-72B", 20, params=72, thinking="yes"),
        row(3, "GPT", 30, kind="proprietary", thinking="", source="reported"),
    ]
    q = parse_query({"kind": "open-source", "min_params": "10"}, EPIC)
    assert [r.submission_id for r in filter_rows(rows, q)] == [2]
    assert [r.submission_id for r in filter_rows(rows, parse_query({"thinking": "unknown"}, EPIC))] == [3]
    assert [r.submission_id for r in filter_rows(rows, parse_query({"source": "reported"}, EPIC))] == [3]
    assert [r.submission_id for r in filter_rows(rows, parse_query({"q": "qwen"}, EPIC))] == [1, 2]
    assert [r.submission_id for r in filter_rows(rows, parse_query({"max_params": "8"}, EPIC))] == [1]


@pytest.mark.parametrize(
    "params, parameter",
    [
        ({"sort": "nope"}, "sort"),
        ({"order": "sideways"}, "order"),
        ({"kind": "alien"}, "kind"),
        ({"thinking": "maybe"}, "thinking"),
        ({"min_params": "abc"}, "min_params"),
        ({"max_params": "-3"}, "max_params"),
        ({"min_params": "nan"}, "min_params"),
        ({"min_params": "9", "max_params": "2"}, "min_params"),
        ({"entries": "some"}, "entries"),
        ({"expand": "perhaps"}, "expand"),
        ({"q": "x" * 101}, "q"),
    ],
)
def test_bad_query_parameters_are_refused_with_the_parameter_named(params, parameter):
    with pytest.raises(BadBoardQuery) as err:
        parse_query(params, EPIC)
    assert err.value.parameter == parameter


def test_adjacent_ties_mark_only_non_significant_neighbours():
    rows = [row(1, "a", 50), row(2, "b", 49), row(3, "c", 30)]
    pairs = {
        frozenset((1, 2)): PairSignificance(1, 2, 0.4, 100),
        frozenset((2, 3)): PairSignificance(2, 3, 0.001, 100),
    }
    assert adjacent_ties(adjacent_pairs(rows), pairs) == {2}


def test_ranks_share_a_rank_on_equal_values():
    rows = [row(1, "a", 5), row(2, "b", 5), row(3, "c", 3), row(4, "d", None)]
    assert ranks(rows, EPIC.column("overall")) == [1, 1, 3, None]


def test_reported_rows_never_show_an_interval():
    r = row(1, "a", 5, source="reported", intervals={"overall": (4.0, 6.0)})
    assert r.interval("overall") is None
    assert row(2, "b", 5, intervals={"overall": (4.0, 6.0)}).interval("overall") == (4.0, 6.0)


def test_export_table_has_exactly_the_shown_rows_and_columns():
    rows = [row(1, "a", 50, values={"BA": 1.0}, intervals={"overall": (45.0, 55.0)}), row(2, "b", 40)]
    view = board_build(rows, EPIC, parse_query({"kind": "open-source"}, EPIC))
    header, body = export_table(view)
    assert header[:7] == ["rank", "model", "kind", "thinking", "parameters_b", "source", "submission"]
    assert "Navigation/FeasiblePath/FeasiblePath_Ego" not in header  # leaves only when expanded
    assert [line[1] for line in body] == ["a", "b"]
    assert body[0][header.index("overall_ci_low")] == 45.0
    expanded = board_build(rows, EPIC, parse_query({"expand": "1"}, EPIC))
    assert "Navigation/FeasiblePath/FeasiblePath_Ego" in export_table(expanded)[0]


def test_ties_are_only_shown_when_ranking_by_the_headline_column():
    rows = [row(1, "a", 50, values={"BA": 2.0}), row(2, "b", 49, values={"BA": 1.0})]
    pairs = {frozenset((1, 2)): PairSignificance(1, 2, 0.5, 10)}
    assert board_build(rows, EPIC, parse_query({}, EPIC), pairs).ties == {2}
    assert board_build(rows, EPIC, parse_query({"sort": "BA"}, EPIC), pairs).ties == frozenset()


def test_query_params_round_trip():
    q = parse_query({"sort": "BA", "order": "asc", "kind": "human,open-source", "q": "x", "entries": "all"}, EPIC)
    assert parse_query(q.as_params(), EPIC) == q


@pytest.mark.parametrize(
    "name, size",
    [("Qwen3.5-27B", 27.0), ("Qwen3.5-35B-A3B", 35.0), ("InternVL3.5-8B", 8.0), ("Gemma-4-31B-it", 31.0),
     ("Qwen3-VL-2B-Instruct", 2.0), ("GPT-5-mini", None), ("Kimi-K3", None), ("Llama 3.2 11B", 11.0),
     ("Model-1.5B", 1.5), ("RoboBrain2.0-7B", 7.0), ("B-2B", 2.0), ("Gemini-3-pro", None)],
)
def test_parameters_from_name_reads_the_stated_total_size(name, size):
    from leaderboard.core.board import parameters_from_name

    assert parameters_from_name(name) == size


def test_marks_within_each_kind_of_model_as_the_papers_mark_them():
    rows = [row(1, "p1", 60, kind="proprietary"), row(2, "p2", 55, kind="proprietary"),
            row(3, "p3", 20, kind="proprietary"), row(4, "o1", 40), row(5, "o2", 30), row(6, "o3", 10),
            row(7, "human", 95, kind="human"), row(8, "random", 5, kind="baseline")]
    overall = EPIC.column("overall")
    marks = column_marks(rows, [overall], within_kind=True)["overall"]
    assert marks == {1: "best", 2: "second", 4: "best", 5: "second", 8: "best"}
    # Across all rows only the proprietary pair would be marked; the board also stars the best of all.
    assert column_marks(rows, [overall])["overall"] == {1: "best", 2: "second"}
    assert top_marks(rows, [overall]) == {"overall": frozenset({1})}
    view = board_build(rows, EPIC, parse_query({}, EPIC))
    assert view.marks["overall"][4] == "best" and view.top["overall"] == frozenset({1})


def test_human_rows_are_not_ranked_and_never_tie_a_model():
    rows = [row(1, "human", 100, kind="human"), row(2, "a", 100), row(3, "b", 50), row(4, "c", 50)]
    assert ranks(rows, EPIC.column("overall")) == [None, 1, 2, 2]
    pairs = {frozenset((1, 2)): PairSignificance(1, 2, 0.9, 10), frozenset((2, 3)): PairSignificance(2, 3, 0.01, 10)}
    assert adjacent_ties(adjacent_pairs(rows), pairs) == set()  # the human row is neither above nor below a model


def test_empty_leaves_are_the_task_columns_no_row_has_a_figure_for():
    leaves = [c for c in EPIC.columns if c.level is Level.LEAF]
    rows = [row(1, "paper", 40, source="reported", values={"BA": 3.0}),
            row(2, "scored", 50, values={leaves[0].key: 61.0, leaves[1].key: None})]
    empty = empty_leaves(rows, EPIC.visible(expanded=True))
    assert leaves[0] not in empty and leaves[1] in empty
    assert len(empty) == len(leaves) - 1
    assert all(c.level is Level.LEAF for c in empty)  # headline columns without figures stay
    assert empty_leaves([row(1, "paper", 40, source="reported")], EPIC.visible(expanded=True)) == tuple(leaves)


def test_repeated_runs_become_one_row_with_mean_spread_and_an_interval_for_items_and_runs():
    import math

    from leaderboard.core.board import Z95, combine_runs

    def run(sid, overall, ba, *, label="seeds", model_id=7, interval=2.0):
        return BoardRow(submission_id=sid, model_id=model_id, model_name="M", model_slug="m", kind="open-source",
                        thinking="no", parameters_b=None, source="scored", overall=overall, values={"BA": ba},
                        intervals={"overall": (overall - interval, overall + interval)}, run_set=label,
                        finished_at=f"2026-01-0{sid}")

    rows = [run(3, 50.0, 10.0), run(1, 40.0, 20.0), run(2, 45.0, None), row(9, "other", 30),
            run(4, 60.0, 5.0, label="other-label"), row(5, "paper", 70, source="reported")]
    combined = combine_runs(rows)
    assert [r.submission_id for r in combined] == [1, 9, 4, 5]  # first seen group keeps its place, lowest id
    mean = combined[0]
    assert mean.runs == 3 and mean.run_ids == (1, 2, 3) and mean.note == "mean of 3 runs"
    assert mean.overall == 45.0 and mean.value("BA") is None  # one run has no BA figure: no mean
    assert math.isclose(mean.run_spread["overall"], 5.0)
    se_items = 2.0 / Z95
    half = Z95 * math.sqrt(se_items**2 + 5.0**2 / 3)
    low, high = mean.interval("overall")
    assert math.isclose(low, 45.0 - half) and math.isclose(high, 45.0 + half)
    assert high - low > 4.0  # wider than one run's own interval: the runs disagree
    assert combined[2].runs == 1 and combined[2].run_ids == ()  # a label used once is a single run
    # Runs of one row are never compared with the stored pairwise tests of single submissions.
    pairs = {frozenset((1, 9)): PairSignificance(1, 9, 0.9, 10)}
    assert adjacent_ties(adjacent_pairs([combined[0], combined[1]]), pairs) == set()
