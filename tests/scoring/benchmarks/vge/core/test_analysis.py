"""VGEBench's Analysis figures on a small fixed fixture of traces, against values worked out by hand."""
from __future__ import annotations

from scoring.benchmarks.vge.core.analysis import error_counts, figures, success_turn
from scoring.core.analysis import ModelSamples, SampleRow


def step(turn: int, *, kind="success", cls="physical", sb="a", sa="b", vb="front", va="front", goal=None,
         done=False, success=False) -> dict:
    return {"turn": turn, "kind": kind, "turn_class": cls, "state_before": sb, "state_after": sa, "view_before": vb,
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
T1 = episode("t1", "oven", 1, 2, [step(1), step(2, goal="g0", done=True, success=True)])
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
