"""The action grammar: where the action is found, rounding, params normalisation, malformed calls."""
from __future__ import annotations

import pytest

from scoring.benchmarks.vge.core.actions import parse_action


def test_last_call_on_last_action_line_wins():
    text = "Action: Press(coord=[1, 2])\nThinking: maybe Grasp(coord=[3, 4])\naction: Push(coord=[5,6], params=[1]) then Pull(coord=[7, 8], params=[4])\nPress(coord=[9, 9])"
    a = parse_action(text).action
    assert (a.name, a.coord, a.params) == ("pull", (7, 8), ("4",))


def test_action_line_without_a_call_falls_back_to_last_call_anywhere():
    a = parse_action("Press(coord=[1, 2])\nRotate(coord=[3, 4], params=[0, 2])\nAction: none").action
    assert (a.name, a.params) == ("rotate", ("0", "2"))


def test_names_are_case_insensitive():
    assert parse_action("ACTION: tImEd_WaIt()").action.name == "timed_wait"


@pytest.mark.parametrize("text", ["I would press (the red one)", "compress(coord=[1, 2])", "my_press(coord=[1,2])", ""])
def test_prose_and_other_words_are_not_calls(text):
    result = parse_action(text)
    assert result.action is None and "no action found" in result.error


@pytest.mark.parametrize("value, expected", [("512.5", 513), ("512.49", 512), ("0.5", 1), ("-0.5", 0), ("999.5", 1000)])
def test_coords_round_half_up(value, expected):
    assert parse_action(f"Press(coord=[{value}, 3])").action.coord == (expected, 3)


def test_out_of_range_coords_parse_and_are_left_to_the_engine():
    assert parse_action("Press(coord=[1000.5, 3])").action.coord == (1001, 3)


@pytest.mark.parametrize("params", ["[0]", "[0.0]", "['0']", '["0"]', "[ 0 ]", "[\"0.0\"]"])
def test_params_normalise_to_integer_strings(params):
    assert parse_action(f"Press(coord=[1, 2], params={params})").action.params == ("0",)


def test_non_whole_numbers_and_words_stay_as_text():
    assert parse_action("Switch_view(params=['front', 1.5])").action.params == ("front", "1.5")


def test_missing_params_is_an_empty_list():
    assert parse_action("Grasp(coord=[1, 2])").action.params == ()


@pytest.mark.parametrize(
    "text, message",
    [
        ("Press(coord=[1])", "malformed coord"),
        ("Press(coord=[a, b])", "malformed coord"),
        ("Press(coord=[1, 2, 3])", "malformed coord"),
        ("Press(coord=[nan, 2])", "malformed coord"),
        ("Press(coord=[1, 2]", "not closed"),
        ("Press(coords=[1, 2])", "unknown argument"),
        ("Press(coord=1)", "must be a list"),
        ("Press(coord=[1, 2)", "not closed with ']'"),
        ("Press(coord=[1, 2], coord=[3, 4])", "given twice"),
        ("Press(512, 300)", "could not read"),
    ],
)
def test_malformed_calls_are_reported(text, message):
    result = parse_action(text)
    assert result.action is None and message in result.error


def test_quoted_parenthesis_inside_params_does_not_close_the_call():
    assert parse_action("Switch_view(params=['a)b'])").action.params == ("a)b",)


def test_text_round_trip():
    a = parse_action("Thinking... Action: rotate(coord=[10.4, 20.6], params=[1, '3'])").action
    assert a.text() == "Rotate(coord=[10, 21], params=[1, 3])"
    assert parse_action(a.text()).action == a


def test_thinking_traces_are_read_by_the_shared_rule():
    """scoring/core/reasoning.py, the one helper for every benchmark's reader: "an output that opens a `<think>`
    block and never closes it has no answer (a trace cut off by the token limit); otherwise every
    `<think>…</think>` block is removed." An action inside the trace is not the action."""
    cut_off = parse_action("<think>I should Press(coord=[10, 20], params=[0]) first, then")
    assert cut_off.action is None and "<think>" in cut_off.error and "never closed" in cut_off.error
    closed = parse_action("<think>Action: Pull(coord=[1, 2], params=[4])?</think>\nAction: Press(coord=[5, 6])")
    assert (closed.action.name, closed.action.coord) == ("press", (5, 6))
    # Only the trace is dropped: an action before the think block, outside it, still counts.
    before = parse_action("Action: Grasp(coord=[3, 4])\n<think>or Push(coord=[7, 8])?</think>")
    assert (before.action.name, before.action.coord) == ("grasp", (3, 4))
    assert parse_action("<think></think>").error.startswith("no action found")
