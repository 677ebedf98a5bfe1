"""PLAN-Bench's Analysis figures on a small fixed fixture, against values worked out by hand."""
from __future__ import annotations

from pathlib import Path

import pytest

from scoring.benchmarks import plugin_for
from scoring.benchmarks.plan.core.analysis import figures, wilson
from scoring.core.analysis import AnalysisContext, ModelSamples, SampleRow
from scoring.core.published import PublishedDataError, PublishedDelta, PublishedRow, PublishedTable, read_deltas

DATA = Path(__file__).resolve().parents[5] / "data" / "published"


def item(task: str, correct: bool | None, *, kind: str = "open", decided_by: str = "rule", hint: str | None = None):
    return SampleRow(key=f"{task}-{kind}-{hint}-{correct}", task=task,
                     score=None if correct is None else float(correct),
                     details={"type": kind, "decided_by": decided_by if correct is not None else None},
                     truth={"answer_hint": hint})


# X (non-thinking): OO right, OO wrong (judge), TD right (single choice), Route undecided.
X = ModelSamples("X", "X", thinking="no", samples=(
    item("OO", True), item("OO", False, decided_by="model", hint="alt: 3"), item("TD", True, kind="single_choice"),
    item("Route", None, hint="any order")))
# X (thinking): all four right, the Route one by a person.
XT = ModelSamples("X (thinking)", "X", thinking="yes", samples=(
    item("OO", True), item("OO", True, decided_by="model", hint="alt: 3"), item("TD", True, kind="single_choice"),
    item("Route", True, decided_by="person", hint="any order")))
PAPER = PublishedRow("plan-bench", "Paper-Model", "proprietary", "", 60.0, {"spatial_cognition": 55.0, "OO": 40.0},
                     figures={"navigation": 50.0}, sources={"navigation": "sec 4.3"})
CONTEXT = AnalysisContext(
    published=(PAPER,),
    deltas=(PublishedDelta("plan-bench", "mean over models", "spatial_cognition", 15.2, "sec 4.3"),),
    extra={"agreement": {"by_subtask": {"OO": {"agree": 9, "n": 10}}}})


def rows(fig, **match):
    out = [dict(zip(fig.columns, r)) for r in fig.rows]
    return [r for r in out if all(r[k] == v for k, v in match.items())]


def by_key():
    return {f.key: f for f in figures([X, XT], CONTEXT)}


def test_subtasks_with_the_papers_figures_beside():
    fig = by_key()["subtasks"]
    assert rows(fig, model="X", column="OO")[0] == {"model": "X", "source": "scored here", "column": "OO", "n": 2,
                                                     "accuracy": 50.0}
    # Undecided items are left out: X has 3 decided of 4, 2 right.
    assert rows(fig, model="X", column="overall")[0]["n"] == 3
    assert rows(fig, model="X", column="overall")[0]["accuracy"] == 66.67
    assert rows(fig, model="X", column="spatial_cognition")[0]["accuracy"] == 66.67  # OO, OO, TD
    assert rows(fig, model="X", column="Route")[0] == {"model": "X", "source": "scored here", "column": "Route",
                                                        "n": 0, "accuracy": None}
    assert rows(fig, source="paper") == [
        {"model": "Paper-Model", "source": "paper", "column": "overall", "n": None, "accuracy": 60.0},
        {"model": "Paper-Model", "source": "paper", "column": "spatial_cognition", "n": None, "accuracy": 55.0},
        {"model": "Paper-Model", "source": "paper", "column": "OO", "n": None, "accuracy": 40.0},
    ]


def test_thinking_gain_is_paired_by_model_name():
    fig = by_key()["thinking"]
    overall = rows(fig, model="X", metric="overall")[0]
    assert (overall["thinking"], overall["non_thinking"], overall["gain"]) == (100.0, 66.67, 33.33)
    assert rows(fig, model="X", metric="multi_step_planning")[0]["gain"] is None  # X's Route is undecided
    assert rows(fig, source="paper")[0]["gain"] == 15.2
    assert {f.key: f for f in figures([X], CONTEXT)}["thinking"].n == 0  # no pair without both modes


def test_groups_and_paper_named_figures():
    fig = by_key()["groups"]
    assert rows(fig, model="X", group="navigation")[0] == {"model": "X", "source": "scored here",
                                                           "group": "navigation", "n": 1, "accuracy": 100.0}
    assert rows(fig, model="X", group="with_hint")[0]["n"] == 1 and rows(fig, model="X", group="with_hint")[0][
        "accuracy"] == 0.0
    assert rows(fig, model="X", group="single_choice")[0]["accuracy"] == 100.0
    assert rows(fig, model="X", group="open")[0]["accuracy"] == 50.0
    assert rows(fig, source="paper") == [{"model": "Paper-Model", "source": "paper", "group": "navigation",
                                          "n": None, "accuracy": 50.0}]


def test_judge_cascade_shares_and_agreement_interval():
    fig = by_key()["judge"]
    oo = rows(fig, subtask="OO")[0]
    # OO: 4 items, rule X1, model X2, rule XT1, model XT2.
    assert (oo["n"], oo["rule_share"], oo["model_share"], oo["person_share"]) == (4, 50.0, 50.0, 0.0)
    assert (oo["audited"], oo["agree"], oo["agreement"]) == (10, 9, 90.0)
    assert (oo["agreement_low"], oo["agreement_high"]) == (59.58, 98.21)  # Wilson 95% for 9/10
    route = rows(fig, subtask="Route")[0]
    assert (route["person_share"], route["undecided_share"], route["agreement"]) == (50.0, 50.0, None)
    assert wilson(0, 0) == (None, None)


def test_the_shipped_deltas_load():
    deltas = read_deltas(DATA, plugin_for("plan-bench").published)
    assert len(deltas) == 7
    assert any(d.subject == "Kimi-K3" and d.metric == "overall" and d.delta == 32.6 for d in deltas)


def test_a_bad_delta_line_is_refused(tmp_path):
    (tmp_path / "d.csv").write_text("model_or_group,metric,delta,source\nA,overall,x,sec 1\n")
    with pytest.raises(PublishedDataError, match=r"d.csv, line 2, column 'delta': 'x' is not a number"):
        read_deltas(tmp_path, PublishedTable("b", "t.csv", "overall", (), deltas_filename="d.csv"))


def test_the_papers_other_figures_are_listed_with_their_source():
    fig = by_key()["paper-figures"]
    assert rows(fig) == [{"model": "Paper-Model", "metric": "navigation", "value": 50.0, "source": "sec 4.3"}]
    assert fig.chart.kind == "none"


def test_navigation_and_manipulation_are_the_papers_groups():
    """The paper (sec. 4.3, Fig. 6): "We group Plan-Bench into Navigation-related (Route Planning, Instruction
    Alignment, and Target Discovery) and Manipulation-related (Dependency Planning, Constraint Sequencing, and
    Occlusion Order)." """
    from scoring.benchmarks.plan.core.analysis import MANIPULATION, NAVIGATION
    from scoring.benchmarks.plan.core.types import SUBTASK_NAMES

    assert [SUBTASK_NAMES[c] for c in NAVIGATION] == ["Route Planning", "Instruction Alignment", "Target Discovery"]
    assert [SUBTASK_NAMES[c] for c in MANIPULATION] == ["Dependency Planning", "Constraint Sequencing",
                                                        "Occlusion Order"]
    fig = by_key()["groups"]
    assert "Sec. 4.3, Fig. 6" in fig.note and "Route, IA, TD" in fig.note and "DP, CS, OO" in fig.note
    # X: navigation = TD (right) + Route (undecided); manipulation = the two OO items, one right.
    assert rows(fig, model="X", group="navigation")[0]["n"] == 1
    assert rows(fig, model="X", group="manipulation")[0] == {"model": "X", "source": "scored here",
                                                              "group": "manipulation", "n": 2, "accuracy": 50.0}
    # The paper's stated navigation figure still sits beside the live one.
    assert rows(fig, source="paper", group="navigation")[0]["accuracy"] == 50.0


def test_random_baseline_is_computed_from_the_splits_options():
    """The paper's Table 1 has a row "Random baseline" (its caption: 25% single choice / 0% open). Computed here
    for any split from its items' option counts: a single-choice item with k options counts 1/k (ours: the paper
    states 25% for its four options), an open item 0, averaged per column as the board averages items."""
    options = {"items": [
        {"dimension": "Spatial Cognition", "subtask": "OO", "type": "single_choice", "options": 4},
        {"dimension": "Spatial Cognition", "subtask": "TD", "type": "single_choice", "options": 2},
        {"dimension": "Temporal Reasoning", "subtask": "PC", "type": "open", "options": 0},
        {"dimension": "Multi-Step Planning", "subtask": "Route", "type": "single_choice", "options": 5},
    ]}
    paper = PublishedRow("plan-bench", "Random baseline", "baseline", "", None, {"spatial_cognition": 10.4},
                         figures={"single_choice": 25.0, "open": 0.0})
    fig = {f.key: f for f in figures([X], AnalysisContext(published=(paper,), extra={"random_baseline": options}))}[
        "random-baseline"]
    assert fig.title == "Random baseline (computed from this split's options)"
    computed = {r["column"]: (r["n"], r["accuracy"]) for r in rows(fig, source="computed from this split's options")}
    assert computed["overall"] == (4, pytest.approx(100 * (0.25 + 0.5 + 0 + 0.2) / 4, abs=1e-4))
    assert computed["spatial_cognition"] == (2, pytest.approx(37.5))
    assert computed["temporal_reasoning"] == (1, 0.0)
    assert computed["single_choice"] == (3, pytest.approx(100 * (0.25 + 0.5 + 0.2) / 3, abs=1e-4))
    assert computed["open"] == (1, 0.0)
    assert computed["TD"] == (1, 50.0) and computed["MD"] == (0, None)
    published = {r["column"]: r["accuracy"] for r in rows(fig, source="paper")}
    assert published == {"spatial_cognition": 10.4, "single_choice": 25.0, "open": 0.0}
    # No site reads (a hidden split's public page): no computed row, and the note says why.
    bare = {f.key: f for f in figures([X], AnalysisContext())}["random-baseline"]
    assert rows(bare, source="computed from this split's options") == []
