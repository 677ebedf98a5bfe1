"""VGEBench's Analysis figures on a small fixed fixture of traces, against values worked out by hand."""
from __future__ import annotations

from scoring.benchmarks.vge.core.analysis import classify_switches, error_counts, figures, success_turn
from scoring.core.analysis import AnalysisContext, ModelSamples, SampleRow


def step(turn: int, *, kind="success", cls="physical", sb="a", sa="b", vb="front", va="front", goal=None,
         done=False, success=False, component=None) -> dict:
    return {"component": component, "turn": turn, "kind": kind, "turn_class": cls, "state_before": sb,
            "state_after": sa, "view_before": vb,
            "view_after": va, "unlocked_before": False, "unlocked_after": False, "goal_reached": goal, "done": done,
            "success": success}


def episode(key: str, category: str, goals: int, l_opt: float, trace: list[dict], **extra) -> SampleRow:
    success = any(t["success"] for t in trace)
    turns = len(trace)
    spl = 100.0 * l_opt / max(turns, l_opt) if success else 0.0
    reached = goals if success else sum(1 for t in trace if t["goal_reached"])
    return SampleRow(key=key, category=category, score=100.0 if success else 0.0,
                     components={"SR": 100.0 if success else 0.0, "SSR": 100.0 * reached / goals, "SPL": spl},
                     details={"task": {"goals": [f"g{i}" for i in range(goals)]}, "l_opt": l_opt, "trace": trace,
                              **extra})


# Model M: t1 optimal in 2 turns; t2 succeeds on turn 6 with L_opt 2 after an invalid, a wrong operation, a wrong
# component and a switch to the current view; t3 (two goals, L_opt 3) reaches one goal and runs out of budget.
T1 = episode("t1", "oven", 1, 2, [step(1), step(2, goal="g0", done=True, success=True)])  # no device: unclassed
T2 = episode("t2", "oven", 1, 2, [
    step(1, kind="invalid", cls="invalid", sa="a"),
    step(2, kind="wrong_operation", sa="a"),
    step(3, kind="no_effect", sa="a"),
    step(4, kind="switched", cls="switch", sa="a"),
    step(5),
    step(6, goal="g0", done=True, success=True),
])
T3 = episode("t3", "radio", 2, 3, [step(1, goal="g0"), step(2, kind="no_effect", cls="wait", sa="b", sb="b"),
                                  step(3, sb="b", sa="b", done=True)])
M = ModelSamples("M", "M", samples=(T1, T2, T3))
H = ModelSamples("Human", "Human", kind="human", samples=(
    episode("t2", "oven", 1, 2, [step(1), step(2, goal="g0", done=True, success=True)]),
    episode("t2", "oven", 1, 2, [step(1), step(2), step(3, goal="g0", done=True, success=True)]),
))


def rows(fig, **match):
    out = [dict(zip(fig.columns, r)) for r in fig.rows]
    return [r for r in out if all(r[k] == v for k, v in match.items())]


def by_key(models):
    return {f.key: f for f in figures(models)}


def test_categories_and_goal_counts():
    figs = by_key([M])
    assert rows(figs["categories"], category="oven")[0] == {"model": "M", "category": "oven", "n": 2, "SR": 100.0,
                                                            "SSR": 100.0, "SPL": round((100 + 100 * 2 / 6) / 2, 2)}
    assert rows(figs["categories"], category="radio")[0]["SSR"] == 50.0
    assert rows(figs["goals"], tasks="single-goal")[0]["n"] == 2
    assert rows(figs["goals"], tasks="multi-goal")[0] == {"model": "M", "tasks": "multi-goal", "n": 1, "SR": 0.0,
                                                          "SSR": 50.0, "SPL": 0.0}


def test_budget_sensitivity_cuts_at_lambda_l_opt():
    assert [success_turn(e) for e in (T1, T2, T3)] == [2, 6, None]
    fig = by_key([M])["budget"]
    # t1 succeeds from λ=1 (2 ≤ 1·2); t2 from λ=3 (6 ≤ 3·2); t3 never.
    assert [r["SR"] for r in rows(fig)] == [33.33, 33.33, 66.67, 66.67, 66.67, 66.67, 66.67, 66.67, 66.67, 66.67]
    assert fig.n == 3 and rows(fig, **{"lambda": 3})[0]["successes"] == 2


def test_error_taxonomy():
    assert error_counts(T2) == {"wrong_component": 1, "wrong_operation": 1, "invalid_action": 1, "redundant": 1,
                                "budget_exhausted": 0}
    # t3: a wait with no effect, a success that left the state as it was, then out of budget.
    assert error_counts(T3) == {"wrong_component": 0, "wrong_operation": 0, "invalid_action": 0, "redundant": 2,
                                "budget_exhausted": 1}
    row = rows(by_key([M])["errors"])[0]
    assert (row["episodes"], row["turns"], row["errors"]) == (3, 11, 7)
    assert row["redundant_share"] == round(100 * 3 / 7, 2) and row["budget_exhausted_share"] == round(100 / 7, 2)


def test_human_vs_model_on_the_same_tasks():
    fig = by_key([M, H])["human-vs-model"]
    model = rows(fig, model="M")[0]
    assert (model["tasks"], model["episodes"], model["SR"], model["SPL"]) == (1, 1, 100.0, round(100 * 2 / 6, 2))
    human = rows(fig, model="Human")[0]
    assert (human["tasks"], human["episodes"], human["SPL"]) == (1, 2, round((100 + 100 * 2 / 3) / 2, 2))
    assert by_key([M])["human-vs-model"].rows == []  # no human episodes: nothing to compare


# Device "oven": the knob shows on front and top, the door on top only.
VISIBLE = {"oven": {"front": ["knob"], "top": ["door", "knob"], "side": []}}


def test_view_switches_are_classed_by_the_next_physical_action():
    trace = [
        step(1, kind="switched", cls="switch", sa="a", va="top"),  # then the door, top only: NP
        step(2, vb="top", va="top", component="door"),
        step(3, kind="switched", cls="switch", sb="b", sa="b", vb="top", va="front"),  # then the knob, on both: PN
        step(4, sb="b", sa="c", component="knob"),
        step(5, kind="switched", cls="switch", sb="c", sa="c", vb="front", va="side"),  # then switch again: NN
        step(6, kind="switched", cls="switch", sb="c", sa="c", vb="side", va="side"),  # same view: not counted
        step(7, kind="no_effect", sb="c", sa="c", vb="side", va="side"),
        step(8, kind="switched", cls="switch", sb="c", sa="c", vb="side", va="top"),  # a wait, then the door: NP
        step(9, kind="success", cls="wait", sb="c", sa="d", vb="top", va="top"),
        step(10, sb="d", sa="e", vb="top", va="top", component="door"),
    ]
    unlock = step(11, kind="unlocked", cls="switch", sb="e", sa="e", vb="top", va="dashboard")
    unlock["unlocked_after"] = True  # a switch that unlocks the dashboard is needed whatever follows: NP
    trace.append(unlock)
    ep = SampleRow(key="t9", details={"task": {"device": "oven", "goals": ["z"]}, "l_opt": 2, "trace": trace},
                   components={"SR": 0.0})
    assert classify_switches(ep, VISIBLE) == ["NP", "PN", "NN", "NP", "NP"]
    assert classify_switches(ep, {}) is None  # views unknown: not classified
    fig = {f.key: f for f in figures([ModelSamples("M", "M", samples=(ep, T1))],
                                     AnalysisContext(extra={"visible": VISIBLE}))}["view-switches"]
    assert rows(fig)[0] == {"model": "M", "episodes": 1, "switches": 5, "NP": 3, "PN": 1, "NN": 1,
                            "NP_share": 60.0, "PN_share": 20.0, "NN_share": 20.0}


def test_robustness_compares_each_setting_with_the_models_clean_runs():
    runs = [
        {"model": "A", "perturbation": "", "episodes": 10, "successes": 8},
        {"model": "A", "perturbation": "blur:2", "episodes": 10, "successes": 5},
        {"model": "A", "perturbation": "jpeg:10", "episodes": 4, "successes": 1},
        {"model": "B", "perturbation": "", "episodes": 10, "successes": 3},  # never perturbed: not shown
    ]
    fig = {f.key: f for f in figures([], AnalysisContext(extra={"runs": runs}))}["robustness"]
    assert rows(fig) == [
        {"model": "A", "perturbation": "none", "episodes": 10, "SR": 80.0, "delta_SR": 0.0},
        {"model": "A", "perturbation": "blur:2", "episodes": 10, "SR": 50.0, "delta_SR": -30.0},
        {"model": "A", "perturbation": "jpeg:10", "episodes": 4, "SR": 25.0, "delta_SR": -55.0},
    ]
    assert fig.n == 24 and list(fig.chart.x) == ["none", "blur:2", "jpeg:10"]


def test_robustness_keeps_the_submissions_the_board_chose():
    runs = [
        {"submission": 1, "model": "A", "perturbation": "", "episodes": 10, "successes": 8},
        {"submission": 2, "model": "A", "perturbation": "blur:2", "episodes": 10, "successes": 5},
        {"submission": 3, "model": "B", "perturbation": "", "episodes": 10, "successes": 3},
        {"submission": 4, "model": "B", "perturbation": "blur:2", "episodes": 10, "successes": 3},
    ]

    def models(kept):
        fig = {f.key: f for f in figures([], AnalysisContext(extra={"runs": runs}, submissions=kept))}["robustness"]
        return sorted({r["model"] for r in rows(fig)})

    assert models(None) == ["A", "B"]  # no board chose: every submission counts
    assert models(frozenset({1, 2, 3, 4})) == ["A", "B"]
    assert models(frozenset({3, 4})) == ["B"]
    assert models(frozenset({1, 3, 4})) == ["B"]  # A's perturbed run filtered out: nothing to compare for A
    assert models(frozenset()) == []
