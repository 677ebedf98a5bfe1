"""Wide inputs: no text makes the parser or the engine raise, and every turn costs exactly one."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.benchmarks.vge.core.actions import parse_action
from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task

ENGINE = Engine(load_device(TINY))
CALLISH = st.builds(
    lambda name, x, y, params, junk: f"{junk}Action: {name}(coord=[{x}, {y}], params=[{params}])",
    st.sampled_from(["Press", "rotate", "PUSH", "Pull", "Grasp", "Timed_wait", "Switch_view", "Kick"]),
    st.one_of(st.integers(-50, 1100), st.floats(allow_nan=True), st.text(max_size=3)),
    st.integers(-50, 1100),
    st.text(max_size=8),
    st.text(max_size=20),
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), CALLISH))
def test_parser_never_raises(text):
    result = parse_action(text)
    assert (result.action is None) == bool(result.error)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=60), CALLISH), min_size=1, max_size=12))
def test_engine_turns_always_cost_one_and_never_raise(outputs):
    state = ENGINE.new_episode(make_task(("idle", "heating")))
    for text in outputs:
        if state.done:
            break
        before = state
        state, outcome = ENGINE.step(state, text)
        assert state.turns == before.turns + 1
        assert state.global_left == before.global_left - 1
        assert outcome.kind in ("invalid", "success", "no_effect", "wrong_operation", "unlocked", "switched")
        assert state.view in ENGINE.device.views
