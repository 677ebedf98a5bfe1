"""Engine rules of docs/formats/vge.md: every branch of the check order, budgets, goals, serialisation."""
from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from scoring.benchmarks.vge.core import engine as E
from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine, EpisodeState, StepOutcome
from scoring.core.numbers import finite
from tests.scoring.benchmarks.vge.core.conftest import make_task


def play(engine, task, outputs):
    state = engine.new_episode(task)
    outcomes = []
    for text in outputs:
        state, outcome = engine.step(state, text)
        outcomes.append(outcome)
    return state, outcomes


PRESS_POWER_DASH = "Action: Press(coord=[200, 300], params=[0])"
OPEN_DASH = "Action: Switch_view(coord=[800, 200])"


def test_start_budgets_are_lambda_times_optimal_lengths(engine):
    state = engine.new_episode(make_task(("idle", "heating"), lam=5))
    # idle: open the dashboard by coord, press power there (2); heating: back to front, press start (2)
    assert (state.l_opt, state.goal_c_opt) == (4, 2)
    assert (state.global_left, state.local_left) == (20, 10)


@pytest.mark.parametrize(
    "output, message",
    [
        ("I give up.", "no action found"),
        ("Action: Press(params=[0])", "needs coord"),
        ("Action: Press(coord=[1001, 5])", "outside 0..1000"),
        ("Action: Press(coord=[-1, 5])", "outside 0..1000"),
        ("Action: Press(coord=[12, abc])", "malformed coord"),
        ("Action: Switch_view(params=[kitchen])", "no view 'kitchen'"),
        ("Action: Switch_view(params=[dashboard])", "still locked"),
        ("Action: Switch_view()", "needs params"),
        ("Action: Switch_view(coord=[2000, 1])", "outside 0..1000"),
    ],
)
def test_invalid_turns_cost_budget_and_change_nothing(engine, output, message):
    task = make_task()
    start = engine.new_episode(task)
    state, outcome = engine.step(start, output)
    assert outcome.kind == E.INVALID and outcome.turn_class == E.INVALID
    assert message in outcome.feedback
    assert (state.state, state.view, state.unlocked) == (start.state, start.view, start.unlocked)
    assert (state.global_left, state.local_left) == (start.global_left - 1, start.local_left - 1)


def test_physical_action_on_axonometric_view_is_invalid(engine):
    state, (switch, press) = play(engine, make_task(), ["Switch_view(params=[front_top])", "Press(coord=[730, 180])"])
    assert switch.kind == E.SWITCHED and switch.view_after == "front_top"
    assert press.kind == E.INVALID and "axonometric" in press.feedback


def test_switch_by_name_to_current_view_is_allowed_and_a_switch_turn(engine):
    _, (outcome,) = play(engine, make_task(), ["Action: switch_VIEW(params=['front'])"])
    assert (outcome.kind, outcome.turn_class, outcome.view_after) == (E.SWITCHED, E.SWITCH, "front")


def test_switch_by_coord_inside_unlock_box_opens_and_unlocks_dashboard(engine):
    state, (outcome,) = play(engine, make_task(), [OPEN_DASH])
    assert (outcome.kind, state.view, state.unlocked) == (E.SWITCHED, "dashboard", True)
    assert "dashboard" in engine.accessible_views(state)


def test_switch_by_coord_elsewhere_is_no_effect_switch_turn(engine):
    state, (outcome,) = play(engine, make_task(), ["Switch_view(coord=[10, 10])"])
    assert (outcome.kind, outcome.turn_class, outcome.feedback) == (E.NO_EFFECT, E.SWITCH, "null")
    assert state.view == "front" and not state.unlocked


def test_switch_params_win_over_coord(engine):
    state, (outcome,) = play(engine, make_task(), ["Switch_view(coord=[800, 200], params=[left, front])"])
    assert (state.view, state.unlocked) == ("left", False)


def test_timed_wait_without_transition_has_no_effect(engine):
    _, (outcome,) = play(engine, make_task(), ["Action: Timed_wait()"])
    assert (outcome.kind, outcome.feedback, outcome.turn_class) == (E.NO_EFFECT, "Waiting had no effect.", E.WAIT)


def test_timed_wait_takes_the_wait_transition(engine):
    task = make_task(("done",), start_state="heating")
    state, (outcome,) = play(engine, task, ["Timed_wait"  "()"])
    assert outcome.kind == E.SUCCESS and state.state == "done" and state.success
    assert outcome.feedback.startswith("It beeps. The food is done.")


def test_passive_unlock_aborts_the_action_and_unlocks(engine):
    state, (outcome,) = play(engine, make_task(), ["Action: Press(coord=[730, 180], params=[0])"])
    assert outcome.kind == E.UNLOCKED and outcome.turn_class == E.PHYSICAL
    assert (state.state, state.view, state.unlocked) == ("off", "front", True)


def test_after_unlock_the_front_box_works(engine):
    state, outcomes = play(engine, make_task(), ["Press(coord=[730, 180], params=[0])", "Press(coord=[730, 180], params=[0])"])
    assert outcomes[1].kind == E.SUCCESS and state.state == "idle" and state.success


def test_success_feedback_joins_transition_and_state_descriptions(engine):
    _, outcomes = play(engine, make_task(), [OPEN_DASH, PRESS_POWER_DASH])
    assert outcomes[1].feedback == "The display lights up. It is idle. (All goals reached.)"
    assert outcomes[1].component == "power_button"


def test_wrong_operation_when_reactive_component_has_no_matching_transition(engine):
    _, outcomes = play(engine, make_task(), [OPEN_DASH, "Press(coord=[200, 300], params=[1])"])
    assert outcomes[1].kind == E.WRONG_OPERATION
    assert outcomes[1].feedback == "It seems that this component can be operated, but not in this way."


def test_no_effect_when_no_reactive_component_is_hit(engine):
    _, (outcome,) = play(engine, make_task(), ["Press(coord=[300, 500])"])  # door: no transition from off
    assert (outcome.kind, outcome.feedback) == (E.NO_EFFECT, "null")


def test_immediate_chain_through_error_state(engine):
    task = make_task(("heating",), start_state="idle")
    state, (outcome,) = play(engine, task, ["Pull(coord=[100, 600], params=[4])"])
    assert outcome.entered == ("error", "off")
    assert state.state == "off"
    assert outcome.feedback == "The door opens while it is on! It resets. It is off."


def test_smallest_reactive_box_wins_and_non_reactive_boxes_are_skipped(engine):
    task = make_task(("heating",), start_state="idle")
    # (330, 330) lies in door, knob and sticker; sticker has no transitions, knob is smaller than door.
    _, (outcome,) = play(engine, task, ["Rotate(coord=[330, 330], params=[0, 3])"])
    assert outcome.component == "knob" and outcome.state_after == "warm"
    _, (outcome,) = play(engine, task, ["Pull(coord=[330, 330], params=[4])"])
    assert outcome.kind == E.WRONG_OPERATION and outcome.component == "knob"  # only the knob's transitions count


def test_star_parameter_matches_anything_but_length_must_agree(engine):
    task = make_task(("heating",), start_state="idle")
    assert play(engine, task, ["Rotate(coord=[350, 350], params=[0, 'x'])"])[1][0].kind == E.SUCCESS
    assert play(engine, task, ["Rotate(coord=[350, 350], params=[0])"])[1][0].kind == E.WRONG_OPERATION


def test_empty_parameter_list_matches_any_params(engine):
    task = make_task(("heating",), start_state="idle")
    assert play(engine, task, ["Press(coord=[150, 950], params=[2, 7])"])[1][0].kind == E.SUCCESS


def test_first_matching_transition_in_list_order_wins(tiny_data):
    tiny_data["states"]["off"]["on"]["power_button"].append(
        {"next_state": "warm", "atomic_action": "press", "parameter": ["*"], "transition_description": "x"})
    engine = Engine(load_device(tiny_data))
    _, (_, outcome) = play(engine, make_task(), [OPEN_DASH, PRESS_POWER_DASH])
    assert outcome.state_after == "idle"


def test_goal_progression_resets_local_budget_to_max(engine):
    task = make_task(("idle", "heating"), lam=1)
    state = engine.new_episode(task)
    assert (state.global_left, state.local_left) == (4, 2)
    state, o1 = engine.step(state, OPEN_DASH)
    state, o2 = engine.step(state, PRESS_POWER_DASH)
    assert o2.goal_reached == "idle" and o2.goal_turns == 2 and o2.goal_c_opt == 2
    # local: 2 - 2 = 0 remaining, C_opt(heating) from (idle, dashboard) = 2 -> max(0, 1 * 2)
    assert (state.goal_index, state.local_left, state.global_left) == (1, 2, 2)
    assert not state.done
    assert engine.instruction(state) == "Reach heating."


def test_episode_ends_when_local_budget_runs_out(engine):
    task = make_task(("idle",), lam=1)
    state, outcomes = play(engine, task, ["Timed_wait()", "Timed_wait()"])
    assert state.done and not state.success and outcomes[-1].local_left == 0
    with pytest.raises(ValueError):
        engine.step(state, "Timed_wait()")


def test_success_counts_even_on_the_turn_the_budget_reaches_zero(engine):
    task = make_task(("idle",), lam=1)
    state, _ = play(engine, task, [OPEN_DASH, PRESS_POWER_DASH])
    assert state.global_left == 0 and state.done and state.success


def test_state_and_outcome_survive_json(engine):
    task = make_task(("idle", "heating"))
    state, (o1,) = play(engine, task, [OPEN_DASH])
    again = EpisodeState.from_dict(json.loads(json.dumps(state.as_dict())))
    assert again == state
    assert StepOutcome.from_dict(json.loads(json.dumps(o1.as_dict()))) == o1
    # resuming from the stored state gives the same next outcome as continuing
    assert engine.step(again, PRESS_POWER_DASH) == engine.step(state, PRESS_POWER_DASH)


def test_stored_forms_are_the_deep_copies_they_were(engine):
    """as_dict reads the fields without dataclasses.asdict's deep copy (a served step's cost); the stored JSON is the
    one asdict gave, for states with and without λ and for outcomes with and without an action."""
    task = make_task(("idle", "heating"))
    for lam in (None, 3):
        state = engine.new_episode(task, lam=lam)
        outcomes = []
        for output in ("no action here", OPEN_DASH, PRESS_POWER_DASH):
            state, outcome = engine.step(state, output)
            outcomes.append(outcome)
            reference = asdict(state)
            reference["goal_c_opt"], reference["l_opt"] = finite(state.goal_c_opt), finite(state.l_opt)
            if reference["lam"] is None:
                del reference["lam"]
            assert state.as_dict() == reference
        assert outcomes[0].action is None and outcomes[1].action is not None
        for outcome in outcomes:
            reference = {**asdict(outcome), "action": outcome.action.as_dict() if outcome.action else None,
                         "action_text": outcome.action.text() if outcome.action else None,
                         "entered": list(outcome.entered)}
            for key in ("goal_c_opt", "global_left", "local_left"):
                reference[key] = None if reference[key] == E.INF else reference[key]
            assert outcome.as_dict() == reference
            assert json.dumps(outcome.as_dict()) == json.dumps(reference)


def test_task_starting_in_its_first_goal_is_refused(engine):
    from scoring.benchmarks.vge.core.task_defs import TaskInvalid

    with pytest.raises(TaskInvalid, match="starts in its first goal"):
        engine.new_episode(make_task(("off",)))


def test_start_state_with_an_immediate_chains_before_the_first_turn(engine):
    task = make_task(("idle",), start_state="error")
    state = engine.new_episode(task)
    assert state.state == "off" and engine.start_entered(task) == ("error", "off")


def test_stepping_a_stored_state_on_a_fresh_engine_needs_the_task(tiny):
    state = Engine(tiny).new_episode(make_task())
    with pytest.raises(ValueError, match="add_task"):
        Engine(tiny).step(state, "Timed_wait()")


def test_optimal_lengths_on_the_product_graph(engine):
    g = engine.graphs
    # power button lies wholly inside the unlock box: from the front it needs the dashboard first
    assert g.c_opt(("off", "front", False), "idle") == 2
    assert g.c_opt(("off", "front", True), "idle") == 1  # unlocked: the front box works
    assert g.c_opt(("off", "left", False), "idle") == 3  # left -> front, open dashboard, press
    assert g.l_opt(("off", "front", False), ("idle", "done")) == 5  # + back to front, start, wait
    assert g.canonical_path("idle", "off") == ("idle", "error", "off")  # door (sorted first) -> error -> off
