"""Play-page messages -> action texts (scoring.benchmarks.vge.core.play): what is accepted, what is refused and why."""
from __future__ import annotations

import pytest

from scoring.benchmarks.vge.core.actions import parse_action
from scoring.benchmarks.vge.core.play import PlayInputError, action_text, budget_maxima


@pytest.mark.parametrize("message, text", [
    ({"action": "press", "coord": [512, 300], "params": [0]}, "Press(coord=[512, 300], params=[0])"),
    ({"action": "Press", "coord": [0, 1000], "params": [2]}, "Press(coord=[0, 1000], params=[2])"),
    ({"action": "rotate", "coord": [10, 20], "params": [1, 3]}, "Rotate(coord=[10, 20], params=[1, 3])"),
    ({"action": "push", "coord": [10, 20], "params": [4]}, "Push(coord=[10, 20], params=[4])"),
    ({"action": "pull", "coord": [10.0, 20], "params": [2.0]}, "Pull(coord=[10, 20], params=[2])"),
    ({"action": "grasp", "coord": [1, 2]}, "Grasp(coord=[1, 2])"),
    ({"action": "timed_wait", "coord": [5000, 1]}, "Timed_wait()"),
    ({"action": "switch_view", "params": ["front_top"]}, "Switch_view(params=[front_top])"),
    ({"action": "switch_view", "coord": [800, 200]}, "Switch_view(coord=[800, 200])"),
])
def test_well_formed_messages_become_the_action_text_an_agent_would_write(message, text):
    assert action_text(message) == text
    parsed = parse_action(text)
    assert parsed.action is not None and parsed.action.text() == text


@pytest.mark.parametrize("message, field", [
    ("press", "message"),
    ({"action": "kick", "coord": [1, 1]}, "action"),
    ({"coord": [1, 1]}, "action"),
    ({"action": "press", "coord": [1, 1, 1], "params": [0]}, "coord"),
    ({"action": "press", "coord": [-1, 1], "params": [0]}, "coord[0]"),
    ({"action": "press", "coord": [1, 1.5], "params": [0]}, "coord[1]"),
    ({"action": "press", "coord": [True, 1], "params": [0]}, "coord[0]"),
    ({"action": "press", "coord": [1, 1]}, "params"),
    ({"action": "press", "coord": [1, 1], "params": ["0"]}, "params[0]"),
    ({"action": "rotate", "coord": [1, 1], "params": [2, 1]}, "params[0]"),
    ({"action": "rotate", "coord": [1, 1], "params": [0, 0]}, "params[1]"),
    ({"action": "push", "coord": [1, 1], "params": [5]}, "params[0]"),
    ({"action": "grasp", "coord": [1, 1], "params": [0]}, "params"),
    ({"action": "switch_view", "params": ["a]) Press(coord=[1,1]"]}, "params[0]"),
    ({"action": "switch_view"}, "coord"),
])
def test_malformed_messages_are_refused_naming_the_field(message, field):
    with pytest.raises(PlayInputError) as info:
        action_text(message)
    assert info.value.field == field


def test_budget_bars_span_the_start_budget_and_the_current_goals_budget():
    state = {"turns": 7, "global_left": 13, "local_left": 4, "goal_since": 5}
    assert budget_maxima(state) == {"global": 20, "local": 6}
