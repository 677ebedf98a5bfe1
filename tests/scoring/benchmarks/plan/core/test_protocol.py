from __future__ import annotations

import pytest

from scoring.benchmarks.plan.core.protocol import PROMPT_VERSION, open_messages, parse_choice, parse_true_false

OPTIONS = {"A": "left", "B": "right"}


@pytest.mark.parametrize("reply, expected", [("True", True), ("false", False), ("**True**", True), ("False.", False),
                                             ("<think>maybe true</think>\nFalse", False), ("Verdict: True", True)])
def test_true_false_replies_are_read(reply: str, expected: bool) -> None:
    assert parse_true_false(reply).correct is expected


@pytest.mark.parametrize("reply", ["", "Maybe", "True or False", "The output is correct", "Yes"])
def test_malformed_true_false_replies_are_undecided(reply: str) -> None:
    parsed = parse_true_false(reply)
    assert parsed.correct is None and parsed.problem


def test_choice_replies_map_to_letters_and_none_is_wrong() -> None:
    assert parse_choice("B", OPTIONS, "B").correct is True
    assert parse_choice("(a)", OPTIONS, "B").letter == "A"
    assert parse_choice("None", OPTIONS, "B").correct is False
    assert parse_choice("Z", OPTIONS, "B").correct is None


def test_open_prompt_gives_answer_hint_and_output() -> None:
    user = open_messages(answer="3", hint=None, output="three")[1]["content"]
    assert "Ground-truth answer: 3" in user and "Answer hint: None" in user and "Model output: three" in user
    assert PROMPT_VERSION
