"""VGEBench's Analysis figures on a small fixed fixture of traces, against values worked out by hand."""
from __future__ import annotations

from scoring.benchmarks.vge.core.analysis import classify_switches, figures, success_turn
from scoring.benchmarks.vge.core.graphs import DeviceGraphs
from scoring.core.analysis import AnalysisContext, ModelSamples, SampleRow
from tests.scoring.benchmarks.vge.core.conftest import make_task


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
    # Played with the task's λ (5 by default): t1 succeeds from λ=1 (2 ≤ 1·2); t2 from λ=3 (6 ≤ 3·2); t3 never;
    # the cut stops at the λ played.
    truncated = rows(fig, series="truncated from λ = 5 episodes (not normalised)")
    assert [r["SR"] for r in truncated] == [33.33, 33.33, 66.67, 66.67, 66.67]
    assert fig.n == 3 and rows(fig, series=truncated[0]["series"], **{"lambda": 3})[0]["successes"] == 2


def at_lambda(lam: int, n: int, successes: int) -> list[SampleRow]:
    """n episodes played at λ (the scorer's `lambda` detail), the first `successes` of them reaching their goal."""
    return [episode(f"t{lam}-{i}", "oven", 1, 2,
                    [step(1), step(2, goal="g0", done=True, success=True)] if i < successes
                    else [step(1, kind="no_effect", sa="a", done=True)], **{"lambda": lam}) for i in range(n)]


def test_budget_gain_from_episodes_played_at_each_lambda_normalised_at_2():
    """VGEBench Fig. 3 "normalizes performance at λ = 2 to zero and shows relative gains for larger budgets": the
    SR of each λ comes from the episodes actually played with that λ, minus SR at λ = 2; a model with only λ = 5
    episodes gets no invented normalisation but its truncation series, labelled as such."""
    played = ModelSamples("P", "P", samples=(*at_lambda(2, 4, 1), *at_lambda(3, 4, 2), *at_lambda(5, 5, 4)))
    only_five = ModelSamples("F", "F", samples=tuple(at_lambda(5, 4, 3)))
    fig = by_key([played, only_five])["budget"]
    assert rows(fig, model="P") == [
        {"model": "P", "series": "played", "lambda": 2, "n": 4, "successes": 1, "SR": 25.0, "gain_vs_lambda_2": 0.0},
        {"model": "P", "series": "played", "lambda": 3, "n": 4, "successes": 2, "SR": 50.0, "gain_vs_lambda_2": 25.0},
        {"model": "P", "series": "played", "lambda": 5, "n": 5, "successes": 4, "SR": 80.0, "gain_vs_lambda_2": 55.0},
    ]
    assert rows(fig, model="F", series="played") == [
        {"model": "F", "series": "played", "lambda": 5, "n": 4, "successes": 3, "SR": 75.0, "gain_vs_lambda_2": None}]
    truncated = rows(fig, model="F", series="truncated from λ = 5 episodes (not normalised)")
    assert [(r["lambda"], r["SR"], r["gain_vs_lambda_2"]) for r in truncated] == [
        (1, 75.0, None), (2, 75.0, None), (3, 75.0, None), (4, 75.0, None), (5, 75.0, None)]
    names = {s.name: list(s.values) for s in fig.chart.series}
    assert names["P"] == [None, 0.0, 25.0, None, 55.0, None, None, None, None, None]
    assert names["F · truncated from λ = 5 episodes (not normalised), SR"] == [75.0] * 5 + [None] * 5
    assert fig.n == 17


def test_human_vs_model_on_the_same_tasks():
    fig = by_key([M, H])["human-vs-model"]
    model = rows(fig, model="M")[0]
    assert (model["tasks"], model["episodes"], model["SR"], model["SPL"]) == (1, 1, 100.0, round(100 * 2 / 6, 2))
    human = rows(fig, model="Human")[0]
    assert (human["tasks"], human["episodes"], human["SPL"]) == (1, 2, round((100 + 100 * 2 / 3) / 2, 2))
    assert by_key([M])["human-vs-model"].rows == []  # no human episodes: nothing to compare


def played(engine, task, outputs: list[str]) -> SampleRow:
    """An episode of the tiny device played through the real engine, stored as the site stores it."""
    state, trace = engine.new_episode(task), []
    for text in outputs:
        state, outcome = engine.step(state, text)
        trace.append(outcome.as_dict())
    return SampleRow(key=task.id, details={"task": task.as_dict(), "l_opt": state.l_opt, "trace": trace},
                     components={"SR": 100.0 if state.success else 0.0})


# The tiny device (conftest): the power button shows on the front view (inside the dashboard's unlock box, so it
# is operated on the dashboard) and on the dashboard; the door on front and left; Start and the knob on front only.
# Goals: idle (power on), then warm (the knob).
TINY_PLAY = [
    "Press(coord=[1200, 5], params=[0])",  # off the image: invalid coordinates
    "Press(coord=[580, 950], params=[0])",  # on no component: invalid coordinates
    "Timed_wait()",  # nothing to wait for: invalid waiting
    "Switch_view(params=[left])",  # the target (power button) on front, not on left: PN
    "Switch_view(params=[front])",  # NP
    "Switch_view(coord=[800, 300])",  # unlocks the dashboard; the power button on both views: PP
    "Press(coord=[200, 300], params=[1])",  # the plan's component and action, wrong parameter
    "Push(coord=[200, 300], params=[0])",  # the plan's component, an atomic action it has no transition for
    "Press(coord=[200, 300], params=[0])",  # goal idle; next target: the knob (front only)
    "Switch_view(params=[left])",  # dashboard -> left, neither shows the knob: NN
    "Switch_view(params=[front])",  # NP
    "Press(coord=[150, 950])",  # Start: a component the plan does not act on next
    "I give up",  # no action at all: outside the paper's classes
    "Switch_view(params=[front])",  # to the current view: outside the paper's classes
]


def test_view_switches_as_the_paper(engine):
    """VGEBench App. B: a *negative* view does not show the current goal's target component, a *positive* one
    does; NP is successful navigation, NN is "ineffective view searching" and PN is "losing the target component
    during view switching" (Visual Navigation Errors). The target is the component the optimal plan acts on
    next for the current goal; a switch whose target cannot be determined is counted apart, never guessed."""
    ep = played(engine, make_task(("idle", "warm")), TINY_PLAY)
    graphs = {"tiny": DeviceGraphs(engine.device)}
    # Heating reaches "done" by waiting: no component is the target, so the switch is not classed.
    waiting = played(engine, make_task(("done",), task_id="tiny/t3", start_state="heating"),
                     ["Switch_view(params=[left])", "Timed_wait()"])
    visible = {"tiny": {v: sorted(c for c, _b in graphs["tiny"].view_boxes[v]) for v in engine.device.views}}
    context = AnalysisContext(extra={"graphs": graphs, "visible": visible})
    fig = {f.key: f for f in figures([ModelSamples("M", "M", samples=(ep, waiting, T1))], context)}["view-switches"]
    assert rows(fig)[0] == {"model": "M", "episodes": 2, "switches": 5, "NP": 2, "NN": 1, "PN": 1, "PP": 1,
                            "target_unknown": 1, "NP_share": 40.0, "NN_share": 20.0, "PN_share": 20.0,
                            "PP_share": 20.0}
    assert "as the paper (App. B)" in fig.title
    assert classify_switches(ep, graphs) == ["PN", "NP", "PP", "NN", "NP"]
    assert classify_switches(ep, {}) is None  # device unknown: not classified
    assert classify_switches(waiting, graphs) == ["unknown"]


def test_error_taxonomy_as_the_paper(engine):
    """VGEBench App. B, three classes: Fine-grained Visual Grounding (invalid-coordinate clicks; incorrect or
    non-optimal components), Action Execution (right target, wrong operation: parameter errors, atomic-action
    errors, invalid waiting), Visual Navigation (Switch View NN and PN); the paper's shares 66.1 / 17.2 / 16.7 %,
    parameter errors 10.8 %."""
    ep = played(engine, make_task(("idle", "warm")), TINY_PLAY)
    optimal = played(engine, make_task(("idle", "warm"), task_id="tiny/t2"), [
        "Switch_view(coord=[800, 300])", "Press(coord=[200, 300], params=[0])", "Switch_view(params=[front])",
        "Rotate(coord=[350, 350], params=[0, 3])"])
    assert optimal.components["SR"] == 100.0
    graphs = {"tiny": DeviceGraphs(engine.device)}
    fig = {f.key: f for f in figures([ModelSamples("M", "M", samples=(ep, T1)), ModelSamples("O", "O", samples=(optimal,))],
                                     AnalysisContext(extra={"graphs": graphs}))}["errors"]
    got = {(r["class"], r["error"]): (r["count"], r["share"]) for r in rows(fig, model="M")}
    assert got == {
        ("Fine-grained Visual Grounding", "all"): (3, 37.5),
        ("Fine-grained Visual Grounding", "invalid coordinates"): (2, 25.0),
        ("Fine-grained Visual Grounding", "incorrect or non-optimal component"): (1, 12.5),
        ("Action Execution", "all"): (3, 37.5),
        ("Action Execution", "parameter error"): (1, 12.5),
        ("Action Execution", "atomic-action error"): (1, 12.5),
        ("Action Execution", "invalid waiting"): (1, 12.5),
        ("Visual Navigation", "all"): (2, 25.0),
        ("Visual Navigation", "NN"): (1, 12.5),
        ("Visual Navigation", "PN"): (1, 12.5),
        ("not in the paper's classes", "invalid output"): (1, None),
        ("not in the paper's classes", "switch that changed no view"): (1, None),
        ("not in the paper's classes", "target unknown"): (0, None),
    }
    assert rows(fig, model="M")[0]["episodes"] == 1  # T1 names no device: not classed
    assert all(r["count"] == 0 for r in rows(fig, model="O"))  # the optimal plan makes no error
    paper = {(r["class"], r["error"]): r["share"] for r in rows(fig, model="paper (VGEBench, App. B)")}
    assert paper == {("Fine-grained Visual Grounding", "all"): 66.1, ("Action Execution", "all"): 17.2,
                     ("Action Execution", "parameter error"): 10.8, ("Visual Navigation", "all"): 16.7}
    assert list(fig.chart.x) == ["Fine-grained Visual Grounding", "Action Execution", "Visual Navigation"]
    assert [s.values for s in fig.chart.series] == [[37.5, 37.5, 25.0], [None, None, None], [66.1, 17.2, 16.7]]


def test_robustness_reports_sr_and_ssr_per_perturbation_and_level():
    """The paper's robustness study (E.2): "Occlusion uses eight black patches covering total area ratios of 10%,
    25%, or 40%", with Gaussian blur and compression beside it; the figure gives SR and SSR for each perturbation
    and level, each against the model's clean runs."""
    runs = [
        {"model": "A", "perturbation": "", "episodes": 10, "successes": 8, "ssr_sum": 900.0},
        {"model": "A", "perturbation": "occlude:0.4", "episodes": 2, "successes": 0, "ssr_sum": 50.0},
        {"model": "A", "perturbation": "jpeg:10", "episodes": 4, "successes": 1, "ssr_sum": 200.0},
        {"model": "A", "perturbation": "blur:5", "episodes": 5, "successes": 1, "ssr_sum": 300.0},
        {"model": "A", "perturbation": "blur:2", "episodes": 5, "successes": 4, "ssr_sum": 450.0},
        {"model": "A", "perturbation": "blur:2", "episodes": 5, "successes": 0, "ssr_sum": 250.0},
        {"model": "A", "perturbation": "jpeg:50", "episodes": 4, "successes": 2, "ssr_sum": 300.0},
        {"model": "B", "perturbation": "", "episodes": 10, "successes": 3, "ssr_sum": 500.0},  # never perturbed
    ]
    fig = {f.key: f for f in figures([], AnalysisContext(extra={"runs": runs}))}["robustness"]
    got = [(r["model"], r["perturbation"], r["level"], r["episodes"], r["SR"], r["SSR"], r["delta_SR"],
            r["delta_SSR"]) for r in rows(fig)]
    assert got == [
        ("A", "none", None, 10, 80.0, 90.0, 0.0, 0.0),
        ("A", "blur", "2", 10, 40.0, 70.0, -40.0, -20.0),
        ("A", "blur", "5", 5, 20.0, 60.0, -60.0, -30.0),
        ("A", "jpeg", "50", 4, 50.0, 75.0, -30.0, -15.0),
        ("A", "jpeg", "10", 4, 25.0, 50.0, -55.0, -40.0),
        ("A", "occlude", "0.4", 2, 0.0, 25.0, -80.0, -65.0),
    ]
    assert fig.n == 35
    assert list(fig.chart.x) == ["none", "blur:2", "blur:5", "jpeg:50", "jpeg:10", "occlude:0.4"]
    assert [(s.name, s.values[0], s.values[-1]) for s in fig.chart.series] == [("A · SR", 80.0, 0.0),
                                                                              ("A · SSR", 90.0, 25.0)]


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


def test_a_devices_optimal_plans_are_made_once_per_node_and_goal(tiny):
    """A VGE summary judges some 15,000 episodes' turns on a few devices against their optimal plans: each plan
    (`optimal_steps`) and target set (`target_components`) of a node and goal is made once, and is what it was
    made anew."""
    graphs = DeviceGraphs(tiny)
    asked = [(node, goal) for goal in tiny.states for node in graphs.nodes()]
    planned = [(n, g) for n, g in asked if graphs.optimal_steps(n, g)]
    assert planned
    for node, goal in asked:
        fresh = DeviceGraphs(tiny)
        assert graphs.optimal_steps(node, goal) == fresh.optimal_steps(node, goal)
        assert graphs.target_components(node, goal) == fresh.target_components(node, goal)
    for node, goal in planned:
        assert graphs.optimal_steps(node, goal) is graphs.optimal_steps(node, goal)
        assert graphs.target_components(node, goal) is graphs.target_components(node, goal)
