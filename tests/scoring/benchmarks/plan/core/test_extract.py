from __future__ import annotations

import pytest

from scoring.benchmarks.plan.core.extract import extract_option

OPTIONS = {"A": "red box", "B": "blue box", "C": "green ball", "D": "yellow mug"}


@pytest.mark.parametrize(
    "output, letter",
    [
        ("B", "B"),
        ("(C)", "C"),
        ("Answer: D.", "D"),
        ("**A**", "A"),
        ("The answer is C because the ball is in front of the rest of the things", "C"),
        ("the blue box", "B"),
        ("I see the green ball in front.", "C"),
    ],
)
def test_resolvable_outputs_give_the_letter(output: str, letter: str) -> None:
    assert extract_option(output, OPTIONS).letter == letter


@pytest.mark.parametrize(
    "output",
    [
        "b",  # VLMEvalKit is case-sensitive
        "A or B",
        "A robot would first look around the room carefully and then decide which to take",  # A is prose, not last 4
        "red box or blue box",
    ],
)
def test_ambiguous_outputs_are_unresolved(output: str) -> None:
    extraction = extract_option(output, OPTIONS)
    assert extraction.letter is None and not extraction.refused


def test_refusal_is_no_answer() -> None:
    assert extract_option("Sorry, I cannot determine the answer from the image.", OPTIONS).refused


def test_option_text_is_only_used_for_short_outputs() -> None:
    long_output = "the blue box " + "and some rambling text " * 10
    assert extract_option(long_output, OPTIONS).letter is None
